"""`GET /v1/games?client=me&cursor=...` with a cursor the service never handed out.

A cursor is opaque to clients, but a client can send anything: a time past
what the archive's integers hold, a negative one, too many or too few
fields, bytes that are no base64 or no text. Every such cursor is a 400
`invalid_cursor` problem and never a 500, whichever archive the listing
reads besides Redis (SQLite or PostgreSQL): against gunicorn, over HTTP.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from contextlib import ExitStack

import pytest
import requests
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.store.clients import ClientRegistry
from tests.support.postgres import fresh_database
from tests.support.servers import LiveServer

#: The archive's back ends (every run starts gunicorn: the system lane, both alike).
BACK_ENDS = ["sqlite", "postgresql"]


def cursor_of(raw: bytes) -> str:
    """``raw`` as a cursor is written: base64url without its padding."""
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


#: Cursors no page ever handed out, each for one way of forging one.
FORGED = {
    "time_of_2_to_the_63": cursor_of(b"%d:0123456789abcdef" % 2**63),
    "time_of_2_to_the_64": cursor_of(b"%d:0123456789abcdef" % 2**64),
    "time_past_the_doubles_integers": cursor_of(b"%d:0123456789abcdef" % 2**53),
    "time_of_4000_digits": cursor_of(b"9" * 4000 + b":0123456789abcdef")[:200],
    "time_of_150_digits": cursor_of(b"9" * 100 + b":0123456789abcdef"),
    "negative_time": cursor_of(b"-1:0123456789abcdef"),
    "time_with_sign": cursor_of(b"+1700000000000:0123456789abcdef"),
    "time_with_spaces": cursor_of(b" 1700000000000:0123456789abcdef"),
    "fractional_time": cursor_of(b"1700000000000.5:0123456789abcdef"),
    "time_in_other_digits": cursor_of("١٧٠٠:0123456789abcdef".encode()),
    "no_game": cursor_of(b"1700000000000:"),
    "no_time": cursor_of(b":0123456789abcdef"),
    "one_field": cursor_of(b"1700000000000"),
    "three_fields": cursor_of(b"1700000000000:0123456789abcdef:x"),
    "game_with_punctuation": cursor_of(b"1700000000000:0123-4567"),
    "not_utf8": cursor_of(b"\xff\xfe:\x80\x81"),
    "latin1_game": cursor_of("1700000000000:gäme".encode("latin-1")),
    "nul_bytes": cursor_of(b"1700000000000\x00:0123456789abcdef"),
    "not_base64": "!!!not-base64!!!",
    "one_base64_character_too_many": "A",
    "standard_base64_alphabet": base64.b64encode(b"\xfb\xff:0123456789abcdef").decode(),
}


@pytest.fixture(scope="module", params=BACK_ENDS)
def listing(
    request: pytest.FixtureRequest, redis_url: str, redis_client, tmp_path_factory
) -> Iterator[tuple[str, dict[str, str]]]:
    """gunicorn with an archive on one back end, and a client key with three games."""
    with ExitStack() as stack:
        if request.param == "sqlite":
            archive = f"sqlite:///{tmp_path_factory.mktemp('archive') / 'archive.sqlite3'}"
        else:
            archive = stack.enter_context(fresh_database(request.getfixturevalue("postgres_url")))
        server = LiveServer(redis_url, workers=1, env={"SCHNAPSEN_ARCHIVE_URL": archive})
        stack.callback(server.stop)
        _app, key = ClientRegistry(redis_client).create("Cursors")
        headers = {"X-Client-Key": key}
        for _ in range(3):
            created = requests.post(f"{server.url}/v1/games", json={}, headers=headers, timeout=10)
            assert created.status_code == 201, created.text
        yield server.url, headers


def page(listing: tuple[str, dict[str, str]], cursor: str) -> requests.Response:
    base, headers = listing
    return requests.get(
        f"{base}/v1/games",
        params={"client": "me", "limit": 1, "cursor": cursor},
        headers=headers,
        timeout=10,
    )


def assert_invalid_cursor(answer: requests.Response, cursor: str) -> None:
    assert answer.status_code == 400, (cursor, answer.status_code, answer.text)
    assert answer.headers["Content-Type"].startswith("application/problem+json"), cursor
    assert answer.json()["code"] == "invalid_cursor", (cursor, answer.text)


def test_the_cursors_a_listing_hands_out_lead_through_every_game(listing):
    first = page(listing, cursor_of(b"%d:ffffffffffffffff" % (2**53 - 1)))
    assert first.status_code == 200, first.text
    seen = [game["game_id"] for game in first.json()["games"]]
    cursor = first.json()["next_cursor"]
    while cursor is not None:
        answer = page(listing, cursor)
        assert answer.status_code == 200, answer.text
        seen += [game["game_id"] for game in answer.json()["games"]]
        cursor = answer.json()["next_cursor"]
    assert len(seen) == len(set(seen)) == 3


@pytest.mark.parametrize("cursor", list(FORGED.values()), ids=list(FORGED))
def test_a_forged_cursor_is_an_invalid_cursor_problem(listing, cursor):
    assert_invalid_cursor(page(listing, cursor), cursor)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    raw=st.one_of(
        st.binary(max_size=140),
        st.builds(
            lambda time, game: b"%d:%s" % (time, game),
            st.integers(min_value=-(2**70), max_value=2**70),
            st.binary(max_size=24),
        ),
        st.builds(
            lambda time, game: f"{time}:{game}".encode(),
            st.integers(min_value=2**53, max_value=2**80),
            st.text(alphabet="0123456789abcdef", min_size=16, max_size=16),
        ),
    )
)
def test_any_cursor_is_a_page_or_an_invalid_cursor_problem_never_a_server_error(listing, raw):
    cursor = cursor_of(raw)[:200] or "A"
    answer = page(listing, cursor)
    if answer.status_code == 200:
        assert "games" in answer.json(), answer.text
    else:
        assert_invalid_cursor(answer, cursor)


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=st.text(min_size=1, max_size=60))
def test_any_text_as_a_cursor_is_a_page_or_an_invalid_cursor_problem(listing, text):
    answer = page(listing, text)
    if answer.status_code == 200:
        assert "games" in answer.json(), answer.text
    else:
        assert_invalid_cursor(answer, text)
