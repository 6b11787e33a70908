"""Ratings by pool in both stores of players: the database of record (SQLite, PostgreSQL)
and Redis alone. A rating written in one pool leaves the others as they were; every
rating kept before pools is, after the migration, the same rating in the default pool
(``head-untimed``) with its history and its place on the leaderboard."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator

import psycopg
import pytest
import redis

from service.game.players import Rated
from service.game.pools import DEFAULT_POOL, Pool
from service.store.archive_sqlite import _add_migration_functions
from service.store.migrations import migrations
from service.store.player_records import PlayerRecords
from service.store.players import PairRules, PlayerStore, RatingChange
from service.store.records_db import open_records_database
from tests.support.postgres import records_database

BACK_ENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgresql", id="postgresql", marks=pytest.mark.redis),
]
BLITZ = Pool.parse("tracked-blitz")
#: Before pools, the last migration.
BEFORE_POOLS = 7
#: Players an older server kept: id, rating, deviation, volatility, games, on the board.
OLD_PLAYERS = [
    ("pl_00000000000000a1", 1712.5, 95.25, 0.0601, 31, 1),
    ("pl_00000000000000b2", 1480.0, 180.0, 0.06, 4, 0),
    ("pl_00000000000000c3", 1500.0, 350.0, 0.06, 0, 0),
    ("pl_00000000000000d4", 1650.0, 120.0, 0.059, 12, 1),
]


@pytest.fixture(params=BACK_ENDS)
def database(request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:
    with records_database(
        request.param, lambda: request.getfixturevalue("postgres_url"), tmp_path
    ) as url:
        yield url


@contextlib.contextmanager
def records(database: str) -> Iterator[PlayerRecords]:
    db = open_records_database(database)
    try:
        yield PlayerRecords(db)
    finally:
        db.close()


def change(
    player: str, games_before: int, rating: float, deviation: float, game: str, pool: Pool = BLITZ
):
    rated = Rated(rating, deviation, 0.06, games_before + 1)
    entry = {"game_id": game, "pool": pool.name, "at": 1, "opponent": "bot:random", "score": 1.0,
             "rating_before": 1500.0, "rating": rating, "deviation": deviation,
             "volatility": 0.06}  # fmt: skip
    return RatingChange(player, games_before, rated, entry)


def _old_rows() -> list[tuple[object, ...]]:
    return [
        (pid, "app-a", f"u{n}", f"P{n}", 1.0, f"sha{n}", rating, dev, vol, games, board)
        for n, (pid, rating, dev, vol, games, board) in enumerate(OLD_PLAYERS)
    ]


_INSERT_OLD = (
    "INSERT INTO players (player_id, app, app_player_id, name, created, token_sha256, rating, "
    "deviation, volatility, games, on_board) VALUES ({})"
)


def write_before_pools(url: str) -> None:
    """A database as the server before pools left it: migrations up to 0007, players
    with their one rating each, and a rating change of the first."""
    history = ("g-old", OLD_PLAYERS[0][0], "app-a", 5, '{"game_id":"g-old","at":5}')
    if url.startswith("sqlite:///"):
        with sqlite3.connect(url.removeprefix("sqlite:///")) as db:
            _add_migration_functions(db)  # as the archive opens its file
            db.execute("CREATE TABLE schema_migrations (number INTEGER PRIMARY KEY)")
            for migration in migrations("sqlite")[:BEFORE_POOLS]:
                db.executescript(migration.sql)
                db.execute("INSERT INTO schema_migrations VALUES (?)", (migration.number,))
            db.executemany(_INSERT_OLD.format(", ".join("?" * 11)), _old_rows())
            db.execute("INSERT INTO rating_changes VALUES (?, ?, ?, ?, ?)", history)
        return
    with psycopg.connect(url, autocommit=True) as db:
        db.execute(
            "CREATE TABLE schema_migrations (number integer PRIMARY KEY, name text NOT NULL,"
            " applied_at timestamptz NOT NULL DEFAULT now())"
        )
        for migration in migrations("postgres")[:BEFORE_POOLS]:
            db.execute(migration.sql.encode())
            db.execute(
                "INSERT INTO schema_migrations (number, name) VALUES (%s, %s)",
                (migration.number, migration.name),
            )
        with db.cursor() as cursor:
            cursor.executemany(_INSERT_OLD.format(", ".join(["%s"] * 11)), _old_rows())
            cursor.execute("INSERT INTO rating_changes VALUES (%s, %s, %s, %s, %s)", history)


def test_the_migration_keeps_every_rating_in_the_default_pool(database: str):
    assert [m.number for m in migrations("sqlite")][BEFORE_POOLS - 1] == BEFORE_POOLS
    write_before_pools(database)
    with records(database) as store:
        for pid, rating, deviation, volatility, games, _board in OLD_PLAYERS:
            player = store.get("app-a", pid)
            assert player.rating_in(DEFAULT_POOL) == Rated(rating, deviation, volatility, games)
            assert player.rated == player.rating_in(DEFAULT_POOL)
            assert player.rating_in(BLITZ) == Rated(1500.0, 350.0, 0.06, 0)
        # On the board: those that were, less the provisional (deviation above 110).
        board = store.leaderboard("app-a", 0, 10, pool=DEFAULT_POOL)
        assert [p.id for _rank, p in board] == [OLD_PLAYERS[0][0]]
        assert store.leaderboard("app-a", 0, 10, pool=BLITZ) == []
        assert [e["game_id"] for e in store.history("app-a", OLD_PLAYERS[0][0], 10)] == ["g-old"]
        old_history = store.history("app-a", OLD_PLAYERS[0][0], 10, DEFAULT_POOL)
        assert [e["game_id"] for e in old_history] == ["g-old"]  # a change before pools
        # A migrated rating goes on from where it was.
        first = OLD_PLAYERS[0][0]
        moved = change(first, 31, 1720.0, 94.0, "g-new", DEFAULT_POOL)
        assert store.write_ratings("app-a", "g-new", [moved], pool=DEFAULT_POOL) == 1
        assert store.get("app-a", first).rated == Rated(1720.0, 94.0, 0.06, 32)


@contextlib.contextmanager
def either_store(kind: str, database: str | None, redis_url: str) -> Iterator[object]:
    if kind == "redis":
        client = redis.Redis.from_url(redis_url)
        yield PlayerStore(client)
        return
    assert database is not None
    with records(database) as store:
        yield store


def _one_pool_moves(store: PlayerStore | PlayerRecords, app: str) -> None:
    anna, _ = store.register(app, "anna", "Anna")
    rules = PairRules(board_games=1)
    blitz_change = change(anna.id, 0, 1600.0, 100.0, "g1")
    assert store.write_ratings(app, "g1", [blitz_change], pool=BLITZ, rules=rules) == 1
    player = store.get(app, anna.id)
    assert player.rating_in(BLITZ) == Rated(1600.0, 100.0, 0.06, 1)
    assert player.rated == Rated(1500.0, 350.0, 0.06, 0)  # the default pool stays
    assert [
        p.id
        for _r, p in store.leaderboard(
            app,
            0,
            10,
            pool=BLITZ,
        )
    ] == [anna.id]
    assert store.leaderboard(app, 0, 10) == []  # the default pool's board
    # A provisional rating leaves its board again.
    again = change(anna.id, 1, 1580.0, 111.0, "g2")
    assert store.write_ratings(app, "g2", [again], pool=BLITZ, rules=rules) == 1
    assert store.leaderboard(app, 0, 10, pool=BLITZ) == []
    # The games count read is the pool's: the default pool's 0 is still the one to write.
    default = change(anna.id, 0, 1450.0, 300.0, "g3", DEFAULT_POOL)
    assert store.write_ratings(app, "g3", [default], rules=rules) == 1
    assert store.get(app, anna.id).rating_in(BLITZ) == Rated(1580.0, 111.0, 0.06, 2)
    assert store.get(app, anna.id).rated == Rated(1450.0, 300.0, 0.06, 1)
    # A pool's history: its changes alone, by page and by count.
    assert [e["game_id"] for e in store.history_page(app, anna.id, None, 10, BLITZ)] == [
        "g2",
        "g1",
    ]
    assert [e["game_id"] for e in store.history(app, anna.id, 10, DEFAULT_POOL)] == ["g3"]
    assert [e["game_id"] for e in store.history(app, anna.id, 10)] == ["g3", "g2", "g1"]


def test_a_rating_written_in_one_pool_leaves_the_others_in_the_database(database: str):
    with records(database) as store:
        _one_pool_moves(store, "app-a")


def test_a_rating_written_in_one_pool_leaves_the_others_in_redis(redis_client):
    _one_pool_moves(PlayerStore(redis_client), f"app-{id(redis_client)}")


def test_in_redis_a_rating_an_older_server_kept_is_the_default_pools(redis_client):
    """Redis alone keeps the default pool where the server before pools kept the one
    rating (the record's own fields, the app's ``board``): nothing to move; a provisional
    player that server ranked is on no page."""
    store = PlayerStore(redis_client)
    anna, _ = store.register("app-old", "anna", "Anna")
    tag = "sch:{client:app-old}"
    redis_client.hset(f"{tag}:player:{anna.id}", mapping={
        "rating": "1712.5", "deviation": "95.25", "volatility": "0.0601", "games": "31"})  # fmt: skip
    # Ben was put on the board at five games, as that server did, with a provisional rating.
    ben, _ = store.register("app-old", "ben", "Ben")
    redis_client.hset(f"{tag}:player:{ben.id}", mapping={
        "rating": "1800.0", "deviation": "150.0", "volatility": "0.06", "games": "5"})  # fmt: skip
    redis_client.zadd(f"{tag}:board", {anna.id: 1712.5, ben.id: 1800.0})
    player = store.get("app-old", anna.id)
    assert player.rating_in(DEFAULT_POOL) == Rated(1712.5, 95.25, 0.0601, 31)
    assert player.rating_in(BLITZ).games == 0
    assert store.get("app-old", ben.id).rated == Rated(1800.0, 150.0, 0.06, 5)
    assert [(r, p.id) for r, p in store.leaderboard("app-old", 0, 1)] == [(1, anna.id)]
    assert [p.id for _r, p in store.leaderboard("app-old", 0, 10)] == [anna.id]
    assert store.leaderboard("app-old", 0, 10, pool=BLITZ) == []
