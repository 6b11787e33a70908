"""Requests that openapi.yaml allows are accepted, and what the server refuses the spec
refuses too: a generated client (or schemathesis) that follows the schema is not
turned away.

Over HTTP against gunicorn. A JSON integer may be written 2.0 (JSON Schema's
``integer`` allows it; only 0.5, "2" and true are no integers); an Idempotency-Key
is visible ASCII, a webhook URL printable ASCII, as both the spec and the server say;
a PATCH of a webhook without a body changes nothing.
"""

from __future__ import annotations

import re

import requests
from jsonschema import Draft202012Validator

from tests.support.openapi_document import DOCUMENT, component
from tests.support.players import new_app


def create(url: str, body: dict, headers: dict[str, str]) -> requests.Response:
    return requests.post(f"{url}/v1/games", json=body, headers=headers, timeout=10)


def test_a_whole_number_written_with_a_fraction_of_zero_is_an_integer(live_server, redis_client):
    app = new_app(redis_client)
    clock = {"seconds_per_move": 30.0, "on_timeout": "lose", "bot_moves_limit": 2.0}
    made = create(live_server.url, {"clock": clock, "seed": 7.0}, app.headers)
    assert made.status_code == 201, made.text
    assert made.json()["game"]["seat"] == 0
    for wrong in (30.5, "30", True):
        refused = create(live_server.url, {"clock": {"seconds_per_move": wrong}}, app.headers)
        assert refused.status_code == 422, (wrong, refused.text)
        assert refused.json()["code"] == "invalid_request"


def test_a_patch_without_a_body_changes_nothing_and_the_spec_allows_it(live_server, redis_client):
    app = new_app(redis_client)
    made = requests.post(f"{live_server.url}/v1/webhooks", headers=app.headers, timeout=10,
                         json={"url": "https://hooks.example.com/in"})  # fmt: skip
    assert made.status_code == 201, made.text
    hook = f"{live_server.url}/v1/webhooks/{made.json()['webhook_id']}"
    patched = requests.patch(hook, headers=app.headers, timeout=10)
    assert patched.status_code == 200, patched.text
    assert patched.json()["url"] == "https://hooks.example.com/in"
    update = DOCUMENT["paths"]["/v1/webhooks/{webhook_id}"]["patch"]["requestBody"]
    assert update.get("required") is not True


def test_the_spec_refuses_the_keys_and_urls_the_server_refuses(live_server, redis_client):
    app = new_app(redis_client)
    header = next(
        p for p in DOCUMENT["paths"]["/v1/games"]["post"]["parameters"]
        if p["name"] == "Idempotency-Key"
    )  # fmt: skip
    key_pattern = re.compile(header["schema"].get("pattern", ""))
    for key, documented in (("a" * 20, True), ("with space", False), ("ä" * 20, False)):
        assert bool(key_pattern.search(key)) is documented, key
    url_pattern = component("WebhookRequest")["properties"]["url"].get("pattern", "")
    for address, documented in (
        ("https://hooks.example.com/in?x=1", True),
        ("http://hooks.example.com:8443/", True),
        ("https://hooks.exämple.com/in", False),
        ("https://hooks.example.com/a b", False),
        ("https://hooks.example.com/in#part", False),
        ("ftp://hooks.example.com/in", False),
        ("https://0x7f.1/in", False),
    ):
        assert bool(re.search(url_pattern, address)) is documented, address
        answer = requests.post(f"{live_server.url}/v1/webhooks", headers=app.headers,
                               json={"url": address}, timeout=10)  # fmt: skip
        assert (answer.status_code == 201) is documented, (address, answer.text)


def test_a_keyed_request_without_the_credentials_it_needs_is_401_before_its_key_is_judged(
    live_server, redis_client
):
    app = new_app(redis_client)
    for path, body in (("/v1/seeks", {"variant": "head"}), ("/v1/challenges", {"player_id": "p"})):
        refused = requests.post(
            f"{live_server.url}{path}",
            json=body,
            headers={**app.headers, "Idempotency-Key": "short"},  # the key is not read here
            timeout=10,
        )
        assert refused.status_code == 401, (path, refused.text)
        assert refused.json()["code"] == "player_token_required"


