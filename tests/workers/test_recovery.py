"""A worker killed in the middle of a bot job: the move still happens, exactly once."""

from __future__ import annotations

import time

import pytest
from rq.job import Job
from rq.results import Result
from rq.serializers import JSONSerializer

from service.app import create_app
from service.embedded_redis import EmbeddedRedis
from service.engine import ActionTaken, replay
from service.store import EventStore
from tests.conftest import SECRET, WorkerProcess
from workers.queues import bot_move_job_id


@pytest.fixture
def own_redis(tmp_path):
    """A Redis of this test alone, so no other worker can take the job."""
    server = EmbeddedRedis(tmp_path / "redis").start()
    try:
        yield server.url
    finally:
        server.stop()


def job_status(connection, job_id: str) -> str | None:
    raw = connection.hget(f"rq:job:{job_id}", "status")
    return raw.decode() if raw else None


def wait_until(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def test_sigkill_during_a_bot_job_still_gives_exactly_one_move(own_redis):
    app = create_app({"REDIS_URL": own_redis, "SECRET_KEY": SECRET})
    client = app.test_client()
    store = EventStore(app.extensions["schnapsen"]["redis"])
    connection = app.extensions["schnapsen"]["queues"]
    # The slow worker thinks 5 s per move, so the job is surely under way when killed.
    slow = WorkerProcess(own_redis, SCHNAPSEN_BOT_DELAY_MS="5000")
    try:
        created = client.post(
            "/v1/games",
            json={"opponent": {"type": "bot", "level": "random"}, "seed": 1, "first_dealer": 0},
        ).json
        game_id, version = created["game_id"], created["version"]
        job_id = bot_move_job_id(game_id, version)
        wait_until(lambda: job_status(connection, job_id) == "started", 30, "the job to start")
        slow.kill()
    finally:
        slow.stop()
    killed_at = time.monotonic()
    assert store.head(game_id) == version, "the killed job must not have moved"

    fresh = WorkerProcess(own_redis)
    try:
        wait_until(lambda: store.head(game_id) > version, 90, "the bot's move after the kill")
        recovered_in = time.monotonic() - killed_at
        # The bot may move on (a marriage is followed by its lead); wait for the human's turn.
        wait_until(lambda: replay(store.events(game_id)).to_move == 0, 30, "the human's turn")
        time.sleep(1.0)  # a duplicate would show up now
        log = store.events(game_id)
        wait_until(lambda: job_status(connection, job_id) == "finished", 30, "the job to finish")
        job = Job.fetch(job_id, connection=connection, serializer=JSONSerializer)
        results = [r for r in job.results() if r.type == Result.Type.SUCCESSFUL]
        assert len(results) == 1, "the killed run left no result; the retry exactly one"
        assert job.return_value()["played"] == log[version].action.to_dict()
        assert log[version].seat == 1, "the move after the kill is the bot's"
        # One bot move per version, each by its own job: no version was played twice.
        for index, event in enumerate(log):
            if isinstance(event, ActionTaken) and event.seat == 1:
                ran = Job.fetch(bot_move_job_id(game_id, index), connection=connection,
                                serializer=JSONSerializer).return_value()  # fmt: skip
                assert ran["played"] == event.action.to_dict()
                assert ran["new_version"] >= index + 1
        assert replay(log).to_move == 0
        print(f"bot move recovered {recovered_in:.1f} s after SIGKILL")
        assert recovered_in < 60
    finally:
        fresh.stop()
