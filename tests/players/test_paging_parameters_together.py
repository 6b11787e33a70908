"""A player's two lists take their paging parameters in any combination the spec allows.

OpenAPI describes a listing's parameters one by one, none in terms of another, so
each combination the document admits reads a page: on the rating history an `offset`
counts from where the page starts (the newest change, or the one after a cursor's);
on the games list a `cursor` and `before` both bound the page (it starts after
whichever comes later in the list). Against a live gunicorn, its games rated by a
real worker.
"""

from __future__ import annotations

from typing import Any

import requests

from tests.support.players import bearer, new_app, register_over_http
from tests.support.waiting import wait_until

#: Rated games the player resigns, each one rating change.
GAMES = 5


def _get(url: str, path: str, headers: dict[str, str], **params: Any) -> dict[str, Any]:
    answer = requests.get(f"{url}{path}", params=params, headers=headers, timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()


def _resigned_rated_games(url: str, token: str) -> None:
    for _ in range(GAMES):
        created = requests.post(
            f"{url}/v1/games",
            json={"rated": True, "opponent": {"type": "bot", "level": "random"}},
            headers=bearer(token),
            timeout=30,
        )
        assert created.status_code == 201, created.text
        game = created.json()
        resigned = requests.post(
            f"{url}/v1/games/{game['game_id']}/resign", headers=bearer(game["token"]), timeout=30
        )
        assert resigned.status_code == 200, resigned.text


def test_an_offset_beside_a_cursor_skips_from_the_cursors_place_and_before_bounds_it_too(
    live_server, worker, redis_client
):
    url = live_server.url
    app = new_app(redis_client)
    player = register_over_http(url, app.headers, "Pages")
    token, player_id = player["token"], player["player"]["player_id"]
    _resigned_rated_games(url, token)
    ratings = f"/v1/players/{player_id}/ratings"
    every = wait_until(
        lambda: (
            (found := _get(url, ratings, app.headers, limit=200)["changes"])
            and len(found) == GAMES
            and found
        ),
        120,
        "the rated games' rating changes",
    )
    first = _get(url, ratings, app.headers, limit=2)
    assert first["changes"] == every[:2] and first["next_cursor"]
    skipped = _get(url, ratings, app.headers, cursor=first["next_cursor"], offset=1, limit=2)
    assert skipped["changes"] == every[3:5]
    assert skipped["next_cursor"] is None
    assert (
        _get(url, ratings, app.headers, cursor=first["next_cursor"], offset=0, limit=2)["changes"]
        == every[2:4]
    )

    games_path, player_headers = "/v1/players/me/games", bearer(token)
    games = _get(url, games_path, player_headers, limit=200)["games"]
    assert len(games) == GAMES
    page = _get(url, games_path, player_headers, limit=2)
    cursor = page["next_cursor"]
    assert page["games"] == games[:2] and cursor
    for before in (games[3]["started"], games[0]["started"] + 1, 0):
        # Both bound the page: after the cursor's game, and started before `before`.
        both = _get(url, games_path, player_headers, cursor=cursor, before=before, limit=200)
        assert both["games"] == [g for g in games[2:] if g["started"] < before], before
