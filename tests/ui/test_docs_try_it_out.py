"""GET /docs in headless Chromium: "Try it out" then "Execute" on POST /v1/games with
its prefilled example creates a game (201), against gunicorn and a real Redis.

The example is the one openapi.yaml carries (service/web/examples.py); the
server Swagger UI calls is the document's first, "/": the one serving it.
"""

from __future__ import annotations

import json

import pytest
import requests

from service.web.examples import CREATE_GAME
from tests.support.browser import PageWatch, chromium, screenshot

pytestmark = pytest.mark.timeout(180)


def test_try_it_out_creates_a_game_with_the_prefilled_example(live_server):
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        watch = PageWatch(page)
        page.goto(f"{live_server.url}/docs", wait_until="load")
        operation = page.locator("#operations-games-createGame")
        operation.locator(".opblock-summary").first.click()
        operation.get_by_role("button", name="Try it out").click()
        body = operation.locator("textarea.body-param__text")
        assert json.loads(body.input_value()) == CREATE_GAME
        with page.expect_response(
            lambda r: r.url == f"{live_server.url}/v1/games" and r.request.method == "POST"
        ) as answer:
            operation.get_by_role("button", name="Execute").click()
        response = answer.value
        assert response.status == 201, response.text()
        created = response.json()
        status = operation.locator(
            ".live-responses-table tbody .response .response-col_status"
        ).first
        status.wait_for()
        assert status.inner_text().strip().startswith("201")
        screenshot(page, "docs-try-it-out-create-game")
        assert not watch.errors, watch.errors
    # The game exists and is what the example asked for.
    view = requests.get(
        f"{live_server.url}/v1/games/{created['game_id']}",
        headers={"Authorization": f"Bearer {created['token']}"},
        timeout=15,
    ).json()
    assert view["players"][1] == {"seat": 1, "type": "bot", "level": "heuristic", "joined": True}
