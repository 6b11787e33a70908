"""``schnapsen-admin backup`` copies the SQLite archive while the service runs: the API
under gunicorn and a real RQ worker archive games that end during the copy, and the
copy holds every game archived before it began, whole. A plain copy of the file taken
at the same moment is printed beside it: the games still in the write-ahead log are
not in the file (docs/deployment.md, Backup and restore)."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from service.devtools.embedded_redis import EmbeddedRedis
from tests.support.archive_copies import (
    HANG_BOUND,
    archive_admin,
    integrity,
    resigned_game,
    sqlite_game_ids,
)
from tests.support.http import Api
from tests.support.servers import LiveServer, WorkerProcess
from tests.support.waiting import wait_until

#: Games archived before the copy begins.
GAMES_BEFORE = 80


@dataclass(frozen=True)
class ArchivingService:
    """The API and a worker archiving into ``archive`` (SQLite), on a Redis of their own."""

    server: LiveServer
    archive: Path

    @property
    def env(self) -> dict[str, str]:
        return {"SCHNAPSEN_ARCHIVE_URL": f"sqlite:///{self.archive}"}


@pytest.fixture
def service(tmp_path: Path) -> Iterator[ArchivingService]:
    redis = EmbeddedRedis(tmp_path / "redis").start()
    archive = tmp_path / "var" / "archive.sqlite3"
    env = {"SCHNAPSEN_ARCHIVE_URL": f"sqlite:///{archive}"}
    server = worker = None
    try:
        server = LiveServer(redis.url, workers=1, env=env)
        worker = WorkerProcess(redis.url, **env)
        yield ArchivingService(server, archive)
    finally:
        if worker is not None:
            worker.stop()
        if server is not None:
            server.stop()
        redis.stop()


class Finisher:
    """Ends games one after another, each archived by the worker, until told to stop."""

    def __init__(self, api: Api):
        self.api = api
        self.ended: list[str] = []
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, name="finisher", daemon=True)

    def _run(self) -> None:
        while not self.stopped.is_set():
            self.ended.append(resigned_game(self.api))

    def __enter__(self) -> Finisher:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stopped.set()
        self.thread.join(timeout=HANG_BOUND)


def test_a_backup_taken_while_games_are_archived_holds_every_game_archived_before_it(
    service: ArchivingService, tmp_path: Path
):
    api = Api.live(service.server.url)
    first = [resigned_game(api) for _ in range(GAMES_BEFORE)]
    wait_until(
        lambda: set(first) <= sqlite_game_ids(service.archive), HANG_BOUND, "the first games"
    )
    plain, backup = tmp_path / "plain-copy.sqlite3", tmp_path / "backup.sqlite3"
    with Finisher(api) as finisher:
        wait_until(lambda: len(finisher.ended) >= 5, HANG_BOUND, "games ending meanwhile")
        before = sqlite_game_ids(service.archive)
        shutil.copyfile(service.archive, plain)
        made = archive_admin(service.env, "backup", str(backup))
        during = len(finisher.ended)
        wait_until(lambda: len(finisher.ended) > during, HANG_BOUND, "a game ending after")
    assert made.returncode == 0, made.stderr
    copied = sqlite_game_ids(backup)
    missing = before - copied
    assert not missing, f"{len(missing)} of {len(before)} archived games are not in the backup"
    assert integrity(backup) == ["ok"]
    assert sqlite_game_ids(service.archive) > before, "games were archived during the copy"
    print(
        f"a plain copy of the file held {len(before & sqlite_game_ids(plain))} of the "
        f"{len(before)} games archived before it; schnapsen-admin backup held {len(copied & before)}"
    )


def test_restore_refuses_an_archive_the_running_service_has_open_unless_told(
    service: ArchivingService, tmp_path: Path
):
    api = Api.live(service.server.url)
    kept = resigned_game(api)
    wait_until(lambda: kept in sqlite_game_ids(service.archive), HANG_BOUND, "the game archived")
    backup = tmp_path / "backup.sqlite3"
    assert archive_admin(service.env, "backup", str(backup)).returncode == 0
    later = resigned_game(api)
    wait_until(lambda: later in sqlite_game_ids(service.archive), HANG_BOUND, "a later game")

    refused = archive_admin(service.env, "restore", str(backup))
    assert refused.returncode == 1, refused
    assert "in use" in refused.stderr and "--force" in refused.stderr, refused.stderr
    assert {kept, later} <= sqlite_game_ids(service.archive), "the refusal changed nothing"

    forced = archive_admin(service.env, "restore", "--force", str(backup))
    assert forced.returncode == 0, forced.stderr
    assert sqlite_game_ids(service.archive) == sqlite_game_ids(backup)
    assert later not in sqlite_game_ids(service.archive)
    assert integrity(service.archive) == ["ok"]
