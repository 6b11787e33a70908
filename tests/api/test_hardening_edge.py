"""Edge cases of hostile input, each answered from the outside against gunicorn.

Every refusal must be a
4xx ``application/problem+json`` with a stable ``code`` and change nothing:
no event appended, no game created.
"""

from __future__ import annotations

import json

import pytest
import requests
from jsonschema import Draft202012Validator

from tests.support.games import create, new_game, to_move_view
from tests.support.http import Api, problem
from tests.support.log import log_head, log_unchanged
from tests.support.openapi_document import DOCUMENT, component
from tests.support.rawhttp import RawReply, exchange, request_bytes

PROBLEM_MEMBERS = ("type", "title", "status", "detail", "code")


@pytest.fixture(scope="module")
def api(live_server) -> Api:
    return Api.live(live_server.url)


def raw_problem(reply: RawReply, status: int, code: str) -> dict:
    """The problem body of a raw answer, asserting status, type, members and code."""
    assert reply.status == status, reply
    assert reply.content_type.split(";")[0].strip() == "application/problem+json", reply
    body = reply.json()
    for member in PROBLEM_MEMBERS:
        assert member in body, (member, body)
    assert body["status"] == status and body["code"] == code, body
    return body


# -- 5: a wait under a millisecond -------------------------------------------


@pytest.mark.parametrize("wait", ["0.0004", "0.0009", "1e-9", "0.001", "0"])
def test_a_sub_millisecond_wait_never_blocks_forever(api, live_server, wait):
    """``wait=0.0004`` was ``XREAD BLOCK 0``: it blocked until the Redis socket timed
    out (40 s), then 503. Now any wait > 0 blocks about that long (at least 1 ms)."""
    game = create(api)  # nobody joins: no event will come
    path = f"/v1/games/{game['game_id']}/events?after={game['version']}&wait={wait}"
    # The bound only ends a hanging request; the answer is what is asserted.
    reply = requests.get(live_server.url + path, timeout=15)
    assert reply.status_code == 200, reply.text
    assert reply.json()["events"] == [] and reply.json()["version"] == game["version"]


# -- 6: 500s from bad input --------------------------------------------------

HUGE = "9" * 5000  # beyond Python's 4,300 digits for int(str)
DEEP_LISTS = "[" * 3000 + "]" * 3000
DEEP_OBJECTS = '{"":' * 3000 + "0" + "}" * 3000  # 15 KB: under the body limit


def _post_cases(game, token):
    paths = {
        "create": "/v1/games",
        "join": f"{game.path}/join",
        "actions": f"{game.path}/actions",
        "hint": f"{game.path}/hint",
        "exports": f"{game.path}/exports",
        "bot-moves": "/v1/bot/moves",
    }
    for name, path in paths.items():
        for label, body in (("lists", DEEP_LISTS), ("objects", DEEP_OBJECTS)):
            yield f"deep-{label}-{name}", "POST", path, body, {}, 400, "json_too_deep"
    huge = [
        ("seed", "/v1/games", f'{{"seed": {HUGE}}}'),
        ("expected_version", f"{game.path}/actions",
         f'{{"type": "close_talon", "expected_version": {HUGE}}}'),
        ("budget_ms", "/v1/bot/moves", f'{{"position": {{}}, "budget_ms": {HUGE}}}'),
        ("negative", "/v1/games", f'{{"seed": -{HUGE}}}'),
    ]  # fmt: skip
    for name, path, body in huge:
        yield f"huge-{name}", "POST", path, body, {}, 400, "number_too_large"
    for job in ("hint-%E2%98%83", "hint-a.b", "move-%00", "export-a:b", "move-" + "a" * 300):
        yield f"job-{job[:12]}", "GET", f"/v1/jobs/{job}", None, {}, 404, "job_not_found"
    for value in ("\xb2", "1\xb2", HUGE, "-1", "+1", " 1 2"):
        headers = {"Last-Event-ID": value}
        yield (
            f"last-event-id-{value[:6]!r}",
            "GET",
            f"{game.path}/stream",
            None,
            headers,
            400,
            ("invalid_last_event_id"),
        )


@pytest.fixture(scope="module")
def played(api):
    """A running game whose seat to move is known."""
    game = new_game(api, seed=606, first_dealer=1)
    return game, to_move_view(api, game)


def test_bad_input_is_a_4xx_problem_not_a_500(api, live_server, redis_client, played):
    """Deep JSON (RecursionError), integers of 4,300+ digits (ValueError), job ids RQ
    refuses (ValueError) and a superscript digit in Last-Event-ID (``isdigit``, then
    ``int`` fails) were 500s. Each is now a 4xx problem and changes nothing."""
    game, mover = played
    token = game.tokens[mover["seat"]]
    failures = []
    for case, method, path, body, headers, status, code in _post_cases(game, token):
        sent = {"Authorization": f"Bearer {token}", **headers}
        if body is not None:
            sent["Content-Type"] = "application/json"
        data = request_bytes(method, path, sent.items(), (body or "").encode())
        with log_unchanged(redis_client, game.game_id):
            reply = exchange(live_server.port, data, head_only=path.endswith("/stream"))
        try:
            raw_problem(reply, status, code)
        except AssertionError:
            failures.append(f"{case}: {reply!r:.300}")
    assert not failures, "\n".join(failures)


