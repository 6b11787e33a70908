"""The pages on a phone (390x844, 360x740) and a desktop (1280x800), in Debian's Chromium.

At each size, by tapping only: a whole game against the random bot, its
analysis in the replay viewer (with the progress bar while the job runs),
and a game between two people where the second joins through the join page
in a second browser context, played to the end. At every turn the page
must not scroll sideways (``scrollWidth <= innerWidth``), every card on the
table must be the element at its own centre (nothing on top of it), and
every visible control must be at least 44 px in both directions.
Screenshots of each size go to test-artifacts/ui/.
"""

from __future__ import annotations

import random
import time
from typing import Any

import pytest
import requests

from tests.support.browser import PageWatch, check_layout, chromium, screenshot

pytestmark = pytest.mark.timeout(400)

SIZES = {"390x844": (390, 844), "360x740": (360, 740), "1280x800": (1280, 800)}
#: Fails a game that hangs; it asserts no speed.
HANG_SECONDS = 240


def new_page(browser, size: tuple[int, int]):
    width, height = size
    context = browser.new_context(
        viewport={"width": width, "height": height}, has_touch=True, is_mobile=width < 800
    )
    page = context.new_page()
    page.set_default_timeout(30_000)
    return page, PageWatch(page)


def tap_a_legal_action(page, rng: random.Random) -> None:
    options = page.query_selector_all(".legal[data-action]")
    assert options, "your turn, but nothing to tap"
    rng.choice(options).tap()


def start_game(page, base: str, level: str) -> str:
    page.goto(f"{base}/play/")  # a tab that played a game shows it: its form starts another
    page.wait_for_selector("body[data-state=setup], body[data-state=finished]")
    page.select_option("#level", level)
    page.locator("#start").tap()
    page.wait_for_url("**/play/?game=*")
    return page.url.rsplit("=", 1)[1]


def play_to_the_end(pages: list[Any], rng: random.Random, name: str, shots: str) -> int:
    """Tap random legal actions on each page whose turn it is until every page shows the end."""
    deadline = time.monotonic() + HANG_SECONDS
    taps = 0
    while True:
        states = [p.get_attribute("body", "data-state") for p in pages]
        if all(state == "finished" for state in states):
            return taps
        assert time.monotonic() < deadline, f"{name}: the game did not end ({taps} taps)"
        for page in pages:
            if page.get_attribute("body", "data-state") != "your-turn":
                continue
            if taps % 6 == 0:
                check_layout(page, f"{name}, tap {taps}")
            if taps == 2:
                screenshot(page, f"{shots}-turn")
            tap_a_legal_action(page, rng)
            taps += 1
        time.sleep(0.02)


@pytest.mark.parametrize("size", list(SIZES))
def test_by_tapping_at_phone_and_desktop_sizes(live_server, worker, size):
    base = live_server.url
    rng = random.Random(size)
    with chromium() as browser:
        page, watch = new_page(browser, SIZES[size])

        # -- a whole game against the random bot ---------------------------------
        game_id = start_game(page, base, "random")
        play_to_the_end([page], rng, f"{size} bot game", f"phone-{size}-01-bot")
        check_layout(page, f"{size} bot game over")
        screenshot(page, f"phone-{size}-02-game-over")

        # -- its analysis in the replay viewer ------------------------------------
        page.locator("#replay-link").tap()
        page.wait_for_selector("body[data-state=ready]")
        check_layout(page, f"{size} replay")
        page.locator("#analyse").tap()
        page.wait_for_selector("#analysis-progress:not([hidden])")  # the job runs
        screenshot(page, f"phone-{size}-03-analysing")
        page.wait_for_selector("body[data-analysis=ready]", timeout=120_000)
        replay = requests.get(f"{base}/v1/games/{game_id}/replay", timeout=15).json()
        decisions = sum(1 for e in replay["events"] if e["type"] == "action_taken")
        assert page.get_attribute("#analysis", "data-decisions") == str(decisions)
        assert page.locator("#analysis .chart").count() == 2
        assert page.locator("#analysis .chart .bar").count() == decisions
        assert page.locator("#decisions li").count() == decisions
        assert page.locator("#analysis .player .accuracy").count() == 2
        check_layout(page, f"{size} analysis")
        page.locator("#analysis-panel").scroll_into_view_if_needed()
        screenshot(page, f"phone-{size}-04-analysis")

        # -- a game between two people: the second joins by the link ----------------
        start_game(page, base, "human")
        page.wait_for_selector("#invite-panel:not([hidden])")
        link = page.get_attribute("#join-link", "href")
        assert "/join/?game=" in link and "&invite=" in link
        check_layout(page, f"{size} invite")
        screenshot(page, f"phone-{size}-05-invite")
        other, other_watch = new_page(browser, SIZES[size])
        other.goto(link)
        other.wait_for_selector("body[data-state=ready]")
        check_layout(other, f"{size} join page")
        screenshot(other, f"phone-{size}-06-join")
        other.locator("#join").tap()
        other.wait_for_url("**/play/?game=*")
        page.wait_for_selector("#invite-panel", state="hidden")
        play_to_the_end([page, other], rng, f"{size} human game", f"phone-{size}-07-human")
        for seat_page in (page, other):
            check_layout(seat_page, f"{size} human game over")
        assert {page.inner_text("#end-headline"), other.inner_text("#end-headline")} >= {
            "You won the game!"
        }
        screenshot(other, f"phone-{size}-08-human-over")
        assert watch.errors == [] and other_watch.errors == []
