"""The play page and the replay viewer in headless Chromium, against gunicorn and a real worker.

A whole game against the random bot is played by clicking the page's legal
actions; the page must show exactly the API's view at every turn, and the
clicks must be exactly the seat's actions in the game's log. The replay
viewer then steps through that game to the end. Screenshots are kept under
test-artifacts/ui/.
"""

from __future__ import annotations

import json
import random
import re
import time
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
import requests

from tests.support.browser import ARTIFACTS, PageWatch, chromium, chromium_path, screenshot

pytestmark = pytest.mark.timeout(240)

VIEWPORT = {"width": 1280, "height": 860}
RED, BLACK = "rgb(200, 16, 46)", "rgb(17, 17, 17)"


def get(base: str, path: str, token: str | None = None) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    response = requests.get(base + path, headers=headers, timeout=15)
    assert response.status_code == 200, response.text
    return response.json()


def post(base: str, path: str, body: Any, token: str | None = None) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    response = requests.post(base + path, json=body, headers=headers, timeout=15)
    assert response.status_code in (200, 201), response.text
    return response.json()


def cards_in(page, selector: str) -> list[str]:
    return page.eval_on_selector_all(
        f"{selector} [data-card]", "els => els.map(e => e.dataset.card)"
    )


def check_table_shows_the_view(page, view: dict[str, Any]) -> None:
    """What the page shows on our turn is the API's view of seat 0, card for card."""
    deal = view["deal"]
    assert page.get_attribute("body", "data-version") == str(view["version"])
    assert sorted(cards_in(page, "#bottom-hand")) == sorted(deal["hand"])
    shown = page.eval_on_selector_all(
        ".legal[data-action]", "els => els.map(e => JSON.parse(e.dataset.action))"
    )
    key = lambda a: json.dumps(a, sort_keys=True)  # noqa: E731
    assert sorted(map(key, shown)) == sorted(map(key, deal["legal_actions"]))
    assert page.get_attribute("#trump-suit", "data-suit") == deal["trump_suit"]
    backs = page.locator("#top-hand .card.back").count()
    assert backs + len(deal["revealed_cards"][1]) == deal["opponent_hand_size"]
    label = page.inner_text("#talon-label")
    if deal["closed_by"] is not None:
        assert label.startswith("Talon closed")
    elif deal["talon_size"]:
        assert str(deal["talon_size"]) in label
    else:
        assert label == "Talon exhausted"
    trick = cards_in(page, "#trick")
    if deal["current_trick"]:
        assert trick == [deal["current_trick"][0]["card"]]
    elif deal["tricks"]:
        assert trick == [c["card"] for c in deal["tricks"][-1]["cards"]]
    assert "Your turn" in page.inner_text("#turn")


def card_colors(page) -> dict[str, str]:
    pairs = page.eval_on_selector_all(
        "#bottom-hand [data-card]",
        "els => els.map(e => [e.dataset.card, getComputedStyle(e).color])",
    )
    return dict(pairs)


