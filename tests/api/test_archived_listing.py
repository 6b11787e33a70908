"""`GET /v1/games?client=me` once games move to the archive: one listing over both places.

A client's games are in Redis while played, in Redis and the archive for
their grace period, then in the archive alone; the listing merges the Redis
index and the archive by the same keyset, so every page, however small,
follows on from the last: every game exactly once, newest first, and the
status filter holds across both places. On SQLite and on PostgreSQL.
"""

from __future__ import annotations

import pytest

from tests.support.archived_games import Place, newest_first

#: Every place, each more than once, interleaved in time: pages cross from one place to
#: another at every size.
PLACES = [
    Place.ARCHIVED,
    Place.WAITING,
    Place.GRACE,
    Place.ARCHIVED,
    Place.ENDED,
    Place.ACTIVE,
    Place.ARCHIVED,
    Place.GRACE,
    Place.ENDED,
    Place.ARCHIVED,
    Place.ACTIVE,
    Place.GRACE,
]


@pytest.fixture(scope="module")
def placed(archiving):
    """One client's games in every place, and a second client's, created in between."""
    mine = archiving.new_client("Listed")
    other = archiving.new_client("Other")
    games, others = [], []
    for number, place in enumerate(PLACES):
        variant = "tracked" if number % 3 == 0 else "head"
        games.append(archiving.place(mine, place, variant=variant))
        if number % 4 == 0:
            others.append(archiving.place(other, place))
    return mine, games, others


@pytest.mark.parametrize("limit", [1, 2, 3, 5, 100])
def test_pages_of_the_listing_give_every_game_once_newest_first_from_redis_and_archive(
    archiving, placed, limit
):
    mine, games, _ = placed
    listed = archiving.every_page(mine, f"&limit={limit}")
    assert listed == newest_first(games)


def test_a_game_in_its_grace_period_is_listed_once_though_both_places_hold_it(archiving, placed):
    mine, games, _ = placed
    grace = [game for game in games if game.place is Place.GRACE]
    assert all(archiving.in_redis(game.game_id) for game in grace)
    assert all(archiving.archive.get(game.game_id) for game in grace)
    listed = archiving.every_page(mine, "&limit=2")
    for game in grace:
        assert listed.count(game.game_id) == 1


@pytest.mark.parametrize("status", ["waiting", "active", "finished"])
@pytest.mark.parametrize("limit", [1, 4, 100])
def test_the_status_filter_holds_across_redis_and_the_archive(archiving, placed, status, limit):
    mine, games, _ = placed
    listed = archiving.every_page(mine, f"&status={status}&limit={limit}")
    assert listed == newest_first([game for game in games if game.status == status])


def test_a_listed_archived_game_reads_as_it_did_from_redis(archiving, placed):
    mine, games, _ = placed
    summaries = {game["game_id"]: game for game in archiving.listing(mine, "&limit=100")["games"]}
    for game in games:
        summary = summaries[game.game_id]
        assert summary["status"] == game.status
        assert summary["variant"] == game.variant
        if game.status == "finished":
            assert summary["ending"] == {"reason": "resigned", "seat": 0}
            assert summary["winner"] == 1
