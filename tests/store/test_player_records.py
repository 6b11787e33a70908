"""Players in the database of record, the same promises on both back ends: SQLite in a
file, PostgreSQL on a real server (a database of its own per test).

A registration is one player per app id, with one working token, within the
app's cap even when raced; a rated game's ratings are written once however
many writers race, and a rating that moved meanwhile is read again; nothing
is capped: a player's history and games are kept whole, its rating changes
listed in the order they were written even when their times tie (in Redis too);
only a token's hash is stored.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import secrets
import sqlite3
import threading
from collections.abc import Callable, Iterator
from typing import TypeVar

import psycopg
import pytest
import redis

from service.game.log import Listed
from service.game.players import Rated
from service.store.player_records import PlayerRecords
from service.store.players import (
    HISTORY_CAP,
    PairRules,
    PlayersFull,
    PlayerStore,
    RatingChange,
    UnknownPlayer,
)
from service.store.records_db import open_records_database
from tests.support.postgres import records_database

T = TypeVar("T")
BACK_ENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgresql", id="postgresql", marks=pytest.mark.redis),
]
#: Processes (here threads, each with its own connections) racing for one thing.
RACERS = 8


@pytest.fixture(params=BACK_ENDS)
def database(request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:
    with records_database(
        request.param, lambda: request.getfixturevalue("postgres_url"), tmp_path
    ) as url:
        yield url


@contextlib.contextmanager
def players(database: str, cap: int = 1_000_000) -> Iterator[PlayerRecords]:
    """The players as one process of the service sees them: its own connections."""
    db = open_records_database(database)
    try:
        yield PlayerRecords(db, players_per_client=cap)
    finally:
        db.close()


def race(database: str, act: Callable[[PlayerRecords], T], cap: int = 1_000_000) -> list[T]:
    """``act`` by RACERS processes at once, each on its own connections."""
    results: list[T] = []
    errors: list[BaseException] = []
    start = threading.Barrier(RACERS)

    def one() -> None:
        with players(database, cap) as store:
            start.wait()
            try:
                results.append(act(store))
            except BaseException as error:  # noqa: BLE001 (reported below)
                errors.append(error)

    threads = [threading.Thread(target=one) for _ in range(RACERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(isinstance(error, PlayersFull) for error in errors), errors
    return results


def change(player_id: str, games_before: int, rating: float, game_id: str) -> RatingChange:
    rated = Rated(rating, 300.0, 0.06, games_before + 1)
    entry = {"game_id": game_id, "at": 1_700_000_000_000 + games_before, "rating": rating}
    return RatingChange(player_id, games_before, rated, entry)


def test_a_registration_again_renames_the_player_and_only_the_new_token_works(database: str):
    with players(database) as store:
        first, old = store.register("app-a", "u1", "Anna")
        again, new = store.register("app-a", "u1", "Anna B")
        assert again.id == first.id and again.name == "Anna B"
        assert store.identify(old) is None
        found = store.identify(new)
        assert found is not None and found.id == first.id and found.app == "app-a"
        assert store.identify(new + "x") is None
        with pytest.raises(UnknownPlayer):
            store.get("app-b", first.id)  # another app's player does not exist there
        assert store.names("app-a", [first.id, "pl_none"]) == {first.id: "Anna B"}


def test_racing_registrations_of_one_app_id_make_one_player(database: str):
    made = race(database, lambda store: store.register("app-a", "same", "Same"))
    assert len({player.id for player, _ in made}) == 1
    with players(database) as store:
        working = [token for _, token in made if store.identify(token) is not None]
    assert len(working) == 1


def test_racing_registrations_stay_within_the_apps_cap(database: str):
    counter = iter(range(RACERS))
    lock = threading.Lock()

    def register(store: PlayerRecords) -> object:
        with lock:
            n = next(counter)
        return store.register("app-a", f"u{n}", f"P{n}")

    made = race(database, register, cap=3)
    assert len(made) == 3


def test_a_games_ratings_are_written_once_however_many_writers_race(database: str):
    with players(database) as store:
        a, _ = store.register("app-a", "a", "A")
        b, _ = store.register("app-a", "b", "B")
    changes = [change(a.id, 0, 1600.0, "g1"), change(b.id, 0, 1400.0, "g1")]
    written = race(database, lambda store: store.write_ratings("app-a", "g1", changes))
    assert sorted(written) == [0] * (RACERS - 1) + [1]
    with players(database) as store:
        assert store.rated("app-a", "g1") and not store.rated("app-a", "g2")
        assert store.get("app-a", a.id).rated.games == 1
        assert store.get("app-a", a.id).rated.rating == 1600.0
        assert [entry["game_id"] for entry in store.history("app-a", a.id, 10)] == ["g1"]
        assert store.leaderboard("app-a", 0, 10) == []  # fewer rated games than the board asks


def test_a_rating_that_moved_since_it_was_read_is_not_written(database: str):
    with players(database) as store:
        a, _ = store.register("app-a", "a", "A")
        assert store.write_ratings("app-a", "g1", [change(a.id, 0, 1550.0, "g1")]) == 1
        # g2's rating was computed from the rating before g1: read again
        assert store.write_ratings("app-a", "g2", [change(a.id, 0, 1450.0, "g2")]) == -1
        assert not store.rated("app-a", "g2")
        assert store.get("app-a", a.id).rated.rating == 1550.0


def test_a_players_history_and_games_are_kept_whole(database: str):
    games = HISTORY_CAP + 25
    with players(database) as store:
        a, _ = store.register("app-a", "a", "A")
        for n in range(games):
            game_id = f"g{n:04d}"
            assert store.write_ratings("app-a", game_id, [change(a.id, n, 1500.0 + n, game_id)])
            store.played("app-a", [a.id], game_id, 1_000 + n)
        store.played("app-a", [a.id], "g0000", 99_999)  # listed once: the first start stays
        history = store.history("app-a", a.id, games + 10)
        assert [entry["game_id"] for entry in history] == [
            f"g{n:04d}" for n in reversed(range(games))
        ]
        listed = store.games("app-a", a.id, None, games + 10)
        assert listed == [f"g{n:04d}" for n in reversed(range(games))]
        assert store.games("app-a", a.id, 1_003, 2) == ["g0002", "g0001"]
        assert store.started("app-a", a.id, ["g0000", "g0007"]) == {"g0000": 1_000, "g0007": 1_007}


def test_the_database_holds_a_token_only_as_its_hash(database: str):
    with players(database) as store:
        _, token = store.register("app-a", "a", "A")
    if database.startswith("sqlite:///"):
        with contextlib.closing(sqlite3.connect(database.removeprefix("sqlite:///"))) as db:
            rows = db.execute("SELECT * FROM players").fetchall()
    else:
        with psycopg.connect(database) as db:
            rows = db.execute("SELECT * FROM players").fetchall()
    values = [str(value) for row in rows for value in row]
    assert not any(token in value for value in values)
    assert hashlib.sha256(token.encode()).hexdigest() in values


def test_pages_by_keyset_neither_repeat_nor_skip_at_a_page_edge(database: str):
    with players(database) as store:
        a, _ = store.register("app-a", "a", "A")
        for n in range(7):
            store.played("app-a", [a.id], f"g{n}", 5_000 if n < 4 else 6_000)  # ties
            assert store.write_ratings("app-a", f"g{n}", [change(a.id, n, 1500.0, f"g{n}")])
        games, after = [], None
        while page := store.games_page("app-a", a.id, after, 2):
            games += page
            after = page[-1]
        assert [g.game_id for g in games] == ["g6", "g5", "g4", "g3", "g2", "g1", "g0"]
        history, edge = [], None
        while entries := store.history_page("app-a", a.id, edge, 3):
            history += entries
            edge = Listed(str(entries[-1]["game_id"]), int(entries[-1]["at"]))
        assert [entry["game_id"] for entry in history] == [f"g{n}" for n in reversed(range(7))]


def test_a_pairs_games_past_its_count_in_the_window_are_marked_and_change_nothing(
    database: str,
):
    rules = PairRules(games=2, window_seconds=3600, board_games=2)
    with players(database) as store:
        a, _ = store.register("app-a", "a", "A")
        b, _ = store.register("app-a", "b", "B")
        c, _ = store.register("app-a", "c", "C")

        def rate(game_id: str, x, y) -> int:
            gx, gy = (store.get("app-a", p.id).rated.games for p in (x, y))
            changes = [change(x.id, gx, 1510.0 + gx, game_id), change(y.id, gy, 1490.0, game_id)]
            return store.write_ratings("app-a", game_id, changes, pair=(y.id, x.id), rules=rules)

        assert rate("g1", a, b) == 1
        assert [player.id for _, player in store.leaderboard("app-a", 0, 10)] == []
        assert rate("g2", b, a) == 1  # the pair's ids in either order are one pair
        assert rate("g3", a, b) == 2  # past the pair's count: only the mark
        assert store.rated("app-a", "g3") and rate("g3", a, b) == 0
        assert store.get("app-a", a.id).rated.games == 2
        assert [entry["game_id"] for entry in store.history("app-a", a.id, 10)] == ["g2", "g1"]
        assert rate("g4", a, c) == 1  # another pair counts on its own
        board = [player.id for _, player in store.leaderboard("app-a", 0, 10)]
        assert board == [a.id, b.id]  # two rated games each; c has one


def rated_at_tied_times(store: PlayerRecords | PlayerStore, app: str) -> None:
    """Five rated games of one player: three rated within one millisecond, one by a
    worker whose clock stands 40 ms behind, then one more in that millisecond. The
    history lists them newest first in the order they were written, by either read
    and page by page, each at a time of its own, the newest one the player's rating."""
    at = 1_700_000_000_000
    written = [("g9", at), ("g5", at), ("g7", at), ("g1", at - 40), ("g3", at)]
    a, _ = store.register(app, "a", "A")
    for games_before, (game_id, when) in enumerate(written):
        before, rating = 1500.0 + games_before, 1501.0 + games_before
        entry = {"game_id": game_id, "at": when, "rating_before": before, "rating": rating}
        rated = Rated(rating, 300.0, 0.06, games_before + 1)
        assert store.write_ratings(app, game_id, [RatingChange(a.id, games_before, rated, entry)])
    history = store.history(app, a.id, 10)
    assert [entry["game_id"] for entry in history] == [g for g, _ in reversed(written)]
    assert history[0]["rating"] == store.get(app, a.id).rated.rating
    paged: list[dict[str, object]] = []
    edge = None
    while entries := store.history_page(app, a.id, edge, 2):
        paged += entries
        edge = Listed(str(entries[-1]["game_id"]), int(entries[-1]["at"]))  # type: ignore[call-overload]
    assert paged == history
    times = [int(entry["at"]) for entry in history]  # type: ignore[call-overload]
    assert times == sorted(set(times), reverse=True)  # distinct: a cursor names one change


