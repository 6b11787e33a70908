"""A full Redis, over HTTP against gunicorn: writes answer 503 ``store_full``, reads go on.

The Redis is the test's own, limited to a little more memory than it holds
at the start; games are created until it refuses one. Rate limits are on
(with quotas no request reaches), so every request also counts in Redis, as
in production: a full store must not turn reads into refusals.
"""

from __future__ import annotations

import re

import pytest
import redis

from service.devtools.embedded_redis import EmbeddedRedis
from tests.support.full_store import hold_full, limit_to, make_room
from tests.support.http import Api, ok, problem
from tests.support.servers import LiveServer

#: Against a bot, with seat 0 (the creator) to lead: no bot move is queued.
NEW_GAME = {"opponent": {"type": "bot", "level": "random"}, "first_dealer": 1}
#: The room left in Redis for games: about 300 of them.
ROOM = 2 * 1024 * 1024
#: Far more games than the room holds (bounds the loop).
MAX_GAMES = 5000
#: Every request counts against these, and none reaches them.
LIMITS_ON = {
    "SCHNAPSEN_RATE_LIMIT_PER_TOKEN": "1000000",
    "SCHNAPSEN_RATE_LIMIT_PER_IP": "1000000",
    "SCHNAPSEN_GAMES_PER_ADDRESS_PER_HOUR": "1000000",
}


@pytest.fixture
def own_redis(tmp_path):
    server = EmbeddedRedis(tmp_path / "redis").start()
    try:
        yield server
    finally:
        server.stop()


def game_ids(client: redis.Redis, kind: str) -> set[str]:
    """The games that have a ``kind`` key (log, seats, snap) in Redis."""
    found = set()
    for key in client.scan_iter(f"sch:{{*}}:{kind}", count=1000):
        match = re.fullmatch(rf"sch:\{{(.+)\}}:{kind}", key.decode())
        if match:
            found.add(match.group(1))
    return found


@pytest.mark.timeout(300)  # bounds a hang
def test_a_full_store_answers_503_store_full_and_loses_no_acknowledged_game(own_redis):
    client = redis.Redis.from_url(own_redis.url)
    server = LiveServer(own_redis.url, env=LIMITS_ON)
    try:
        api = Api.live(server.url)
        limit_to(client, ROOM)
        acknowledged: dict[str, dict] = {}
        refused = None
        for _ in range(MAX_GAMES):
            reply = api.post("/v1/games", json_body=NEW_GAME)
            if reply.status != 201:
                refused = reply
                break
            created = reply.json()
            acknowledged[created["game_id"]] = created
        assert refused is not None, f"{MAX_GAMES} games fitted into {ROOM} bytes"
        problem(refused, 503, "store_full")
        assert int(refused.headers["Retry-After"]) > 0
        assert len(acknowledged) > 10, "the room held games before it was full"
        hold_full(client)  # every write is refused from here on, however small

        # No game is half-created: the logs, seats and snapshots in Redis are exactly
        # the acknowledged games'.
        for kind in ("log", "seats", "snap"):
            assert game_ids(client, kind) == set(acknowledged), kind

        # Every acknowledged game reads back whole while the store is full.
        for game_id, created in acknowledged.items():
            token = created["token"]
            view = ok(api.get(f"/v1/games/{game_id}", token=token))
            assert view["version"] == created["version"]
            assert view["deal"]["hand"] == created["game"]["deal"]["hand"]
            feed = ok(api.get(f"/v1/games/{game_id}/events?after=0", token=token))
            assert [event["version"] for event in feed["events"]] == list(
                range(1, created["version"] + 1)
            )
            assert feed["events"][0]["type"] == "game_created"
            replay = ok(api.get(f"/v1/games/{game_id}/replay", token=token))
            assert replay["state"]["version"] == created["version"]

        # An action refused for memory leaves its game where it was.
        game_id, created = next(iter(acknowledged.items()))
        action = created["game"]["deal"]["legal_actions"][0]
        path, token = f"/v1/games/{game_id}", created["token"]
        problem(api.post(f"{path}/actions", json_body=action, token=token), 503, "store_full")
        assert ok(api.get(path, token=token))["version"] == created["version"]

        # Room again: the same requests succeed.
        make_room(client)
        acted = ok(api.post(f"{path}/actions", json_body=action, token=token))
        assert acted["version"] == created["version"] + 1
        ok(api.post("/v1/games", json_body=NEW_GAME), 201)
    finally:
        server.stop()
