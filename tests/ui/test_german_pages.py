"""The pages in German: ``?lang=de``, the browser's languages, and the switch on the page.

A whole game against the random bot at 390x844 by tapping, then its replay
step by step and its analysis, with ``?lang=de`` given once on the first
page only: at every turn and every replay step the page's visible text
(``innerText``) must hold no English card or game word. The language asked
for is remembered, so the replay page reached by its link speaks German too.
Screenshots go to test-artifacts/ui/ (german-*.png).
"""

from __future__ import annotations

import random
import re
import time

import pytest

from tests.support.browser import PageWatch, chromium, screenshot

pytestmark = pytest.mark.timeout(400)

#: Fails a game that hangs; it asserts no speed.
HANG_SECONDS = 240

#: English card and game words; German text holds none of them as a whole word.
ENGLISH = re.compile(
    r"\b(aces?|tens?|kings?|queens?|jacks?|hearts?|diamonds?|spades?|clubs?|trumps?|talon|"
    r"marriages?|close|closed|tricks?|deals?|dealt|dealer|leads?|led|plays?|wins?|won|lost|"
    r"claims?|accepts?|exchanges?|you|your|game|points?|cards?|opponent|player|replay|"
    r"previous|next|thinking|analysis|accuracy|best|mistakes?|blunders?|draws?|exhausted)\b",
    re.IGNORECASE,
)


def english_left(page) -> list[str]:
    """The English words in the page's visible text, each with a little of its line."""
    text = page.inner_text("body")
    return [
        text[max(0, m.start() - 30) : m.end() + 30].replace("\n", " | ")
        for m in ENGLISH.finditer(text)
    ]


def assert_german(page, where: str) -> None:
    assert page.evaluate("document.documentElement.lang") == "de", where
    assert english_left(page) == [], where


#: The words a language's table lacks: a key of the English table, or a data-w of the page.
MISSING_WORDS = """async () => {
  const { TABLES } = await import("/static/words.js");
  const missing = [];
  const fixed = [...document.querySelectorAll("[data-w]")].map((node) => node.dataset.w)
    .concat([...document.querySelectorAll("[data-w-label]")].map((node) => node.dataset.wLabel));
  for (const [lang, table] of Object.entries(TABLES)) {
    for (const key of Object.keys(TABLES.en)) if (!(key in table)) missing.push(`${lang}: ${key}`);
    if (lang === "en") continue;
    for (const key of fixed) if (!(key in table.page)) missing.push(`${lang}: page.${key}`);
  }
  return missing;
}"""


def phone(browser, **options):
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True, **options
    )
    page = context.new_page()
    page.set_default_timeout(30_000)
    return page, PageWatch(page)


def play_to_the_end(page, rng: random.Random) -> int:
    """Tap random legal actions until the game is over, checking the words at each turn."""
    deadline = time.monotonic() + HANG_SECONDS
    taps = 0
    while page.get_attribute("body", "data-state") != "finished":
        assert time.monotonic() < deadline, f"the game did not end ({taps} taps)"
        if page.get_attribute("body", "data-state") == "your-turn":
            assert_german(page, f"turn {taps}")
            if taps == 4:
                screenshot(page, "german-390x844-01-turn")
            options = page.query_selector_all(".legal[data-action]")
            assert options, "your turn, but nothing to tap"
            rng.choice(options).tap()
            taps += 1
        time.sleep(0.02)
    return taps


def test_a_whole_game_its_replay_and_analysis_in_german_on_a_phone(live_server, worker):
    base = live_server.url
    rng = random.Random("de")
    with chromium() as browser:
        page, watch = phone(browser)
        page.goto(f"{base}/play/?lang=de")
        page.wait_for_selector("body[data-state=setup]")
        assert_german(page, "the new game form")
        assert "König" in page.inner_text("#about")
        page.select_option("#level", "random")
        page.locator("#start").tap()
        page.wait_for_url("**/play/?game=*")
        assert play_to_the_end(page, rng) > 0
        assert_german(page, "game over")
        screenshot(page, "german-390x844-02-game-over")

        page.locator("#replay-link").tap()  # a link without ?lang: the choice is remembered
        page.wait_for_selector("body[data-state=ready]")
        steps = 0
        while True:
            assert_german(page, f"replay step {steps}")
            if steps == 3:
                screenshot(page, "german-390x844-03-replay")
            if page.locator("#next").is_disabled():
                break
            page.locator("#next").tap()
            page.wait_for_selector(f"body[data-step='{steps + 1}']")
            steps += 1
        assert steps > 0

        page.locator("#analyse").tap()
        page.wait_for_selector("body[data-analysis=ready]", timeout=120_000)
        assert_german(page, "analysis")
        page.locator("#analysis-panel").scroll_into_view_if_needed()
        screenshot(page, "german-390x844-04-analysis")
        assert watch.errors == []


def test_the_browsers_language_chooses_german_and_the_switch_is_remembered(live_server):
    base = live_server.url
    with chromium() as browser:
        page, watch = phone(browser, locale="de-AT")  # Accept-Language: de-AT
        page.goto(f"{base}/play/")
        page.wait_for_selector("body[data-state=setup]")
        assert_german(page, "a German browser")
        missing = page.evaluate(MISSING_WORDS)
        assert missing == [], missing

        page.select_option("#lang", "en")
        page.wait_for_selector("html[lang=en]")
        page.wait_for_selector("body[data-state=setup]")
        assert "Deal the cards" in page.inner_text("#setup")
        page.goto(f"{base}/replay/")  # the choice outlives the page
        page.wait_for_selector("body[data-state=idle]")
        assert page.evaluate("document.documentElement.lang") == "en"
        assert "Replay" in page.inner_text("#open-panel")

        page.goto(f"{base}/play/?lang=de")  # the address wins over the remembered choice
        page.wait_for_selector("body[data-state=setup]")
        assert_german(page, "?lang=de after choosing English")
        assert page.input_value("#lang") == "de"
        assert watch.errors == []
