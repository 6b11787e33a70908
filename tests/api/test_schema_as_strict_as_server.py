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
from tests.support.players import bearer, new_app, register_over_http


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


def _names_pattern() -> re.Pattern[str]:
    return re.compile(component("RegisterPlayer")["properties"]["name"].get("pattern", ""))


def test_a_name_with_a_character_newer_than_the_servers_unicode_is_kept(live_server, redis_client):
    """U+1FA77 PINK HEART came with Unicode 15 (2022): a player's phone types it whether or
    not the server's Unicode tables know it yet. A code point never to be a character (a
    noncharacter such as U+FDD0) stays refused, by the server and the spec alike."""
    app = new_app(redis_client)
    for name, kept in (("Anna \U0001fa77", True), ("Anna \ufdd0", False),
                       ("Anna \U0001fffe", False)):  # fmt: skip
        assert bool(_names_pattern().search(name)) is kept, name
        answer = requests.post(f"{live_server.url}/v1/players", headers=app.headers, timeout=10,
                               json={"app_player_id": f"u-{ord(name[-1])}", "name": name})  # fmt: skip
        assert (answer.status_code == 201) is kept, (name, answer.text)
        if kept:
            assert answer.json()["player"]["name"] == name


def test_the_spec_says_a_name_starts_with_a_character_to_see_and_has_single_spaces(
    live_server, redis_client
):
    """What the name's pattern admits the server keeps, and what it refuses the server
    refuses: spaces around a name are dropped, two spaces within it are refused, and a
    name starts (after its spaces) with a character that shows, not a combining mark, a
    Hangul filler or a braille blank."""
    app = new_app(redis_client)
    for number, (name, kept) in enumerate((
        ("  Anna  ", True), ("Anna Maria", True), ("Zoe\u0308", True), ("\u00e9\u0301", True),
        ("\u0928\u092e\u0938\u094d\u0924\u0947", True), ("A \u0301", True),
        (" ", False), ("   ", False), ("Anna  Maria", False), ("\u0301", False),
        ("\u0301Anna", False), ("\u3164Anna", False), ("\u2800", False), (" \u0301 A", False),
        ("\u1fef", False),  # GREEK VARIA, a grave accent (`, markup) once normalised (NFC)
    )):  # fmt: skip
        assert bool(_names_pattern().search(name)) is kept, name
        answer = requests.post(f"{live_server.url}/v1/players", headers=app.headers, timeout=10,
                               json={"app_player_id": f"s-{number}", "name": name})  # fmt: skip
        assert (answer.status_code == 201) is kept, (name, answer.text)
        if not kept:
            assert answer.json()["code"] in ("invalid_name", "invalid_request"), answer.text


def test_a_seats_action_is_authenticated_before_its_if_match_is_judged(live_server, redis_client):
    """RFC 9110 13.2.1: a precondition is evaluated only for a request that would
    otherwise succeed, so a request without its seat's token is 401 whatever its If-Match
    says (weak, out of range, malformed, or at odds with expected_version)."""
    app = new_app(redis_client)
    game = create(live_server.url, {}, app.headers).json()
    url = f"{live_server.url}/v1/games/{game['game_id']}/actions"
    for authorization in (None, "Bearer ", "Bearer not-a-seat-token"):
        for if_match, body in (('W/"1"', {"type": "claim"}), ('"99999999999999999999"', {}),
                               ("0", {}), ('"1"', {"expected_version": 2})):  # fmt: skip
            headers = {**app.headers, "If-Match": if_match}
            if authorization is not None:
                headers["Authorization"] = authorization
            refused = requests.post(url, headers=headers, timeout=10,
                                    json={"type": "claim", **body})  # fmt: skip
            assert refused.status_code == 401, (authorization, if_match, refused.text)


def test_a_cursor_beside_the_older_way_of_paging_reads_a_page(live_server, redis_client):
    """OpenAPI cannot tie one parameter to another, so no combination the spec admits is
    refused: `cursor` beside `before` or `offset` reads a page (the two count together;
    tests/players/test_paging_parameters_together.py shows how), and no parameter's
    description says it excludes another."""
    app = new_app(redis_client)
    registered = register_over_http(live_server.url, app.headers, "Anna")
    player = {**app.headers, **bearer(registered["token"])}
    cursor = "MTAwMDpnMA"  # the pattern's: 1000:g0
    for path, older, headers in (
        ("/v1/players/me/games", "before", player),
        (f"/v1/players/{registered['player']['player_id']}/ratings", "offset", app.headers),
    ):
        answered = requests.get(f"{live_server.url}{path}", headers=headers, timeout=10,
                                params={"cursor": cursor, older: 5})  # fmt: skip
        assert answered.status_code == 200, (path, answered.text)
        operation = DOCUMENT["paths"][path.replace(registered["player"]["player_id"],
                                                   "{player_id}")]["get"]  # fmt: skip
        for parameter in operation["parameters"]:
            assert "not with" not in parameter.get("description", ""), parameter