def test_a_boolean_is_true_or_false_for_the_server_as_for_the_spec(live_server, redis_client):
    app = new_app(redis_client)
    assert create(live_server.url, {"rated": False}, app.headers).status_code == 201
    for wrong in (0, 1, "yes", "true"):
        refused = create(live_server.url, {"rated": wrong}, app.headers)
        assert refused.status_code == 422, (wrong, refused.text)
    hook = requests.post(f"{live_server.url}/v1/webhooks", headers=app.headers, timeout=10,
                         json={"url": "https://hooks.example.com/in"}).json()  # fmt: skip
    patched = requests.patch(f"{live_server.url}/v1/webhooks/{hook['webhook_id']}",
                             headers=app.headers, json={"enabled": 1}, timeout=10)  # fmt: skip
    assert patched.status_code == 422, patched.text


def test_the_spec_says_a_bot_opponent_needs_a_level_and_a_human_has_none(live_server, redis_client):
    app = new_app(redis_client)
    opponent = Draft202012Validator({**component("Opponent"), "components": DOCUMENT["components"]})
    for body, documented in (
        ({"type": "bot", "level": "random"}, True),
        ({"type": "human"}, True),
        ({"type": "bot"}, False),
        ({"type": "human", "level": "random"}, False),
    ):
        assert opponent.is_valid(body) is documented, body
        answer = create(live_server.url, {"opponent": body}, app.headers)
        assert (answer.status_code == 201) is documented, (body, answer.text)


def test_a_seat_operation_without_its_token_is_401_even_with_the_apps_key_and_a_key(
    live_server, redis_client
):
    app = new_app(redis_client)
    headers = {**app.headers, "Idempotency-Key": "one-key-for-two-requests"}
    game = create(live_server.url, {}, app.headers).json()["game_id"]
    position = {"seat": 0, "dealer": 1, "hand": ["AS", "TS", "KH", "QH", "JD"],
                "trump_card": "QC", "talon_size": 9}  # fmt: skip
    asked = requests.post(
        f"{live_server.url}/v1/bot/moves",
        headers=headers,
        timeout=30,
        json={"position": position, "level": "random"},
    )  # the key's first use
    assert asked.status_code in (200, 202), asked.text
    for action in ("hint", "rematch", "resign"):
        refused = requests.post(f"{live_server.url}/v1/games/{game}/{action}", json={},
                                headers=headers, timeout=10)  # fmt: skip
        assert refused.status_code == 401, (action, refused.text)


def test_the_spec_refuses_the_names_and_hosts_the_server_refuses(live_server, redis_client):
    app = new_app(redis_client)
    name_pattern = component("RegisterPlayer")["properties"]["name"].get("pattern", "")
    for name, documented in (("Anna", True), ("Zoë 7", True), ("v@\x83", False),
                             ("a\u200bb", False), ("a<b", False)):  # fmt: skip
        assert bool(re.search(name_pattern, name)) is documented, name
        answer = requests.post(f"{live_server.url}/v1/players", headers=app.headers, timeout=10,
                               json={"app_player_id": f"u-{len(name)}{documented}",
                                     "name": name})  # fmt: skip
        assert (answer.status_code == 201) is documented, (name, answer.text)
    url_pattern = component("WebhookRequest")["properties"]["url"].get("pattern", "")
    long_label = "a" * 64
    for address, documented in (
        ("https://hooks.example.com/in", True),
        (f"https://{long_label}.example.com/in", False),
        ("https://hooks.ex~ample.com/in", False),
    ):
        assert bool(re.search(url_pattern, address)) is documented, address
        answer = requests.post(f"{live_server.url}/v1/webhooks", headers=app.headers,
                               json={"url": address}, timeout=10)  # fmt: skip
        assert (answer.status_code == 201) is documented, (address, answer.text)
    human = create(live_server.url, {"opponent": {"type": "human", "level": ""}}, app.headers)
    assert human.status_code == 422, human.text
