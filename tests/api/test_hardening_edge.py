"""Edge cases found by review, each answered from the outside against gunicorn.

One test per finding (numbered as in the review). Every refusal must be a
4xx ``application/problem+json`` with a stable ``code`` and change nothing:
no event appended, no game created.
"""

from __future__ import annotations

import pytest
import requests

from tests.api.helpers import Api, create, problem
from tests.api.test_errors import log_unchanged
from tests.rawhttp import RawReply

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
def test_finding_5_a_sub_millisecond_wait_never_blocks_forever(api, live_server, wait):
    """``wait=0.0004`` was ``XREAD BLOCK 0``: it blocked until the Redis socket timed
    out (40 s), then 503. Now any wait > 0 blocks about that long (at least 1 ms)."""
    game = create(api)  # nobody joins: no event will come
    path = f"/v1/games/{game['game_id']}/events?after={game['version']}&wait={wait}"
    # The bound only ends a hanging request; the answer is what is asserted.
    reply = requests.get(live_server.url + path, timeout=15)
    assert reply.status_code == 200, reply.text
    assert reply.json()["events"] == [] and reply.json()["version"] == game["version"]


# -- 14: /events after a version beyond the head ---------------------------------


def test_finding_14_events_after_the_head_is_422(api, redis_client):
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
