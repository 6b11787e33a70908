"""What must last lives in the database: a copy of it, restored beside an EMPTY Redis,
serves every app and every player as before.

On each back end: a live gunicorn and an RQ worker with their database
(SQLite in a file, or a PostgreSQL database of its own), apps made by the
operator's command (``schnapsen-admin``), one of them revoked, players
registered over HTTP and a rated game between two of them, rated by the
worker and archived, and a webhook endpoint. The database is copied while the server runs (SQLite:
the online backup API; PostgreSQL: ``pg_dump`` and ``pg_restore`` of the
tests' own installation), then a new server starts on a new, empty Redis and
the restored copy: every app's key and every player's token open the same
reads with the same answers (the app's webhook endpoints too), the revoked key stays refused, and the operator
lists the same apps.
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
from service.store.archive import open_archive
from tests.support.admin import admin
from tests.support.http import auth
from tests.support.players import register_over_http
from tests.support.postgres import fresh_database, program
from tests.support.servers import LiveServer, WorkerProcess
from tests.support.waiting import wait_until

#: Both runs start gunicorn and workers: the system lane (tests/conftest.py), both alike.
BACK_ENDS = ["sqlite", "postgresql"]
#: The reads an app's key opens that hold no game in play (those live in Redis alone).
READS = ("/v1/games?client=me", "/v1/games/export?client=me", "/v1/leaderboard")
#: The reads a player's token opens ({id}: the player's id; {game}: the rated game).
PLAYER_READS = (
    "/v1/players/me",
    "/v1/players/{id}",
    "/v1/players/{id}/ratings",
    "/v1/players/me/games",
    "/v1/leaderboard",
)
#: The reads of an app's webhook endpoints ({hook}: one of them).
HOOK_READS = ("/v1/webhooks", "/v1/webhooks/{hook}")
#: The reads a seat's token opens (the rated game's seats).
SEAT_READS = ("/v1/games/{game}", "/v1/games/{game}/replay", "/v1/games/{game}/events")


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
    """A gunicorn and a worker on this Redis and this database."""
    server = LiveServer(redis_url, workers=1, env={"SCHNAPSEN_ARCHIVE_URL": database_url})
    worker = WorkerProcess(redis_url, SCHNAPSEN_ARCHIVE_URL=database_url)
    try:
        yield server
    finally:
        worker.stop()
        server.stop()


def operator(redis_url: str, database_url: str, *args: str) -> object:
    """``schnapsen-admin ARGS --json`` against this server's Redis and database."""
    done = admin(redis_url, *args, "--json", env={"SCHNAPSEN_ARCHIVE_URL": database_url})
    return json.loads(done.stdout)


def answers(
    server: LiveServer, key: str, paths: tuple[str, ...] = READS, **names: str
) -> list[tuple[str, int, str, str]]:
    """Each read's path, status, content type and body, with ``key`` (a client key or a
    player's token)."""
    seen = []
    for path in paths:
        path = path.format(**names)
        answer = requests.get(f"{server.url}{path}", headers=auth(key), timeout=30)
        seen.append((path, answer.status_code, answer.headers["Content-Type"], answer.text))
    return seen


def get(server: LiveServer, path: str, key: str) -> dict:
    answer = requests.get(f"{server.url}{path}", headers=auth(key), timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()


def rated_game(server: LiveServer, winner: dict, loser: dict) -> tuple[str, list[str]]:
    """A rated game between two players, resigned by the loser: its id, its seats' tokens."""
    url, headers = server.url, auth(winner["token"])
    created = requests.post(f"{url}/v1/games", json={"rated": True}, headers=headers, timeout=30)
    assert created.status_code == 201, created.text
    game = created.json()
    joined = requests.post(
        f"{url}/v1/games/{game['game_id']}/join",
        json={"invite": game["invite"]},
        headers=auth(loser["token"]),
        timeout=30,
    )
    assert joined.status_code == 201, joined.text
    resigned = requests.post(
        f"{url}/v1/games/{game['game_id']}/resign",
        headers=auth(joined.json()["token"]),
        timeout=30,
    )
    assert resigned.status_code == 200, resigned.text
    return game["game_id"], [game["token"], joined.json()["token"]]


def archived(database_url: str, game_id: str) -> bool:
    archive = open_archive(database_url)
    try:
        return archive.get(game_id) is not None
    finally:
        archive.close()


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
            players = [register_over_http(before.url, auth(apps[0]["key"]), f"P{n}")
                       for n in range(3)]  # fmt: skip
            game, seats = rated_game(before, players[0], players[1])
            wait_until(
                lambda: get(before, "/v1/players/me", players[1]["token"])["rating"]["games"],
                60,
                "the rated game's ratings",
            )
            wait_until(lambda: archived(source, game), 60, "the game's archiving")
            hook = requests.post(
                f"{before.url}/v1/webhooks",
                json={
                    "url": "https://hooks.example.invalid/schnapsen",
                    "events": ["game.finished"],
                },
                headers=auth(apps[0]["key"]),
                timeout=30,
            )
            assert hook.status_code == 201, hook.text
            hooks = answers(before, apps[0]["key"], HOOK_READS, hook=hook.json()["webhook_id"])
            assert {status for _, status, _, _ in hooks} == {200}
            seen = {app["id"]: answers(before, app["key"]) for app in apps}
            assert [status for _, status, _, _ in seen[apps[0]["id"]]] == [200, 200, 200]
            assert {status for _, status, _, _ in seen[apps[2]["id"]]} == {401}
            played = {
                player["token"]: answers(
                    before, player["token"], PLAYER_READS, id=player["player"]["player_id"]
                )
                for player in players
            }
            played.update({seat: answers(before, seat, SEAT_READS, game=game) for seat in seats})
            refused = [(path, body) for reads in played.values()
                       for path, status, _, body in reads if status != 200]  # fmt: skip
            assert not refused
            listed = operator(before_redis, source, "clients", "list")
            copy()
        with (
            empty_redis(tmp_path / "redis-after") as after_redis,
            serving(after_redis, target) as after,
        ):
            for app in apps:
                assert answers(after, app["key"]) == seen[app["id"]], app["name"]
            for player in players:
                assert answers(
                    after, player["token"], PLAYER_READS, id=player["player"]["player_id"]
                ) == played[player["token"]], player["player"]["name"]  # fmt: skip
            for seat in seats:
                assert answers(after, seat, SEAT_READS, game=game) == played[seat]
            assert (
                answers(after, apps[0]["key"], HOOK_READS, hook=hook.json()["webhook_id"]) == hooks
            )
            assert operator(after_redis, target, "clients", "list") == listed