def test_play_a_whole_game_against_the_random_bot_then_replay_it(live_server, worker):
    base = live_server.url
    choose = random.Random(2024)
    with chromium() as browser:
        page = browser.new_context(viewport=VIEWPORT).new_page()
        page.set_default_timeout(30_000)
        watch = PageWatch(page)
        page.goto(f"{base}/play/")
        assert page.get_attribute("body", "data-state") == "setup"
        # The opponents offered are the server's levels (GET /v1/bot/levels), then a person.
        levels = [level["name"] for level in requests.get(f"{base}/v1/bot/levels").json()["levels"]]
        page.wait_for_selector(f"#level option[value='{levels[-1]}'][title]", state="attached")
        offered = page.eval_on_selector_all("#level option", "els => els.map(e => e.value)")
        assert offered == [*levels, "human"]
        screenshot(page, "play-01-setup")
        page.select_option("#level", "random")
        page.click("#start")
        page.wait_for_url("**/play/?game=*")
        game_id = parse_qs(urlparse(page.url).query)["game"][0]
        token = page.evaluate(f"sessionStorage.getItem('schnapsen:token:{game_id}')")
        assert token, "the seat token is kept in sessionStorage"

        clicked: list[dict[str, Any]] = []
        colors: dict[str, str] = {}
        banner_shot = False
        deadline = time.monotonic() + 150
        while True:
            page.wait_for_selector("body[data-state=your-turn], body[data-state=finished]")
            if page.get_attribute("body", "data-state") == "finished":
                break
            assert time.monotonic() < deadline, f"the game did not end ({len(clicked)} clicks)"
            view = get(base, f"/v1/games/{game_id}", token)
            check_table_shows_the_view(page, view)
            colors.update(card_colors(page))
            if len(clicked) in (0, 7):
                screenshot(page, f"play-02-turn-{len(clicked) + 1:02d}")
            if not banner_shot and page.is_visible("#banner"):
                screenshot(page, "play-03-deal-result")
                banner_shot = True
            if len(clicked) == 5:  # a reload resumes the game from the tab's sessionStorage
                page.reload()
                page.wait_for_selector("body[data-state=your-turn]")
                assert page.url.endswith(f"/play/?game={game_id}")
                check_table_shows_the_view(page, view)
                assert page.locator("#log li").count() >= 5  # the moves so far, from the feed
            options = page.query_selector_all(".legal[data-action]")
            choice = choose.choice(options)
            clicked.append(json.loads(choice.get_attribute("data-action")))
            choice.click()
            assert page.get_attribute("body", "data-state") in (
                "busy",
                "waiting",
                "your-turn",
                "finished",
            )

        screenshot(page, "play-04-game-over")
        view = get(base, f"/v1/games/{game_id}", token)
        assert view["status"] == "finished"
        headline = page.inner_text("#end-headline")
        assert headline == (
            "You won the game!" if view["winner"] == 0 else "Bot (random) won the game"
        )
        assert "Game over" in page.inner_text("#turn")
        for seat in (0, 1):
            assert page.inner_text(f'#scores .gp[data-seat="{seat}"]') == str(
                view["game_points"][seat]
            )
        assert page.locator("#deals tr").count() == len(view["deals"])
        assert page.get_attribute("#replay-link", "href") == f"/replay/?game={game_id}"

        # the clicks are exactly seat 0's actions in the log
        replay = get(base, f"/v1/games/{game_id}/replay", token)
        acted = [
            e["action"] for e in replay["events"] if e["type"] == "action_taken" and e["seat"] == 0
        ]
        assert acted == clicked
        # suits are coloured: hearts and diamonds red, clubs and spades black
        assert {colors[c] for c in colors if c[1] in "HD"} == {RED}
        assert {colors[c] for c in colors if c[1] in "CS"} == {BLACK}

        # -- the replay of that game, in the same tab (the token is in sessionStorage) --
        page.click("#replay-link")
        page.wait_for_selector("body[data-state=ready]")
        assert page.get_attribute("body", "data-inconsistent") is None
        check_replay_steps(page, replay, viewer=0, shots="replay")
        assert watch.errors == []


def check_replay_steps(page, replay: dict[str, Any], viewer: int | None, shots: str | None):
    """Step with 'next' to the end: the page shows each deal's hands, every trick, every result."""
    first = replay["deals"][0]
    deck, dealer = first["deck"], first["dealer"]
    hands = {1 - dealer: deck[0:5], dealer: deck[5:10]}
    bottom = 0 if viewer is None else viewer
    assert page.get_attribute("body", "data-kind") == "deal"
    assert sorted(cards_in(page, "#bottom-hand")) == sorted(hands[bottom])
    assert sorted(cards_in(page, "#top-hand")) == sorted(hands[1 - bottom])
    assert page.is_disabled("#prev")
    if shots:
        screenshot(page, f"{shots}-01-first-deal")

    tricks, kinds = [], []
    while True:
        kind = page.get_attribute("body", "data-kind")
        kinds.append(kind)
        if kind == "trick":
            tricks.append(cards_in(page, "#trick"))
            assert page.locator("#trick .played.winner").count() == 1
        if shots and len(kinds) == 4:
            screenshot(page, f"{shots}-02-trick")
        if shots and kind == "result" and kinds.count("result") == 1:
            screenshot(page, f"{shots}-03-deal-result")
            assert re.search(r"wins? deal 1: \d game points?", page.inner_text("#banner"))
        if page.is_disabled("#next"):
            break
        page.click("#next")
        assert page.get_attribute("body", "data-step") == str(len(kinds))
    if shots:
        screenshot(page, f"{shots}-04-game-over")

    expected = [[c["card"] for c in e["trick"]["cards"]] for e in replay["events"] if "trick" in e]
    assert tricks == expected
    assert kinds.count("deal") == kinds.count("result") == len(replay["deals"])
    assert kinds[-1] == "game"
    winner = replay["state"]["winner"]
    names = {0: "You" if viewer == 0 else "Player 1", 1: "Bot (random)"}
    assert page.inner_text("#end-headline").startswith(names[winner])
    assert "Game over" in page.inner_text("#where")

    # the keyboard: arrows step, Home and End jump
    last = len(kinds) - 1
    page.keyboard.press("ArrowLeft")
    assert page.get_attribute("body", "data-step") == str(last - 1)
    page.keyboard.press("Home")
    assert page.get_attribute("body", "data-step") == "0"
    page.keyboard.press("ArrowRight")
    assert page.get_attribute("body", "data-step") == "1"
    page.keyboard.press("End")
    assert page.get_attribute("body", "data-step") == str(last)


