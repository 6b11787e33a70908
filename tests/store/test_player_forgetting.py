"""Both stores of players forget an erased player alike: Redis (a service with no
database) and the database of record (SQLite in a file, PostgreSQL on a real server).

Revoking stops the player's token at once; anonymising its opponents' ratings keeps
every number of their history and names the opponent ``erased``; forgetting deletes
the record, the history and the games list, takes the player off the leaderboard, and
says whether there was a player to forget (a second time: no).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

import pytest

from service.game.players import ERASED_OPPONENT, Rated
from service.store.player_records import PlayerRecords, Players
from service.store.players import PairRules, PlayerStore, RatingChange, UnknownPlayer
from service.store.records_db import open_records_database
from tests.support.postgres import fresh_database

STORES = [
    pytest.param("redis", id="redis", marks=pytest.mark.redis),
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgresql", id="postgresql", marks=pytest.mark.redis),
]
#: One rated game puts a player on the board here: the board's rule is not under test.
ONE_GAME_BOARD = PairRules(board_games=1, board_deviation=350.0)


@pytest.fixture(params=STORES)
def store(request: pytest.FixtureRequest, tmp_path) -> Iterator[Players]:
    if request.param == "redis":
        yield PlayerStore(request.getfixturevalue("redis_client"))
        return
    with contextlib.ExitStack() as stack:
        if request.param == "sqlite":
            url = f"sqlite:///{tmp_path / 'records.sqlite3'}"
        else:
            url = stack.enter_context(fresh_database(request.getfixturevalue("postgres_url")))
        db = open_records_database(url)
        stack.callback(db.close)
        yield PlayerRecords(db)


def rate(store: Players, app: str, game_id: str, winner: str, loser: str) -> None:
    """One rated game between the two players, their changes written."""
    now = int(time.time() * 1000)
    changes = []
    for player, opponent, score, rating in ((winner, loser, 1.0, 1600.0),
                                            (loser, winner, 0.0, 1400.0)):  # fmt: skip
        before = store.get(app, player).rated
        entry = {"game_id": game_id, "at": now, "opponent": opponent, "score": score,
                 "rating_before": before.rating, "rating": rating, "deviation": 300.0,
                 "volatility": 0.06}  # fmt: skip
        changes.append(
            RatingChange(player, before.games, Rated(rating, 300.0, 0.06, before.games + 1), entry)
        )
    store.played(app, [winner, loser], game_id, now)
    assert store.write_ratings(app, game_id, changes, rules=ONE_GAME_BOARD) == 1


def test_an_erased_player_is_forgotten_and_its_opponents_history_keeps_its_numbers(
    store: Players,
):
    app = f"app{time.monotonic_ns()}"
    erased, erased_token = store.register(app, "user-1", "Zelda")
    kept, kept_token = store.register(app, "user-2", "Bruno")
    rate(store, app, "00000000000000a1", erased.id, kept.id)
    rate(store, app, "00000000000000a2", kept.id, erased.id)
    before = store.history(app, kept.id, 10)
    assert {row.id for _rank, row in store.leaderboard(app, 0, 10, rules=ONE_GAME_BOARD)} == {
        erased.id,
        kept.id,
    }

    store.revoke(app, erased.id)
    assert store.identify(erased_token) is None
    assert store.identify(kept_token) is not None
    store.anonymise_ratings(
        app, erased.id, [("00000000000000a1", kept.id), ("00000000000000a2", kept.id)]
    )
    assert store.forget(app, erased.id) is True

    after = store.history(app, kept.id, 10)
    assert [entry["opponent"] for entry in after] == [ERASED_OPPONENT, ERASED_OPPONENT]
    assert [{**entry, "opponent": None} for entry in after] == [
        {**entry, "opponent": None} for entry in before
    ]
    assert store.get(app, kept.id).rated.games == 2
    with pytest.raises(UnknownPlayer):
        store.get(app, erased.id)
    assert store.history(app, erased.id, 10) == []
    assert store.games(app, erased.id, None, 10) == []
    assert [row.id for _rank, row in store.leaderboard(app, 0, 10, rules=ONE_GAME_BOARD)] == [
        kept.id
    ]
    assert store.names(app, [erased.id, kept.id]) == {kept.id: "Bruno"}
    assert store.forget(app, erased.id) is False
    again, _token = store.register(app, "user-1", "Zelda")
    assert again.id != erased.id and again.rated.games == 0
