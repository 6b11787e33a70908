"""The games in play (/live/) and the live board (/watch/) on a phone, in Debian's Chromium,
against gunicorn.

A game between two people of an app is in play: the list shows it (and features it)
once the app's key is typed in; a tap opens its live board, which shows what a
spectator may see (no hidden card) and follows the game's stream: a move made over
HTTP appears on the board. When the game ends the board says so and the list drops
it. At each step the page does not scroll sideways and every control is at least
44 px each way. Screenshots go to test-artifacts/ui/live-390x844-*.png.
"""

from __future__ import annotations

from typing import Any

import pytest
import requests

from service.engine import replay
from tests.support.browser import PageWatch, check_layout, phone_page, screenshot
from tests.support.hidden import hidden_cards
from tests.support.log import log_events
from tests.support.players import new_app
from tests.support.waiting import wait_until

pytestmark = pytest.mark.timeout(240)


def call(method: str, url: str, token: str | None = None, **kwargs: Any) -> Any:
    headers = dict(kwargs.pop("headers", {}))
    if token:
        headers["Authorization"] = f"Bearer {token}"
    answer = requests.request(method, url, headers=headers, timeout=15, **kwargs)
    assert answer.status_code in (200, 201), answer.text
    return answer.json()


def cards_on(page, selector: str) -> list[str]:
    return page.eval_on_selector_all(
        f"{selector} [data-card]", "els => els.map(e => e.dataset.card)"
    )


def test_a_game_in_play_is_listed_and_its_live_board_follows_each_move(live_server, redis_client):
    base = live_server.url
    app = new_app(redis_client)
    game = call("POST", f"{base}/v1/games", json={}, headers=app.headers)
    game_id = game["game_id"]
    joined = call("POST", f"{base}/v1/games/{game_id}/join", json={"invite": game["invite"]})
    tokens = {0: game["token"], 1: joined["token"]}

    with phone_page() as page:
        watch = PageWatch(page)

        # The list: the key typed in once, the game listed and featured.
        page.goto(f"{base}/live/")
        page.fill("#live-key", app.key)
        page.tap("#live-show")
        page.wait_for_selector(f'#live-list li[data-game="{game_id}"] a')
        page.wait_for_selector("#featured-link")
        assert page.get_attribute("#featured-link", "href") == f"/watch/?game={game_id}"
        check_layout(page, "the list of games in play")
        screenshot(page, "live-390x844-01-list")

        # The board: a spectator's view of the game at its version.
        page.tap(f'#live-list li[data-game="{game_id}"] a')
        page.wait_for_url(f"**/watch/?game={game_id}")
        version = call("GET", f"{base}/v1/games/{game_id}")["version"]
        page.wait_for_selector(f'body[data-version="{version}"]')
        assert page.locator("#bottom-hand .card.back").count() == 5
        assert page.locator("#top-hand .card.back").count() == 5
        check_layout(page, "the live board")
        screenshot(page, "live-390x844-02-board")

        # A move made over HTTP appears on the board: the card led is on the table.
        for _move in range(3):
            spectator = call("GET", f"{base}/v1/games/{game_id}")
            seat = spectator["to_move"]
            mover = call("GET", f"{base}/v1/games/{game_id}", tokens[seat])
            action = next(a for a in mover["deal"]["legal_actions"] if a["type"] == "play")
            after = call("POST", f"{base}/v1/games/{game_id}/actions", tokens[seat], json=action)
            page.wait_for_selector(f'body[data-version="{after["version"]}"]')
            assert action["card"] in cards_on(page, "#trick")
            state = replay(log_events(redis_client, game_id))
            hidden = hidden_cards(state, None)
            shown = set(cards_on(page, "body"))
            assert not shown & hidden, f"the board shows hidden cards {sorted(shown & hidden)}"
        check_layout(page, "the live board after three moves")
        screenshot(page, "live-390x844-03-moved")
        assert watch.errors == []

        # The end: the board says who won, and the list drops the game.
        call("POST", f"{base}/v1/games/{game_id}/resign", tokens[1])
        page.wait_for_selector('body[data-state="finished"]')
        assert "won the game" in page.inner_text("#watch-turn")
        screenshot(page, "live-390x844-04-over")
        page.goto(f"{base}/live/")  # the key is kept in the tab
        page.wait_for_selector('body[data-state="listed"]')
        wait_until(
            lambda: page.locator(f'#live-list li[data-game="{game_id}"]').count() == 0,
            30,
            "the list to drop the finished game",
        )
        assert page.is_visible("#live-empty")
        check_layout(page, "the empty list")


def test_a_wrong_key_shows_the_problem_and_the_right_key_then_lists_the_games(
    live_server, redis_client
):
    base = live_server.url
    app = new_app(redis_client)
    game = call("POST", f"{base}/v1/games", json={"opponent": {"type": "bot", "level": "random"}},
                headers=app.headers)  # fmt: skip

    with phone_page() as page:
        page.goto(f"{base}/live/")
        page.fill("#live-key", "not-a-key-of-any-app")
        page.tap("#live-show")
        page.wait_for_selector("#problem:not([hidden])")
        assert "401" in page.inner_text("#problem")
        check_layout(page, "the list refused")

        # The right key takes over: the problem goes, the game is listed.
        page.fill("#live-key", app.key)
        page.tap("#live-show")
        page.wait_for_selector(f'#live-list li[data-game="{game["game_id"]}"] a')
        page.wait_for_selector("#problem", state="hidden")
