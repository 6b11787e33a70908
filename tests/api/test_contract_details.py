"""Answers as openapi.yaml declares them, checked over HTTP against gunicorn: what a
client generated from the spec (or a schema checker such as schemathesis) relies on."""

from __future__ import annotations

import requests

from service.game.players import NAME_MAX
from service.game.problem_codes import ProblemCode
from tests.support.openapi_document import load_yaml
from tests.support.paths import REPO
from tests.support.players import new_app


def test_an_empty_answer_says_it_is_text_plain_as_the_spec_declares_not_html(
    live_server, redis_client
):
    app = new_app(redis_client)
    made = requests.post(
        f"{live_server.url}/v1/webhooks",
        json={"url": "https://hooks.example.com/empty"},
        headers=app.headers,
        timeout=10,
    )
    assert made.status_code == 201, made.text
    deleted = requests.delete(
        f"{live_server.url}/v1/webhooks/{made.json()['webhook_id']}",
        headers=app.headers,
        timeout=10,
    )
    assert deleted.status_code == 204 and deleted.content == b""
    assert deleted.headers["Content-Type"].split(";")[0] == "text/plain"


def test_the_spec_bounds_a_display_name_as_the_server_does():
    spec = load_yaml((REPO / "openapi.yaml").read_text())
    name = spec["components"]["schemas"]["RegisterPlayer"]["properties"]["name"]
    assert name["maxLength"] == NAME_MAX


def test_a_refused_token_or_key_has_the_title_of_its_codes_problem_page(live_server):
    refusals = [
        requests.post(
            f"{live_server.url}/v1/players",
            json={"app_player_id": "u-1", "name": "Anna"},
            timeout=10,
        ),
        requests.get(
            f"{live_server.url}/v1/players/me",
            headers={"Authorization": "Bearer spt_not-a-player"},
            timeout=10,
        ),
    ]
    for refused in refusals:
        assert refused.status_code == 401, refused.text
        problem = refused.json()
        assert problem["title"] == ProblemCode(problem["code"]).page.title, problem
