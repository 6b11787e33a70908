"""Headless Chromium for the UI tests: Debian's package, driven by Playwright.

No browser is ever downloaded (`playwright install` is not used): the tests
launch /usr/bin/chromium (or $SCHNAPSEN_CHROMIUM). A machine without it
fails the UI tests with the command that installs it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import REPO

ARTIFACTS = REPO / "test-artifacts" / "ui"

#: The network of the test machines is closed: without the background-networking
#: flags Chromium stalls on start-up trying to reach Google services.
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

INSTALL_HINT = (
    "the UI tests need Debian's Chromium: apt-get install -y chromium "
    "(.ci/run does this; do not use `playwright install`)"
)


def chromium_path(candidate: str | None = None) -> str:
    """The Chromium binary to launch; fails the test (never skips) when there is none."""
    path = candidate or os.environ.get("SCHNAPSEN_CHROMIUM") or "/usr/bin/chromium"
    if not (Path(path).is_file() and os.access(path, os.X_OK)):
        found = None if candidate else shutil.which("chromium")
        if found is None:
            pytest.fail(f"no Chromium at {path}: {INSTALL_HINT}", pytrace=False)
        path = found
    return path


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium browser (Playwright's sync API)."""
    executable = chromium_path()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("the UI tests need Playwright: pip install -e '.[dev]'", pytrace=False)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, args=CHROMIUM_ARGS, timeout=60_000
        )
        try:
            yield browser
        finally:
            browser.close()


#: A phone's screen in portrait (CSS pixels): the pages that follow an app's games are
#: read on phones first.
PHONE = {"width": 390, "height": 844}


@contextmanager
def phone_page(timeout_ms: int = 30_000) -> Iterator[Any]:
    """A page of a new headless Chromium as a phone shows it (``PHONE``, touch, a mobile
    viewport), each wait on it bounded by ``timeout_ms``; its context closed after."""
    with chromium() as browser:
        context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
        try:
            page = context.new_page()
            page.set_default_timeout(timeout_ms)
            yield page
        finally:
            context.close()


class PageWatch:
    """A page's JavaScript errors and failed requests, collected for assertions."""

    def __init__(self, page: Any):
        self.errors: list[str] = []
        page.on("pageerror", lambda error: self.errors.append(f"pageerror: {error}"))
        page.on(
            "console",
            lambda message: (
                message.type == "error" and self.errors.append(f"console: {message.text}")
            ),
        )


def screenshot(page: Any, name: str) -> Path:
    """Keep a screenshot as a test artifact under test-artifacts/ui/."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


#: What the page must hold at its current state; a list of what is wrong ([] when fine).
#: ``width`` is the screen's: a mobile browser zooms a too-wide page out, so innerWidth
#: grows with the page and scrollWidth <= innerWidth alone would hold for it.
#: Cards: each one's centre, scrolled into view, hits the card (the talon's pile counts
#: its top card only: the pile is one stack). Controls: buttons, links, selects, inputs
#: and playable cards of at least 44 x 44 px.
LAYOUT_PROBLEMS = """(width) => {
  const problems = [];
  const root = document.documentElement;
  // A phone widens its layout viewport to a page too wide for it: that is sideways scrolling too.
  if (innerWidth > width) problems.push(`innerWidth ${innerWidth} > the screen's ${width}`);
  if (root.scrollWidth > innerWidth) problems.push(`scrollWidth ${root.scrollWidth} > innerWidth ${innerWidth}`);
  const visible = (node) => node.getClientRects().length > 0 && getComputedStyle(node).visibility !== "hidden";
  const cards = [...document.querySelectorAll(".card")].filter(visible)
    .filter((card) => !card.closest(".talon") || card === card.parentNode.lastElementChild);
  for (const card of cards) {
    card.scrollIntoView({ block: "center", inline: "center" });
    const r = card.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!hit || !(hit === card || card.contains(hit))) {
      problems.push(`card ${card.dataset.card || "back"} in #${card.closest("[id]").id} is covered by ` +
        (hit ? `${hit.tagName.toLowerCase()}#${hit.id}.${hit.className}` : "nothing"));
    }
  }
  const controls = [...document.querySelectorAll("button, a, select, input, [role=button]")].filter(visible);
  for (const node of controls) {
    const r = node.getBoundingClientRect();
    if (r.width < 44 || r.height < 44) {
      problems.push(`${node.tagName.toLowerCase()} "${node.textContent.trim().slice(0, 30)}" is ${Math.round(r.width)}x${Math.round(r.height)}`);
    }
  }
  scrollTo(0, 0);
  return problems;
}"""


def check_layout(page, where: str) -> None:
    problems = page.evaluate(LAYOUT_PROBLEMS, page.viewport_size["width"])
    assert problems == [], f"{where}: {problems}"