def human_game(base: str, moves: int | None = None) -> tuple[str, dict[int, str]]:
    """A game between two people played over the API (first legal action), no worker needed."""
    created = post(base, "/v1/games", {"opponent": {"type": "human"}, "seed": 99})
    joined = post(base, f"/v1/games/{created['game_id']}/join", {"invite": created["invite"]})
    game_id, tokens = created["game_id"], {0: created["token"], 1: joined["token"]}
    played = 0
    while moves is None or played < moves:
        view = get(base, f"/v1/games/{game_id}", tokens[0])
        if view["status"] == "finished":
            break
        seat = view["to_move"]
        seen = get(base, f"/v1/games/{game_id}", tokens[seat])
        post(base, f"/v1/games/{game_id}/actions", seen["deal"]["legal_actions"][0], tokens[seat])
        played += 1
    return game_id, tokens


def test_replay_page_shows_what_its_viewer_may_see(live_server):
    base = live_server.url
    finished, _ = human_game(base)
    running, running_tokens = human_game(base, moves=3)
    with chromium() as browser:
        # a spectator of a finished game: every card
        page = browser.new_context(viewport=VIEWPORT).new_page()
        page.set_default_timeout(30_000)
        watch = PageWatch(page)
        page.goto(f"{base}/replay/?game={finished}")
        page.wait_for_selector("body[data-state=ready]")
        assert page.get_attribute("body", "data-inconsistent") is None
        assert "every deal's cards are shown" in page.inner_text("#visibility")
        assert page.locator("#bottom-hand [data-card]").count() == 5
        assert page.locator("#top-hand [data-card]").count() == 5
        page.keyboard.press("End")
        assert page.get_attribute("body", "data-kind") == "game"

        # a spectator of a running game: card backs only
        page.goto(f"{base}/replay/?game={running}")
        page.wait_for_selector("body[data-state=ready]")
        assert "spectator" in page.inner_text("#visibility")
        assert cards_in(page, ".hand") == []
        assert page.locator("#bottom-hand .card.back").count() == 5
        assert page.locator("#top-hand .card.back").count() == 5
        screenshot(page, "replay-05-spectator-running")

        # seat 1 of the running game (its token in this tab): its own cards, the other's backs
        page.evaluate(
            "([id, token]) => sessionStorage.setItem(`schnapsen:token:${id}`, token)",
            [running, running_tokens[1]],
        )
        page.reload()
        page.wait_for_selector("body[data-state=ready]")
        assert page.get_attribute("body", "data-inconsistent") is None
        events = get(base, f"/v1/games/{running}/replay", running_tokens[1])["events"]
        own = next(e["hand"] for e in events if e["type"] == "deal_started")
        assert sorted(cards_in(page, "#bottom-hand")) == sorted(own)
        assert page.locator("#top-hand .card.back").count() == 5
        page.keyboard.press("End")
        final = get(base, f"/v1/games/{running}", running_tokens[1])
        assert sorted(cards_in(page, "#bottom-hand")) == sorted(final["deal"]["hand"])
        screenshot(page, "replay-06-seat-running")

        # no such game: the problem is shown
        page.goto(f"{base}/replay/?game=no-such-game")
        page.wait_for_selector("body[data-state=error]")
        assert "404" in page.inner_text("#problem")
        assert [e for e in watch.errors if "404" not in e] == []


def test_play_page_shows_the_problem_when_the_server_refuses(live_server):
    with chromium() as browser:
        page = browser.new_context(viewport=VIEWPORT).new_page()
        page.set_default_timeout(30_000)
        page.goto(f"{live_server.url}/play/?level=grandmaster")
        assert page.input_value("#level") == "grandmaster"
        page.click("#start")
        page.wait_for_selector("#problem:not([hidden])")
        problem = page.inner_text("#problem")
        assert "unknown_bot_level" in problem and "grandmaster" in problem
        # the levels the server named replace the guessed ones
        levels = page.eval_on_selector_all("#level option", "els => els.map(e => e.value)")
        assert "random" in levels and "grandmaster" not in levels
        assert page.get_attribute("body", "data-state") == "setup"
        assert page.is_hidden("#table")
        screenshot(page, "play-05-refused")


def test_without_chromium_the_ui_tests_fail_rather_than_skip():
    with pytest.raises(pytest.fail.Exception, match="apt-get install -y chromium"):
        chromium_path("/nonexistent/chromium")
    assert ARTIFACTS.name == "ui" and ARTIFACTS.parent.name == "test-artifacts"
