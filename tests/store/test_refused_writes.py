"""A full Redis refuses a command's append whole: no half game, no half action.

The append script's first write is its first XADD, and Redis refuses a
script's first write when it started over ``maxmemory`` (a script that has
written goes on to its end), so a refused append leaves every key of the
game as it was. The app runs in this process on a Redis of the test's own.
"""

from __future__ import annotations

import pytest
import redis
from rq.job import Job
from rq.serializers import JSONSerializer

from service.devtools.embedded_redis import EmbeddedRedis
from service.jobs.queues import bot_move_job_id
from service.store.events import keys
from service.web.app import create_app
from tests.support.full_store import hold_full, make_room
from tests.support.http import Api, ok, problem
from tests.support.paths import SECRET


@pytest.fixture
def own_redis(tmp_path):
    server = EmbeddedRedis(tmp_path / "redis").start()
    try:
        yield server
    finally:
        server.stop()


def game_keys(client: redis.Redis, game_id: str) -> dict[str, bytes | None]:
    """Every key of a game, dumped byte for byte (None: absent)."""
    return {name: client.dump(key) for name, key in keys(game_id).items()}


def test_a_create_and_an_action_refused_for_memory_write_nothing(own_redis):
    client = redis.Redis.from_url(own_redis.url)
    api = Api(create_app({"REDIS_URL": own_redis.url, "SECRET_KEY": SECRET}).test_client())
    created = ok(api.post("/v1/games", json_body={"first_dealer": 1}), 201)
    game_id, token = created["game_id"], created["token"]
    invite = created["invite"]
    ok(api.post(f"/v1/games/{game_id}/join", json_body={"invite": invite}), 201)
    view = ok(api.get(f"/v1/games/{game_id}", token=token))
    action = view["deal"]["legal_actions"][0]
    before = game_keys(client, game_id)
    every_key = set(client.keys("*"))

    hold_full(client)
    problem(api.post("/v1/games", json_body={}), 503, "store_full")
    keyed = {"Idempotency-Key": "first-lead"}
    refused = api.post(f"/v1/games/{game_id}/actions", json_body=action, token=token, headers=keyed)
    assert problem(refused, 503, "store_full")["detail"]
    assert refused.headers["Retry-After"]
    assert game_keys(client, game_id) == before, "a refused action changed the game's keys"
    assert set(client.keys("*")) == every_key, "a refused create left keys behind"

    # The key was not remembered with a refused append: its retry with room acts once.
    make_room(client)
    first = api.post(f"/v1/games/{game_id}/actions", json_body=action, token=token, headers=keyed)
    assert ok(first)["version"] == view["version"] + 1
    assert "Idempotent-Replayed" not in first.headers
    again = api.post(f"/v1/games/{game_id}/actions", json_body=action, token=token, headers=keyed)
    assert ok(again)["version"] == view["version"] + 1
    assert again.headers["Idempotent-Replayed"] == "true"


def test_rate_limits_judge_requests_without_counting_them_while_the_store_is_full(own_redis):
    client = redis.Redis.from_url(own_redis.url)
    app = create_app({"REDIS_URL": own_redis.url, "SECRET_KEY": SECRET, "RATE_LIMIT_PER_IP": 3})
    test_client = app.test_client()

    def get(address: str) -> int:
        answer = test_client.get("/v1/games/nowhere", environ_base={"REMOTE_ADDR": address})
        return answer.status_code

    assert [get("127.0.0.2") for _ in range(4)] == [404, 404, 404, 429]
    counters = {key: client.get(key) for key in client.keys("sch:rl:*")}
    hold_full(client)
    assert get("127.0.0.2") == 429, "a caller past its limit stays refused"
    assert get("127.0.0.3") == 404, "a caller within its limit is served"
    assert {key: client.get(key) for key in client.keys("sch:rl:*")} == counters


def test_a_view_that_asks_again_for_a_bot_move_answers_while_the_store_is_full(own_redis):
    client = redis.Redis.from_url(own_redis.url)
    api = Api(create_app({"REDIS_URL": own_redis.url, "SECRET_KEY": SECRET}).test_client())
    # The bot (seat 1) leads: its move is asked for at once; no worker takes it here.
    created = ok(
        api.post(
            "/v1/games",
            json_body={"opponent": {"type": "bot", "level": "random"}, "first_dealer": 0},
        ),
        201,
    )
    game_id, version = created["game_id"], created["version"]
    job_id = bot_move_job_id(game_id, version)
    # As if the ask had been refused: the game's view must ask again.
    Job.fetch(job_id, connection=client, serializer=JSONSerializer).delete()

    hold_full(client)
    view = ok(api.get(f"/v1/games/{game_id}", token=created["token"]))
    assert view["version"] == version and view["to_move"] == 1
    assert not client.exists(Job.key_for(job_id))

    make_room(client)
    ok(api.get(f"/v1/games/{game_id}", token=created["token"]))
    assert client.hget(Job.key_for(job_id), "status") == b"queued"
