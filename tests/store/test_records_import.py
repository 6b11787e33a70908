"""``schnapsen-admin records import``: a server that kept its apps, players and webhook
endpoints in Redis alone, given a database, finds every one of them there after the
import, on both back ends (SQLite in a file, PostgreSQL on a real server): the same
keys and tokens open the same records, a revoked key stays revoked, a rated game is
not rated again, and a second import changes nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from service.devtools.embedded_redis import EmbeddedRedis
from service.game.log import Listed
from service.game.players import Rated
from service.store.app_records import AppRecords
from service.store.clients import ClientRegistry
from service.store.player_records import PlayerRecords
from service.store.players import PlayerStore, RatingChange
from service.store.records_db import open_records_database
from service.store.webhook_records import WebhookRecords
from service.store.webhooks import WebhookStore
from tests.support.admin import admin
from tests.support.postgres import records_database

BACK_ENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgresql", id="postgresql", marks=pytest.mark.redis),
]


@pytest.fixture(params=BACK_ENDS)
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with records_database(
        request.param, lambda: request.getfixturevalue("postgres_url"), tmp_path
    ) as url:
        yield url


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[str]:
    server = EmbeddedRedis(tmp_path / "redis").start()
    try:
        yield server.url
    finally:
        server.stop()


def imported(redis_url: str, database: str) -> dict[str, int]:
    done = admin(redis_url, "records", "import", env={"SCHNAPSEN_ARCHIVE_URL": database})
    return json.loads(done.stdout)


def test_what_redis_alone_kept_is_found_in_the_database_after_the_import(
    own_redis: str, database: str, tmp_path: Path
):
    old = redis.Redis.from_url(own_redis)
    registry = ClientRegistry(old)
    (app, key), (gone, gone_key) = registry.create("Kept"), registry.create("Revoked")
    registry.revoke(gone.id)
    players = PlayerStore(old)
    anna, anna_token = players.register(app.id, "anna", "Anna")
    ben, ben_token = players.register(app.id, "ben", "Ben")
    entry = {"game_id": "0123456789abcdef", "at": 1_800_000_000_000, "rating": 1600.0}
    changes = [
        RatingChange(anna.id, 0, Rated(1600.0, 300.0, 0.06, 1), entry),
        RatingChange(ben.id, 0, Rated(1400.0, 300.0, 0.06, 1), {**entry, "rating": 1400.0}),
    ]
    assert players.write_ratings(app.id, "0123456789abcdef", changes) == 1
    players.played(app.id, [anna.id, ben.id], "0123456789abcdef", 1_799_999_000_000)
    hook = WebhookStore(old).create(app.id, "https://a.example/hook", ["game.turn"], "whsec_k")

    db = open_records_database(database)
    try:
        records = PlayerRecords(db)
        assert records.identify(anna_token) is None  # a database alone knows none of them
        assert imported(own_redis, database) == {
            "apps": 2, "players": 2, "rating_changes": 2, "player_games": 2,
            "webhook_endpoints": 1,
        }  # fmt: skip
        with EmbeddedRedis(tmp_path / "empty") as empty:
            fresh = redis.Redis.from_url(empty.url)
            apps = ClientRegistry(fresh, AppRecords(db))
            assert apps.identify(key) == app
            found = apps.identify(gone_key)
            assert found is not None and found.revoked
            assert {a.id for a in apps.list()} == {app.id, gone.id}
            for token in (anna_token, ben_token):
                assert records.identify(token) == players.identify(token)
            for pid in (anna.id, ben.id):
                assert records.get(app.id, pid) == players.get(app.id, pid)
                assert records.history(app.id, pid, 10) == players.history(app.id, pid, 10)
                assert records.games_page(app.id, pid, None, 10) == players.games_page(
                    app.id, pid, None, 10
                )
            assert records.leaderboard(app.id, 0, 10) == players.leaderboard(app.id, 0, 10)
            assert records.rated(app.id, "0123456789abcdef")
            assert records.write_ratings(app.id, "0123456789abcdef", changes) == 0
            assert WebhookRecords(fresh, db).get(app.id, hook.id) == hook
        assert set(imported(own_redis, database).values()) == {0}  # once is enough
    finally:
        db.close()


def test_an_older_servers_history_with_tied_times_is_imported_in_the_order_it_was_written(
    own_redis: str, database: str
):
    """A server before each change was written after its player's newest one kept
    changes of one millisecond (two workers), or behind it (a slower clock), in the
    order it wrote them: the database lists and pages them in that order too."""
    old = redis.Redis.from_url(own_redis)
    app, _key = ClientRegistry(old).create("Old")
    anna, _token = PlayerStore(old).register(app.id, "anna", "Anna")
    at = 1_800_000_000_000
    written = [("g9", at), ("g5", at), ("g7", at), ("g1", at - 40), ("g3", at)]
    history_key = f"sch:{{client:{app.id}}}:ratings:{anna.id}"
    for n, (game_id, when) in enumerate(written):  # as that server's script pushed them
        entry = {"game_id": game_id, "at": when, "rating_before": 1500.0 + n, "rating": 1501.0 + n}
        old.lpush(history_key, json.dumps(entry, separators=(",", ":")))
    db = open_records_database(database)
    try:
        assert imported(own_redis, database)["rating_changes"] == len(written)
        records = PlayerRecords(db)
        history = records.history(app.id, anna.id, 10)
        assert [entry["game_id"] for entry in history] == [g for g, _ in reversed(written)]
        paged: list[dict[str, object]] = []
        edge = None
        while entries := records.history_page(app.id, anna.id, edge, 2):
            paged += entries
            edge = Listed(str(entries[-1]["game_id"]), int(entries[-1]["at"]))  # type: ignore[call-overload]
        assert paged == history
        assert set(imported(own_redis, database).values()) == {0}
    finally:
        db.close()
