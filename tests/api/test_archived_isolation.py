"""A client app reads its own games only, wherever they are: Redis, both, the archive.

Client A's listing and export never hold a game of client B or an anonymous
game (created without a key): under any status or export filter, and from
any cursor, a cursor made from B's game ids and creation times included (a
cursor says where a page starts, never whose games it lists). On SQLite and
on PostgreSQL.
"""

from __future__ import annotations

from urllib.parse import quote

import pytest

from service.game.log import Listed
from tests.support.archived_games import Place, PlacedGame, newest_first

#: The places every client's (and the anonymous caller's) games are put in, in turn.
PLACES = [Place.ARCHIVED, Place.GRACE, Place.ENDED, Place.ACTIVE, Place.WAITING, Place.ARCHIVED]
EXPORT_FILTERS = [
    "",
    "&variant=head",
    "&variant=tracked",
    "&status=finished",
    "&max=1",
    "&max=100000",
    f"&since={quote('1970-01-01T00:00:00Z')}",
    f"&until={quote('9999-12-31T23:59:59Z')}",
    f"&since={quote('2000-01-01T00:00:00+14:00')}&until={quote('9999-01-01T00:00:00-12:00')}",
]


@pytest.fixture(scope="module")
def clients(archiving):
    """Clients A and B and the anonymous caller, their games interleaved in every place."""
    a, b = archiving.new_client("A"), archiving.new_client("B")
    games: dict[str, list[PlacedGame]] = {"a": [], "b": [], "anonymous": []}
    for number, place in enumerate(PLACES):
        variant = "tracked" if number % 2 else "head"
        games["b"].append(archiving.place(b, place, variant=variant))
        games["a"].append(archiving.place(a, place, variant=variant))
        games["anonymous"].append(archiving.place(None, place, variant=variant))
    return a, b, games


def strangers(games: dict[str, list[PlacedGame]]) -> set[str]:
    return {game.game_id for game in games["b"] + games["anonymous"]}


@pytest.mark.parametrize("status", ["", "&status=waiting", "&status=active", "&status=finished"])
@pytest.mark.parametrize("limit", [1, 100])
def test_a_client_lists_none_of_another_clients_or_anonymous_games(
    archiving, clients, status, limit
):
    a, b, games = clients
    listed = archiving.every_page(a, f"{status}&limit={limit}")
    wanted = [g for g in games["a"] if not status or g.status == status.split("=")[1]]
    assert listed == newest_first(wanted)
    assert not set(listed) & strangers(games)
    theirs = archiving.every_page(b, f"{status}&limit={limit}")
    assert not set(theirs) & {game.game_id for game in games["a"] + games["anonymous"]}


def crafted_cursors(games: dict[str, list[PlacedGame]]) -> list[Listed]:
    """Cursors a client could make from another's games: their ids at their times, at the
    next ms, and the other's id at the far ends of time."""
    cursors = []
    for game in games["b"]:
        cursors += [
            Listed(game.game_id, game.created_ms),
            Listed(game.game_id, game.created_ms + 1),
            Listed(game.game_id, 10**15),
        ]
    for game in games["anonymous"]:
        cursors.append(Listed(game.game_id, 10**15))
    return cursors


@pytest.mark.parametrize("status", ["", "&status=finished", "&status=active"])
def test_a_cursor_made_from_another_clients_games_pages_only_ones_own(archiving, clients, status):
    a, _, games = clients
    mine = [g for g in games["a"] if not status or g.status == status.split("=")[1]]
    for cursor in crafted_cursors(games):
        query = f"{status}&limit=2&cursor={cursor.encode()}"
        page = archiving.listing(a, query)
        listed = [game["game_id"] for game in page["games"]]
        older = [g for g in mine if (g.created_ms, g.game_id) < (cursor.created_ms, cursor.game_id)]
        assert listed == newest_first(older)[:2], cursor
        assert not set(listed) & strangers(games)
        if page["next_cursor"]:
            rest = archiving.every_page(a, f"{status}&limit=3", cursor=page["next_cursor"])
            assert listed + rest == newest_first(older), cursor


@pytest.mark.parametrize("query", EXPORT_FILTERS)
def test_an_export_holds_none_of_another_clients_or_anonymous_games(archiving, clients, query):
    a, b, games = clients
    exported = [line["game_id"] for line in archiving.export(a, query)]
    assert exported
    assert set(exported) <= {game.game_id for game in games["a"] if game.place.archived}
    assert not set(exported) & strangers(games)
    theirs = [line["game_id"] for line in archiving.export(b, query)]
    assert not set(theirs) & {game.game_id for game in games["a"] + games["anonymous"]}


def test_anonymous_games_are_archived_but_belong_to_no_client(archiving, clients):
    _, _, games = clients
    for game in games["anonymous"]:
        if game.place.archived:
            row = archiving.archive.get(game.game_id)
            assert row is not None and row.client_id is None
