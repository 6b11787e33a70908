"""A bot's move that meets a full store waits for room and is played, not lost.

The move's job (``workers.jobs.bot_move``) runs here, in a thread, on a Redis
of the test's own (the job code as a worker runs it, without RQ around it):
its append is refused while Redis is past its memory limit; once there is
room, the same job plays the move. The waits' timeouts only bound a hang.
"""

from __future__ import annotations

import threading
from typing import Any

import redis

from service.store.events import EventStore
from service.web.app import create_app
from tests.support.full_store import hold_full, make_room
from tests.support.http import Api, ok
from tests.support.paths import SECRET
from tests.support.waiting import wait_until
from workers import jobs
from workers.runtime import reset

HANG_BOUND = 60


def refusals(client: redis.Redis) -> int:
    """The error replies Redis has sent (a refused write is one)."""
    return int(client.info("stats")["total_error_replies"])


def test_a_bot_move_that_meets_a_full_store_is_played_once_there_is_room(own_redis, monkeypatch):
    monkeypatch.setenv("REDIS_URL", own_redis)
    monkeypatch.setenv("SCHNAPSEN_SECRET_KEY", SECRET)
    reset()  # the job's runtime reads the environment above
    client = redis.Redis.from_url(own_redis)
    api = Api(create_app({"REDIS_URL": own_redis, "SECRET_KEY": SECRET}).test_client())
    # The bot (seat 1) leads; no worker runs: this test runs its move's job itself.
    created = ok(
        api.post(
            "/v1/games",
            json_body={"opponent": {"type": "bot", "level": "random"}, "first_dealer": 0},
        ),
        201,
    )
    game_id, version = created["game_id"], created["version"]
    store = EventStore(client)

    hold_full(client)
    refused_before = refusals(client)
    outcome: dict[str, Any] = {}

    def run_the_job() -> None:
        try:
            outcome["result"] = jobs.bot_move(game_id, version)
        except Exception as error:  # the job failed: its move would wait for a read
            outcome["error"] = error

    job = threading.Thread(target=run_the_job, daemon=True)
    try:
        job.start()
        wait_until(lambda: refusals(client) > refused_before, HANG_BOUND, "a refused append")
        assert store.head(game_id) == version, "nothing is appended while the store is full"
        make_room(client)
        job.join(HANG_BOUND)
        assert not job.is_alive(), "the job did not end"
        assert "error" not in outcome, outcome.get("error")
        assert outcome["result"]["played"] is not None
        assert outcome["result"]["new_version"] == store.head(game_id) == version + 1
    finally:
        make_room(client)
        job.join(HANG_BOUND)
        reset()
