"""A tournament's games in play over HTTP (``GET /v1/games/live?tournament=<id>``), against
gunicorn and a real RQ worker that pairs the rounds: a Swiss round's games are listed
under their tournament and under no other, each entry names its tournament, the filter
combines with the pool, the rating and the cursor, another app's tournament or an
unknown id is 404, and the listing shows no hidden card while the boards are played
(docs/api.md, "Live games")."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from service.engine import replay
from tests.support.hidden import assert_hides, hidden_cards
from tests.support.http import Api, auth, ok, problem
from tests.support.log import log_events
from tests.support.players import new_app
from tests.support.tournaments import (
    EnteredSwiss,
    TournamentService,
    entered_swiss,
    round_in_play,
    seat_token,
)
from tests.support.tournaments import (
    tournament_service as started_service,
)


@pytest.fixture(scope="module")
def tournament_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TournamentService]:
    with started_service(tmp_path_factory.mktemp("live-tournaments")) as service:
        yield service


def live(api: Api, headers: dict[str, str], query: str) -> dict[str, Any]:
    return ok(api.get(f"/v1/games/live{query}", headers=headers))


def every_page(api: Api, headers: dict[str, str], query: str) -> list[str]:
    """Every game of a listing, page after page by ``next_cursor``."""
    seen: list[str] = []
    cursor = None
    for _page in range(100):
        page = live(api, headers, query + (f"&cursor={cursor}" if cursor else ""))
        seen += [game["game_id"] for game in page["games"]]
        cursor = page["next_cursor"]
        if cursor is None:
            return seen
    raise AssertionError("the listing never ended")


def board_ids(boards: dict[str, Any]) -> set[str]:
    return {board["game_id"] for board in boards["boards"]}


def test_a_swiss_rounds_games_are_listed_under_their_tournament_and_no_other(
    tournament_service,
):
    service = tournament_service
    api = Api.live(service.url)
    first = entered_swiss(service, players=6, rounds=2, name="First Swiss")
    second = entered_swiss(service, players=4, rounds=2, app=first.app, name="Second Swiss")
    app = first.app
    first_boards = board_ids(round_in_play(service, first, 1))
    second_boards = board_ids(round_in_play(service, second, 1))
    assert len(first_boards) == 3 and len(second_boards) == 2

    by_first = live(api, app.headers, f"?tournament={first.tournament_id}")
    assert {g["game_id"] for g in by_first["games"]} == first_boards
    assert by_first["next_cursor"] is None
    assert {g["tournament"] for g in by_first["games"]} == {first.tournament_id}
    assert all(g["pool"] == "head-untimed" and g["rated"] for g in by_first["games"])
    by_second = live(api, app.headers, f"?tournament={second.tournament_id}")
    assert {g["game_id"] for g in by_second["games"]} == second_boards
    assert {g["tournament"] for g in by_second["games"]} == {second.tournament_id}

    # Unfiltered, the app's listing holds both tournaments' games, each naming its own.
    named = {g["game_id"]: g["tournament"] for g in live(api, app.headers, "?limit=50")["games"]}
    assert named == {
        **dict.fromkeys(first_boards, first.tournament_id),
        **dict.fromkeys(second_boards, second.tournament_id),
    }

    # A player of the app reads it too; the filters combine.
    player_token = next(iter(first.tokens.values()))
    as_player = live(api, auth(player_token), f"?tournament={first.tournament_id}")
    assert {g["game_id"] for g in as_player["games"]} == first_boards
    query = f"?tournament={first.tournament_id}"
    assert {
        g["game_id"] for g in live(api, app.headers, query + "&pool=head-untimed")["games"]
    } == (first_boards)
    other_pool = live(api, app.headers, query + "&pool=tracked-blitz")
    assert other_pool == {"games": [], "next_cursor": None}
    assert {g["game_id"] for g in live(api, app.headers, query + "&min_rating=1500")["games"]} == (
        first_boards
    )
    assert live(api, app.headers, query + "&min_rating=1501")["games"] == []  # all new: 1500
    paged = every_page(api, app.headers, query + "&limit=1")
    assert sorted(paged) == sorted(first_boards)  # each once, page by page

    # Another app's tournament does not exist for this one; nor does an unknown id.
    stranger = new_app(service.redis)
    problem(api.get(f"/v1/games/live{query}", headers=stranger.headers), 404,
            "tournament_not_found")  # fmt: skip
    assert live(api, stranger.headers, "")["games"] == []
    problem(api.get("/v1/games/live?tournament=tn_0000000000000000", headers=app.headers), 404,
            "tournament_not_found")  # fmt: skip
    for bad in ("tn_%3Cscript%3E", "x" * 65, ""):
        problem(api.get(f"/v1/games/live?tournament={bad}", headers=app.headers), 422,
                "invalid_request")  # fmt: skip

    # A board that ends leaves its tournament's listing at once.
    ended = sorted(first_boards)[0]
    board = next(b for b in round_in_play(service, first, 1)["boards"] if b["game_id"] == ended)
    token = seat_token(service, first, board["dealer"], ended)
    ok(api.post(f"/v1/games/{ended}/resign", token=token))
    left = {g["game_id"] for g in live(api, app.headers, query)["games"]}
    assert left == first_boards - {ended}


def test_the_tournament_listing_shows_no_hidden_card_while_its_boards_are_played(
    tournament_service,
):
    """Read by the app and by a player, at every move of a board, the filtered listing
    holds no card the spectator may not know, and no token."""
    service = tournament_service
    api = Api.live(service.url)
    swiss: EnteredSwiss = entered_swiss(service, players=2, rounds=1)
    [board] = round_in_play(service, swiss, 1)["boards"]
    game_id = board["game_id"]
    tokens = {
        0: seat_token(service, swiss, board["dealer"], game_id),
        1: seat_token(service, swiss, board["forehand"], game_id),
    }
    readers = (swiss.app.headers, auth(swiss.tokens[board["dealer"]]))
    for _move in range(12):
        state = replay(log_events(service.redis, game_id))
        hidden = hidden_cards(state, None)
        if not hidden:
            break
        for headers in readers:
            answer = api.get(f"/v1/games/live?tournament={swiss.tournament_id}", headers=headers)
            listing = ok(answer)
            assert [g["game_id"] for g in listing["games"]] == [game_id]
            assert_hides(listing, hidden, "the tournament's live listing")
            assert tokens[0] not in answer.text and tokens[1] not in answer.text
        seat = ok(api.get(f"/v1/games/{game_id}"))["to_move"]
        mover = ok(api.get(f"/v1/games/{game_id}", token=tokens[seat]))
        action = mover["deal"]["legal_actions"][0]
        ok(api.post(f"/v1/games/{game_id}/actions", json_body=action, token=tokens[seat]))
