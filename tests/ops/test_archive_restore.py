"""A backup of the archive restored into a fresh place serves every game as before: the
service archives games of both variants ending every way, the archive is copied the
documented way while the service runs (``schnapsen-admin backup``: on PostgreSQL it runs
``pg_dump -Fc``, the server's own installation's), then restored with the service stopped
(SQLite: ``schnapsen-admin restore`` into a fresh data folder; PostgreSQL: ``pg_restore``
into a fresh database), and a new server and worker on an empty
Redis answer every view, event feed, replay and replay export byte for byte as the
first one did."""

from __future__ import annotations

import os
import random
import subprocess
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
import redis

from service.devtools.embedded_redis import EmbeddedRedis
from service.store.events import keys
from tests.support.archive_copies import (
    ENDINGS,
    HANG_BOUND,
    TURN_TIMEOUT,
    archive_admin,
    every_read,
    finish,
)
from tests.support.http import Api
from tests.support.lifecycle import archived_rows
from tests.support.postgres import fresh_database, postgres_bin_dir, program
from tests.support.servers import LiveServer, WorkerProcess
from tests.support.waiting import wait_until

SEED = 20261207


class Backend:
    """One back end's archive, its backup and its restore into a fresh place."""

    def __init__(self, name: str, tmp_path: Path, stack: ExitStack, postgres_url: str | None):
        self.name, self.tmp_path, self.stack, self.postgres_url = (
            name,
            tmp_path,
            stack,
            postgres_url,
        )

    def source(self) -> str:
        if self.name == "sqlite":
            return f"sqlite:///{self.tmp_path / 'var' / 'archive.sqlite3'}"
        assert self.postgres_url is not None
        return self.stack.enter_context(fresh_database(self.postgres_url))

    def back_up(self, url: str) -> Path:
        """The documented backup, taken while the service runs."""
        if self.name == "sqlite":
            copy = self.tmp_path / "archive-backup.sqlite3"
            made = archive_admin({"SCHNAPSEN_ARCHIVE_URL": url}, "backup", str(copy))
            assert made.returncode == 0, made.stderr
            return copy
        dump = self.tmp_path / "archive.dump"
        # pg_dump of the server's own installation first on the PATH: the command runs it.
        path = f"{postgres_bin_dir()}{os.pathsep}{os.environ['PATH']}"
        made = archive_admin({"SCHNAPSEN_ARCHIVE_URL": url, "PATH": path}, "backup", str(dump))
        assert made.returncode == 0, made.stderr
        return dump

    def restore(self, copy: Path) -> str:
        """The documented restore into a fresh place; the URL of what it made."""
        if self.name == "sqlite":
            fresh = self.tmp_path / "var-restored"
            done = archive_admin({"SCHNAPSEN_DATA_DIR": str(fresh)}, "restore", str(copy))
            assert done.returncode == 0, done.stderr
            return f"sqlite:///{(fresh / 'archive.sqlite3').resolve()}"
        assert self.postgres_url is not None
        target = self.stack.enter_context(fresh_database(self.postgres_url))
        run(program("pg_restore"), "--exit-on-error", "--dbname", target, str(copy))
        return target


def run(*command: str) -> None:
    done = subprocess.run(list(command), capture_output=True, text=True, timeout=HANG_BOUND)
    assert done.returncode == 0, f"{command[0]} exited {done.returncode}:\n{done.stderr}"


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    postgres_url = request.getfixturevalue("postgres_url") if request.param != "sqlite" else None
    with ExitStack() as stack:
        yield Backend(request.param, tmp_path, stack, postgres_url)


def serving(stack: ExitStack, folder: Path, archive_url: str) -> tuple[Api, redis.Redis]:
    """A Redis of its own, the API and a worker on it with the archive ``archive_url``."""
    store = EmbeddedRedis(folder).start()
    stack.callback(store.stop)
    env = {
        "SCHNAPSEN_ARCHIVE_URL": archive_url,
        "SCHNAPSEN_TURN_TIMEOUT_SECONDS": str(TURN_TIMEOUT),
    }
    server = LiveServer(store.url, workers=1, env=env)
    stack.callback(server.stop)
    worker = WorkerProcess(store.url, **env)
    stack.callback(worker.stop)
    return Api.live(server.url), redis.Redis.from_url(store.url)


def test_a_restored_backup_serves_every_game_byte_for_byte_from_an_empty_redis(
    backend: Backend, tmp_path: Path
):
    source = backend.source()
    rng = random.Random(SEED)
    with ExitStack() as first:
        api, _ = serving(first, tmp_path / "redis-first", source)
        games = [
            finish(api, ending, variant, random.Random(rng.randrange(2**63)))
            for ending in ENDINGS
            for variant in ("head", "tracked")
        ]
        ids = [str(game["id"]) for game in games]
        wait_until(
            lambda: set(archived_rows(source, ids).values()) == {1}, HANG_BOUND, "the archive"
        )
        before = every_read(api, games)
        copy = backend.back_up(source)

    restored = backend.restore(copy)
    assert restored != source
    with ExitStack() as second:
        api, store = serving(second, tmp_path / "redis-second", restored)
        assert not store.exists(*(keys(game_id)["log"] for game_id in ids)), "an empty Redis"
        after = every_read(api, games)
    assert after.keys() == before.keys()
    for read, answer in before.items():
        assert after[read] == answer, read