# -- 7: chunked bodies -------------------------------------------------------


def test_chunked_bodies_get_the_content_checks(live_server, redis_client, played):
    """A chunked body skipped the media type check (a default game was created from
    a text/plain body), an oversized one answered 400, not 413, and a chunk size
    that is no number was a 500."""
    game, mover = played
    port = live_server.port
    with log_unchanged(redis_client, game.game_id):
        reply = exchange(port, request_bytes(
            "POST", "/v1/games", [("Content-Type", "text/plain")], chunks=[b"hello", b" there"]
        ))  # fmt: skip
        raw_problem(reply, 415, "unsupported_media_type")
        action = json.dumps(mover["deal"]["legal_actions"][0]).encode()
        seat = ("Authorization", f"Bearer {game.tokens[mover['seat']]}")
        reply = exchange(port, request_bytes(
            "POST", f"{game.path}/actions", [("Content-Type", "text/plain"), seat], chunks=[action]
        ))  # fmt: skip
        raw_problem(reply, 415, "unsupported_media_type")
        big = json.dumps({"variant": "head", "pad": "x" * 20_000}).encode()
        for pieces in ([big], [big[i : i + 1000] for i in range(0, len(big), 1000)]):
            reply = exchange(port, request_bytes(
                "POST", "/v1/games", [("Content-Type", "application/json")], chunks=pieces
            ))  # fmt: skip
            raw_problem(reply, 413, "payload_too_large")
        # Exactly the limit is still read whole: it is only too large past 16 KiB.
        exact = b'{"variant": "head"}' + b" " * (16 * 1024 - 19)
        assert len(exact) == 16 * 1024
        reply = exchange(port, request_bytes(
            "POST", f"{game.path}/join", [("Content-Type", "application/json")], chunks=[exact]
        ))  # fmt: skip
        raw_problem(reply, 422, "invalid_request")  # read whole: the schema speaks
    # Broken framing: a chunk size that is no number, a body that ends early.
    framings = {
        "bad-size": b"zz\r\n{}\r\n0\r\n\r\n",
        "bad-second-size": b"1\r\n{\r\nxyz\r\n}\r\n0\r\n\r\n",
        "truncated": b'20\r\n{"variant": ',
        "no-last-chunk": b"2\r\n{}\r\n",
    }
    for name, framing in framings.items():
        with log_unchanged(redis_client):
            reply = exchange(port, request_bytes(
                "POST", "/v1/games",
                [("Content-Type", "application/json"), ("Transfer-Encoding", "chunked")],
                framing,
            ))  # fmt: skip
            assert reply.status == 400, (name, reply)  # bad sizes were 500s
            raw_problem(reply, 400, "malformed_body")
    # A good chunked body is taken.
    reply = exchange(port, request_bytes(
        "POST", "/v1/games", [("Content-Type", "application/json")],
        chunks=[b'{"variant": ', b'"tracked"}'],
    ))  # fmt: skip
    assert reply.status == 201, reply
    assert reply.json()["game"]["variant"] == "tracked"


# -- 8: If-Match is a strong comparison ----------------------------------------


def test_if_match_uses_the_strong_comparison(api, redis_client):
    """``W/"5"`` and ``"5`` were taken as version 5 in If-Match. RFC 9110 13.1.1: the
    strong comparison, so a weak or broken tag never matches (412, nothing appended)."""
    game = new_game(api, seed=808, first_dealer=1)
    mover = to_move_view(api, game)
    version = mover["version"]
    action = mover["deal"]["legal_actions"][0]
    token = game.tokens[mover["seat"]]
    weak_or_broken = [f'W/"{version}"', f'w/"{version}"', f'"{version}', f'{version}"',
                      f'"{version}"x', f'W/"{version}", W/"{version + 1}"']  # fmt: skip
    with log_unchanged(redis_client, game.game_id):
        for tag in weak_or_broken:
            reply = api.post(
                f"{game.path}/actions", json_body=action, token=token, headers={"If-Match": tag}
            )
            problem(reply, 412, "precondition_failed")
        # Not an entity-tag at all: a bad request, as before.
        for tag in (str(version), "yesterday"):
            reply = api.post(
                f"{game.path}/actions", json_body=action, token=token, headers={"If-Match": tag}
            )
            problem(reply, 400, "invalid_if_match")
    reply = api.post(
        f"{game.path}/actions", json_body=action, token=token, headers={"If-Match": f'"{version}"'}
    )
    assert reply.status == 200, reply
    assert log_head(redis_client, game.game_id) == version + 1
    # If-None-Match keeps the weak comparison (RFC 9110 13.1.2).
    reply = api.get(game.path, token=token, headers={"If-None-Match": f'W/"{version + 1}"'})
    assert reply.status == 304, reply


# -- 9: gunicorn's own refusals ------------------------------------------------

