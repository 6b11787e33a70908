"""What must last lives in the database: a copy of it, restored beside an EMPTY Redis,
serves every app as before.

On each back end: a live gunicorn with its database (SQLite in a file, or a
PostgreSQL database of its own), apps made by the operator's command
(``schnapsen-admin``), one of them revoked. The database is copied while the
server runs (SQLite: the online backup API; PostgreSQL: ``pg_dump`` and
``pg_restore`` of the tests' own installation), then a new server starts on a
new, empty Redis and the restored copy: every app's key opens the same reads
with the same answers, the revoked one stays refused, and the operator lists
the same apps.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import requests

from service.devtools.embedded_redis import EmbeddedRedis
from tests.support.admin import admin
from tests.support.http import auth
from tests.support.postgres import fresh_database, program
from tests.support.servers import LiveServer

BACK_ENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgresql", id="postgresql", marks=pytest.mark.redis),
]
#: The reads an app's key opens that hold no game in play (those live in Redis alone).
READS = ("/v1/games?client=me", "/v1/games/export?client=me")


@contextlib.contextmanager
def empty_redis(folder: Path) -> Iterator[str]:
    """A Redis of its own, empty, for one server's life."""
    server = EmbeddedRedis(folder).start()
    try:
        yield server.url
    finally:
        server.stop()


@contextlib.contextmanager
def serving(redis_url: str, database_url: str) -> Iterator[LiveServer]:
    server = LiveServer(redis_url, workers=1, env={"SCHNAPSEN_ARCHIVE_URL": database_url})
    try:
        yield server
    finally:
        server.stop()


def operator(redis_url: str, database_url: str, *args: str) -> object:
    """``schnapsen-admin ARGS --json`` against this server's Redis and database."""
    done = admin(redis_url, *args, "--json", env={"SCHNAPSEN_ARCHIVE_URL": database_url})
    return json.loads(done.stdout)


def answers(server: LiveServer, key: str) -> list[tuple[int, str, str]]:
    """Each read's status, content type and body, with ``key``."""
    seen = []
    for path in READS:
        answer = requests.get(f"{server.url}{path}", headers=auth(key), timeout=30)
        seen.append((answer.status_code, answer.headers["Content-Type"], answer.text))
    return seen


@contextlib.contextmanager
def two_databases(
    back_end: str, request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[tuple[str, str, Callable[[], None]]]:
    """The server's database, the one its copy is restored into, and how to copy it."""
    if back_end == "sqlite":
        source, target = tmp_path / "live.sqlite3", tmp_path / "restored.sqlite3"

        def copy() -> None:
            with (
                contextlib.closing(sqlite3.connect(source)) as live,
                contextlib.closing(sqlite3.connect(target)) as restored,
            ):
                live.backup(restored)

        yield f"sqlite:///{source}", f"sqlite:///{target}", copy
        return
    server = request.getfixturevalue("postgres_url")
    with fresh_database(server) as source, fresh_database(server) as target:
        dump = tmp_path / "records.dump"

        def copy() -> None:
            for command in (
                [program("pg_dump"), "--format=custom", "--file", str(dump), "--dbname", source],
                [program("pg_restore"), "--exit-on-error", "--dbname", target, str(dump)],
            ):
                done = subprocess.run(command, capture_output=True, text=True, timeout=120)
                assert done.returncode == 0, f"{command[0]}: {done.stderr}"

        yield source, target, copy


@pytest.mark.parametrize("back_end", BACK_ENDS)
def test_a_restored_database_on_an_empty_redis_serves_every_app_as_before(
    back_end: str, request: pytest.FixtureRequest, tmp_path: Path
):
    with two_databases(back_end, request, tmp_path) as (source, target, copy):
        with (
            empty_redis(tmp_path / "redis-before") as before_redis,
            serving(before_redis, source) as before,
        ):
            apps = [operator(before_redis, source, "clients", "create", f"app {n}")
                    for n in range(3)]  # fmt: skip
            revoked = operator(before_redis, source, "clients", "revoke", apps[2]["id"])
            assert revoked["revoked"] is True
            seen = {app["id"]: answers(before, app["key"]) for app in apps}
            assert [status for status, _, _ in seen[apps[0]["id"]]] == [200, 200]
            assert {status for status, _, _ in seen[apps[2]["id"]]} == {401}
            listed = operator(before_redis, source, "clients", "list")
            copy()
        with (
            empty_redis(tmp_path / "redis-after") as after_redis,
            serving(after_redis, target) as after,
        ):
            for app in apps:
                assert answers(after, app["key"]) == seen[app["id"]], app["name"]
            assert operator(after_redis, target, "clients", "list") == listed
