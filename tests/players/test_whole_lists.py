"""With a database, a player's games are listed whole, a page at a time by keyset, over
HTTP against a live gunicorn: past the 500 Redis kept, none repeated or skipped (ties at a page's
edge: tests/store/test_player_records.py); a cursor the service did not hand out is
400 ``invalid_cursor`` on both of a player's lists, and a cursor with the older way of
paging (``before``, ``offset``) reads a page."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from service.store.players import GAMES_CAP
from tests.support.http import auth
from tests.support.players import new_app, register_over_http
from tests.support.servers import LiveServer

#: More games than Redis listed.
GAMES = GAMES_CAP + 30


@pytest.fixture(scope="module")
def with_database(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A live server whose records live in a SQLite database."""
    database = tmp_path_factory.mktemp("records") / "records.sqlite3"
    server = LiveServer(
        redis_url, workers=1, env={"SCHNAPSEN_ARCHIVE_URL": f"sqlite:///{database}"}
    )
    try:
        yield server.url
    finally:
        server.stop()


def test_a_players_games_are_listed_whole_page_by_page(with_database: str, redis_client):
    url = with_database
    player = register_over_http(url, new_app(redis_client).headers, "Many")
    headers = auth(player["token"])

    def create(_: int) -> str:
        answer = requests.post(f"{url}/v1/games", json={}, headers=headers, timeout=30)
        assert answer.status_code == 201, answer.text
        return answer.json()["game_id"]

    with ThreadPoolExecutor(4) as pool:
        created = set(pool.map(create, range(GAMES)))
    listed: list[dict] = []
    cursor = None
    while True:
        params = {"limit": 200, **({"cursor": cursor} if cursor else {})}
        answer = requests.get(
            f"{url}/v1/players/me/games", params=params, headers=headers, timeout=30
        )
        assert answer.status_code == 200, answer.text
        page = answer.json()
        listed += page["games"]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert len(listed) == len(created) == GAMES
    assert {game["game_id"] for game in listed} == created
    keys = [(game["started"], game["game_id"]) for game in listed]
    assert keys == sorted(keys, reverse=True)


def test_a_made_up_cursor_is_refused_on_both_of_a_players_lists(with_database: str, redis_client):
    url = with_database
    player = register_over_http(url, new_app(redis_client).headers, "Cursor")
    headers = auth(player["token"])
    for path in ("/v1/players/me/games", f"/v1/players/{player['player']['player_id']}/ratings"):
        answer = requests.get(f"{url}{path}", params={"cursor": "not*a*cursor"}, headers=headers,
                              timeout=30)  # fmt: skip
        assert answer.status_code == 400, answer.text
        assert answer.headers["Content-Type"] == "application/problem+json"
        assert answer.json()["code"] == "invalid_cursor"
    # a cursor beside the older way of paging reads a page: the two count together
    first = requests.get(f"{url}/v1/players/me/games", headers=headers, timeout=30).json()
    assert first["next_cursor"] is None
    cursor = "MTAwMDpnMA"  # 1000:g0
    for path, older in (("/v1/players/me/games", "before"),
                        (f"/v1/players/{player['player']['player_id']}/ratings", "offset")):  # fmt: skip
        answer = requests.get(f"{url}{path}", params={"cursor": cursor, older: 5}, headers=headers,
                              timeout=30)  # fmt: skip
        assert answer.status_code == 200, answer.text