GUNICORN_REFUSALS = [
    ("request-line-too-long", b"GET /v1/games/" + b"a" * 5000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
     414, "uri_too_long"),
    ("header-too-long", b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 9000 + b"\r\n\r\n",
     431, "headers_too_large"),
    ("too-many-headers", b"GET /healthz HTTP/1.1\r\nHost: x\r\n"
     + b"".join(b"X-H%d: a\r\n" % i for i in range(120)) + b"\r\n", 431, "headers_too_large"),
    ("garbage-request-line", b"GARBAGE\r\n\r\n", 400, "bad_request"),
    ("bad-method", b"G\x01T / HTTP/1.1\r\nHost: x\r\n\r\n", 400, "bad_request"),
    ("bad-version", b"GET / HTTP/7.1\r\nHost: x\r\n\r\n", 400, "bad_request"),
    ("bad-header-name", b"GET /healthz HTTP/1.1\r\nHost: x\r\nBad Name: 1\r\n\r\n",
     400, "bad_request"),
    ("control-in-header", b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\x00b\r\n\r\n",
     400, "bad_request"),
    ("bare-lf", b"GET /healthz HTTP/1.1\nHost: x\n\n", 400, "bad_request"),
    ("te-and-content-length", b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n"
     b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400, "bad_request"),
    ("expect-nonsense", b"GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: magic\r\n\r\n",
     417, "expectation_failed"),
    ("two-content-lengths", b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n"
     b"Content-Length: 2\r\nContent-Type: application/json\r\n\r\n{}", 400, "bad_request"),
    ("unknown-transfer-coding", b"POST /v1/games HTTP/1.1\r\nHost: x\r\n"
     b"Transfer-Encoding: foo, chunked\r\n\r\n0\r\n\r\n", 400, "unsupported_transfer_coding"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("request_data", "status", "code"),
    [case[1:] for case in GUNICORN_REFUSALS],
    ids=[case[0] for case in GUNICORN_REFUSALS],
)
def test_gunicorns_own_refusals_are_problem_json(live_server, request_data, status, code):
    """gunicorn answered these itself with text/html pages; every answer of the
    service is problem+json, and the connection closes (gunicorn cannot read on). The
    body is one openapi.yaml's Problem admits (its `instance` a `urn:uuid:`: no path was read)."""
    reply = exchange(live_server.port, request_data)
    raw_problem(reply, status, code)
    spec = Draft202012Validator({**component("Problem"), "components": DOCUMENT["components"]})
    assert not list(spec.iter_errors(json.loads(reply.body))), reply.body
    assert reply.headers.get("connection", "").lower() == "close", reply.headers
    assert int(reply.headers["content-length"]) == len(reply.body)
    # The server is still there for the next client.
    assert requests.get(f"{live_server.url}/healthz", timeout=10).ok


# -- 14: /events after a version beyond the head ---------------------------------


def test_events_after_the_head_is_422(api, redis_client):
    """``/events?after=<beyond the head>`` answered 200 and nothing, while /stream and
    /replay?at= answer 422 version_out_of_range for the same version."""
    created = create(api)
    gid, head = created["game_id"], created["version"]
    with log_unchanged(redis_client, gid):
        for query in (f"after={head + 1}", f"after={head + 50}&wait=0.2"):
            reply = api.get(f"/v1/games/{gid}/events?{query}")
            problem(reply, 422, "version_out_of_range")
        problem(api.get(f"/v1/games/{gid}/stream?after={head + 1}"), 422, "version_out_of_range")
        problem(api.get(f"/v1/games/{gid}/replay?at={head + 1}"), 422, "version_out_of_range")
    reply = api.get(f"/v1/games/{gid}/events?after={head}")
    assert reply.status == 200 and reply.json()["events"] == [], reply


# -- found by tests/faults/test_raw_fuzz.py ------------------------------------------


def test_fuzz_an_empty_id_is_a_404_not_a_redirect(live_server):
    """``/v1/games//events`` (an empty game id) answered a 308 HTML page redirecting
    to ``/v1/games/events``, another resource (the game "events")."""
    for path in ("/v1/games//events", "/v1/games//replay", "/v1//games"):
        reply = exchange(live_server.port, request_bytes("GET", path))  # no redirect followed
        raw_problem(reply, 404, "not_found")


def test_fuzz_a_failed_precondition_on_a_page_is_a_problem(api):
    """A static page with a failing If-Match answered 412 with the page as its body."""
    for page in ("/play/", "/replay/", "/docs/assets/swagger-ui.css"):
        problem(api.get(page, headers={"If-Match": '"nope"'}), 412, "precondition_failed")


def test_fuzz_a_body_short_of_its_content_length_is_refused(live_server, redis_client):
    """A body that ended before its Content-Length (the client stopped sending) was
    taken as complete and acted on: a game was created. An incomplete request is a 400."""
    body = b'{"variant": "tracked"}'
    head = [("Content-Type", "application/json"), ("Content-Length", str(len(body) + 10))]
    with log_unchanged(redis_client):
        reply = exchange(live_server.port, request_bytes("POST", "/v1/games", head, body))
        raw_problem(reply, 400, "malformed_body")
