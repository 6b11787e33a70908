"""A listing's cursor: the spec admits every cursor the server hands out and reads, and
no text the server refuses as not its own (400 ``invalid_cursor``).

Over HTTP against gunicorn: cursors drawn from the spec's own pattern (as a
generated client's validator or schemathesis reads it) start a page of each
listing that takes one; the cursors the server hands out match the pattern;
forged ones do not.
"""

from __future__ import annotations

import base64
import re

import requests
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.openapi_document import DOCUMENT
from tests.support.players import new_app, register_over_http

LISTINGS = ("/v1/games", "/v1/players/me/games", "/v1/players/{player_id}/ratings")


def cursor_pattern(path: str) -> str:
    parameters = DOCUMENT["paths"][path]["get"]["parameters"]
    cursor = next(p for p in parameters if p["name"] == "cursor" and p["in"] == "query")
    return cursor["schema"].get("pattern", "")


def test_every_listing_documents_one_cursor_pattern_and_its_answers_carry_it():
    patterns = {cursor_pattern(path) for path in LISTINGS}
    assert len(patterns) == 1 and "" not in patterns, patterns
    for name in ("GameList", "PlayerGames", "RatingHistory"):
        answer = DOCUMENT["components"]["schemas"][name]["properties"]["next_cursor"]
        assert answer.get("pattern") in patterns, name


def _base64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def test_forged_cursors_are_outside_the_spec():
    pattern = re.compile(cursor_pattern("/v1/games"))
    # Not base64, no time, no id, an id of other characters, a time past 15 digits.
    for raw in (b"123:", b":abc", b"abc:abc", b"123:a-b", b"123:a b", b"1" * 16 + b":a"):
        assert not pattern.search(_base64(raw)), raw
    for forged in ("abc!", "0", "MTIzOmFiY"):
        assert not pattern.search(forged), forged
    for raw in (b"1:a", b"123:abc", b"12:ab", b"1765079951000:4f2a9c01d7b34e56", b"9" * 15 + b":Z"):
        assert pattern.search(_base64(raw)), raw


def test_a_cursor_the_spec_admits_starts_a_page_of_every_listing(live_server, redis_client):
    app = new_app(redis_client)
    registered = register_over_http(live_server.url, app.headers, "Anna")
    player = {**app.headers, "Authorization": f"Bearer {registered['token']}"}
    urls = {
        "/v1/games": ({"client": "me"}, app.headers),
        "/v1/players/me/games": ({}, player),
        "/v1/players/{player_id}/ratings": ({}, app.headers),
    }
    session = requests.Session()

    @settings(max_examples=15, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(cursor=st.from_regex(cursor_pattern("/v1/games"), fullmatch=True))
    def each(cursor: str) -> None:
        if len(cursor) > 200:  # the parameter's maxLength
            return
        for path, (params, headers) in urls.items():
            url = live_server.url + path.replace("{player_id}", registered["player"]["player_id"])
            answer = session.get(url, params={**params, "cursor": cursor}, headers=headers,
                                 timeout=10)  # fmt: skip
            assert answer.status_code == 200, (path, cursor, answer.text)

    each()


def test_the_cursors_the_server_hands_out_match_the_spec(live_server, redis_client):
    app = new_app(redis_client)
    for _ in range(3):
        made = requests.post(f"{live_server.url}/v1/games", json={}, headers=app.headers,
                             timeout=10)  # fmt: skip
        assert made.status_code == 201, made.text
    pattern = re.compile(cursor_pattern("/v1/games"))
    url, params, seen = f"{live_server.url}/v1/games", {"client": "me", "limit": 1}, 0
    while True:
        page = requests.get(url, params=params, headers=app.headers, timeout=10)
        assert page.status_code == 200, page.text
        cursor = page.json()["next_cursor"]
        seen += len(page.json()["games"])
        if cursor is None:
            break
        assert pattern.search(cursor), cursor
        params = {**params, "cursor": cursor}
    assert seen == 3