def test_a_players_rating_changes_are_listed_in_the_order_they_were_written_when_times_tie(
    database: str,
):
    with players(database) as store:
        rated_at_tied_times(store, "app-a")


def test_in_redis_too_rating_changes_are_listed_in_the_order_they_were_written(
    redis_client: redis.Redis,
):
    """A server with no database keeps its players in Redis: the same order there."""
    rated_at_tied_times(PlayerStore(redis_client), f"app-{secrets.token_hex(4)}")


def test_in_redis_a_history_an_older_server_wrote_with_tied_times_pages_whole(
    redis_client: redis.Redis,
):
    """Before each change was written after its player's newest one, Redis kept changes
    of one millisecond in the order they were written: its pages still list each once."""
    store, app = PlayerStore(redis_client), f"app-{secrets.token_hex(4)}"
    a, _ = store.register(app, "a", "A")
    at = 1_700_000_000_000
    for n, game_id in enumerate(("g9", "g5", "g7", "g1", "g3")):  # as the script pushed them
        entry = {"game_id": game_id, "at": at - 40 * (game_id == "g1"), "rating": 1501.0 + n}
        redis_client.lpush(f"sch:{{client:{app}}}:ratings:{a.id}", json.dumps(entry))
    history = store.history(app, a.id, 10)
    paged: list[dict[str, object]] = []
    edge = None
    while entries := store.history_page(app, a.id, edge, 2):
        paged += entries
        edge = Listed(str(entries[-1]["game_id"]), int(entries[-1]["at"]))  # type: ignore[call-overload]
    assert [entry["game_id"] for entry in paged] == ["g3", "g1", "g7", "g5", "g9"]
    assert paged == history
