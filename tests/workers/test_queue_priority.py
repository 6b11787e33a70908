"""Long decisions of the bot-move service do not starve a bot opponent's move.

Real gunicorn on a Redis of this test alone, and worker processes started
with the run command's own command lines.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis
import requests
from rq import Worker
from rq.serializers import JSONSerializer

from service.devtools.embedded_redis import EmbeddedRedis
from service.jobs.names import LEGACY_QUEUES
from service.jobs.queues import queue as rq_queue
from service.serve.worker_commands import run_command_workers
from service.web.examples import POSITION
from tests.support.http import auth
from tests.support.servers import LiveServer, WorkerProcess
from tests.support.waiting import wait_until

#: The spec's example position (docs/workers.md's too): seat 0 leads the first trick.
OPENING = POSITION
UNFINISHED = ("queued", "started", "scheduled", "deferred")


@pytest.fixture
def service(tmp_path) -> Iterator[tuple[LiveServer, redis.Redis, int]]:
    """gunicorn and the run command's workers (one general worker) on a Redis of this test
    alone, so no other test's worker takes its jobs."""
    own_redis = EmbeddedRedis(tmp_path / "redis").start()
    server = LiveServer(own_redis.url)
    commands = run_command_workers(1, log_level="WARNING")
    workers = [WorkerProcess(own_redis.url, command) for _name, command in commands]
    try:
        yield server, redis.Redis.from_url(own_redis.url), len(workers)
    finally:
        for worker in workers:
            worker.stop()
        server.stop()
        own_redis.stop()


def idle_workers(connection: redis.Redis) -> int:
    workers = Worker.all(connection=connection, serializer=JSONSerializer)
    return sum(1 for worker in workers if worker.get_state() == "idle")


def test_long_service_decisions_do_not_starve_a_bot_opponents_move(service):
    server, connection, count = service
    base = server.url
    wait_until(lambda: idle_workers(connection) == count, 60, "the workers to be idle")
    decisions = []
    for seed in range(4):
        answer = requests.post(
            f"{base}/v1/bot/moves",
            json={"position": OPENING, "level": "expert", "budget_ms": 10_000, "seed": seed},
            timeout=10,
        )
        assert answer.status_code == 202, answer.text
        decisions.append(answer.json()["id"])

    # first_dealer 0: the bot at seat 1 is the non-dealer and leads (R1c).
    created = requests.post(
        f"{base}/v1/games",
        json={"opponent": {"type": "bot", "level": "random"}, "first_dealer": 0},
        timeout=10,
    ).json()
    game, version = created["game_id"], created["version"]

    def bot_moved() -> bool:
        feed = requests.get(
            f"{base}/v1/games/{game}/events?after={version}&wait=5",
            headers=auth(created["token"]),
            timeout=15,
        ).json()
        return any(e["type"] == "action_taken" and e["seat"] == 1 for e in feed["events"])

    wait_until(bot_moved, 120, "the bot's first move")
    # Observed after the move was appended: a decision unfinished now was unfinished then.
    statuses = [requests.get(f"{base}/v1/jobs/{job}", timeout=10).json()["status"]
                for job in decisions]  # fmt: skip
    assert any(status in UNFINISHED for status in statuses), (
        f"the bot's move waited behind every service decision: {statuses}"
    )

    first = requests.get(f"{base}/v1/jobs/{decisions[0]}?wait=30", timeout=40).json()
    assert first["status"] == "finished", first
    assert first["result"].get("budget_ms") == 2000, "a 10 s budget is clamped to the 2 s cap"


def test_a_job_left_on_the_old_bots_queue_still_runs(redis_client, worker):
    # Before the split every bot move waited on "bots"; a move queued there before an
    # upgrade must still run, or its job id would block the game's next enqueue.
    job = rq_queue(LEGACY_QUEUES[0], redis_client).enqueue("builtins.len", [1, 2, 3])
    wait_until(lambda: job.get_status() == "finished", 60, "the legacy queue's job")
    assert job.return_value() == 3
