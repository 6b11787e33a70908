"""One caller flooding hints or bot moves does not hold the decision workers from others.

Real gunicorn and the run command's workers (one general worker, one for bot
opponents' moves) on a Redis of this module alone. The flooder sends from one
127.x address (hints with one seat's token); the other caller from another.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import redis
import requests
from rq import Worker
from rq.job import Job
from rq.serializers import JSONSerializer

from service.devtools.embedded_redis import EmbeddedRedis
from service.jobs.decision_shares import wait_bound_seconds
from service.jobs.names import DECISIONS
from service.serve.worker_commands import run_command_workers
from service.web.examples import POSITION
from tests.support.http import auth, session_from
from tests.support.servers import LiveServer, WorkerProcess
from tests.support.waiting import wait_until

FLOODER = "127.0.0.2"
OTHER = "127.0.0.3"
SEAT_1 = "127.0.0.4"
#: The settings of this module's server: one decision of the largest think time at once.
SETTINGS = {"DECISION_MS_PER_CALLER": 2000, "DECISIONS_PER_CALLER": 2}
FLOOD = 40


@pytest.fixture(scope="module")
def service(tmp_path_factory) -> Iterator[tuple[str, redis.Redis, int]]:
    own_redis = EmbeddedRedis(tmp_path_factory.mktemp("redis")).start()
    env = {f"SCHNAPSEN_{name}": str(value) for name, value in SETTINGS.items()}
    server = LiveServer(own_redis.url, env={"SCHNAPSEN_LOG_LEVEL": "WARNING", **env})
    commands = run_command_workers(1, log_level="WARNING")
    workers = [WorkerProcess(own_redis.url, command) for _name, command in commands]
    try:
        yield server.url, redis.Redis.from_url(own_redis.url), len(workers)
    finally:
        for worker in workers:
            worker.stop()
        server.stop()
        own_redis.stop()


def idle(connection: redis.Redis, count: int) -> bool:
    workers = Worker.all(connection=connection, serializer=JSONSerializer)
    busy = sum(1 for worker in workers if worker.get_state() != "idle")
    return len(workers) == count and busy == 0 and connection.llen(f"rq:queue:{DECISIONS}") == 0


def hint_flood(base: str, addresses: list[str]) -> list[requests.Response]:
    """Expert hints at the largest think time, all with the token of the seat to move,
    sent from ``addresses`` in turn."""
    created = session_from(FLOODER).post(f"{base}/v1/games", json={"seed": 9}, timeout=10).json()
    joined = (
        session_from(SEAT_1)
        .post(
            f"{base}/v1/games/{created['game_id']}/join",
            json={"invite": created["invite"]},
            timeout=10,
        )
        .json()
    )
    tokens = {0: created["token"], 1: joined["token"]}
    view = (
        session_from(FLOODER)
        .get(f"{base}/v1/games/{created['game_id']}", headers=auth(tokens[0]), timeout=10)
        .json()
    )
    token = tokens[view["to_move"]]

    def hint(number: int) -> requests.Response:
        return session_from(addresses[number % len(addresses)]).post(
            f"{base}/v1/games/{created['game_id']}/hint",
            json={"level": "expert", "budget_ms": 2000},
            headers=auth(token),
            timeout=30,
        )

    with ThreadPoolExecutor(8) as pool:
        return list(pool.map(hint, range(FLOOD)))


def flood_hints(base: str) -> list[requests.Response]:
    return hint_flood(base, [FLOODER])


def flood_hints_from_many_addresses(base: str) -> list[requests.Response]:
    """One seat's token is one share, from wherever it is sent."""
    return hint_flood(base, [f"127.0.1.{n}" for n in range(1, FLOOD + 1)])


def flood_bot_moves(base: str) -> list[requests.Response]:
    flooder = session_from(FLOODER)

    def move(seed: int) -> requests.Response:
        return flooder.post(
            f"{base}/v1/bot/moves",
            json={"position": POSITION, "level": "expert", "budget_ms": 2000, "seed": seed},
            timeout=30,
        )

    with ThreadPoolExecutor(8) as pool:
        return list(pool.map(move, range(FLOOD)))


@pytest.mark.parametrize(
    "flood",
    [flood_hints, flood_hints_from_many_addresses, flood_bot_moves],
    ids=["hints", "one_token_many_addresses", "bot_moves"],
)
def test_a_flooding_caller_gets_429s_and_another_callers_cheap_decision_waits_within_the_bound(
    service, flood
):
    base, connection, count = service
    wait_until(lambda: idle(connection, count), 120, "the workers to be idle")
    answers = flood(base)
    accepted = [answer for answer in answers if answer.status_code == 202]
    refused = [answer for answer in answers if answer.status_code != 202]
    assert accepted, [answer.text for answer in answers[:3]]
    assert len(accepted) <= SETTINGS["DECISIONS_PER_CALLER"]
    assert refused, "the flooder was never refused"
    for answer in refused:
        assert answer.status_code == 429, answer.text
        assert answer.headers["Content-Type"].startswith("application/problem+json")
        assert answer.json()["code"] == "too_many_decisions"
        assert int(answer.headers["Retry-After"]) >= 1

    # Another caller's cheap decision, from another address, asked right after the flood.
    started = time.monotonic()
    cheap = session_from(OTHER).post(
        f"{base}/v1/bot/moves?wait=30",
        json={"position": POSITION, "level": "random"},
        timeout=60,
    )
    waited = time.monotonic() - started
    job: dict[str, Any] = cheap.json()
    while job["status"] not in ("finished", "failed"):  # the wait cap ran out: keep polling
        job = requests.get(f"{base}/v1/jobs/{job['id']}?wait=30", timeout=60).json()
        waited = time.monotonic() - started
    bound = wait_bound_seconds(SETTINGS["DECISION_MS_PER_CALLER"], SETTINGS["DECISIONS_PER_CALLER"])
    print(f"the other caller's decision took {waited:.1f} s (bound {bound:.1f} s)")
    assert job["status"] == "finished", job
    assert waited <= bound, (waited, bound)  # the documented bound is the promise here
    # The bound holds because the other decision waits behind the flooder's share only:
    # no more of its decisions started before the other one than its share lets it hold.
    other = Job.fetch(job["id"], connection=connection, serializer=JSONSerializer)
    ahead = [
        Job.fetch(answer.json()["id"], connection=connection, serializer=JSONSerializer)
        for answer in accepted
    ]
    started_first = [j for j in ahead if j.started_at and j.started_at <= other.started_at]
    assert len(started_first) <= SETTINGS["DECISIONS_PER_CALLER"], len(started_first)

    # Once its decisions are done, the flooder's share is free again.
    wait_until(lambda: idle(connection, count), 120, "the flooder's decisions to finish")
    again = session_from(FLOODER).post(
        f"{base}/v1/bot/moves", json={"position": POSITION, "level": "random"}, timeout=10
    )
    assert again.status_code == 202, again.text


def test_hints_and_bot_moves_share_one_budget_per_caller(tmp_path):
    """No worker runs: whatever is admitted stays queued, and so holds its share."""
    own_redis = EmbeddedRedis(tmp_path / "redis").start()
    env = {f"SCHNAPSEN_{name}": str(value) for name, value in SETTINGS.items()}
    server = LiveServer(own_redis.url, env={"SCHNAPSEN_LOG_LEVEL": "WARNING", **env})
    try:
        base = server.url
        created = session_from(FLOODER).post(f"{base}/v1/games", json={"seed": 3}, timeout=10)
        game = created.json()
        joined = (
            session_from(SEAT_1)
            .post(
                f"{base}/v1/games/{game['game_id']}/join",
                json={"invite": game["invite"]},
                timeout=10,
            )
            .json()
        )
        tokens = {0: game["token"], 1: joined["token"]}
        view = (
            session_from(FLOODER)
            .get(f"{base}/v1/games/{game['game_id']}", headers=auth(tokens[0]), timeout=10)
            .json()
        )
        token = tokens[view["to_move"]]

        def hint(address: str, budget_ms: int) -> requests.Response:
            return session_from(address).post(
                f"{base}/v1/games/{game['game_id']}/hint",
                json={"level": "expert", "budget_ms": budget_ms},
                headers=auth(token),
                timeout=10,
            )

        def bot_move(address: str, level: str, budget_ms: int | None = None) -> requests.Response:
            body = {"position": POSITION, "level": level}
            if budget_ms is not None:
                body["budget_ms"] = budget_ms
            return session_from(address).post(f"{base}/v1/bot/moves", json=body, timeout=10)

        # The caller's one bot move holds all its think time: its hint is refused ...
        assert bot_move(FLOODER, "expert", 2000).status_code == 202
        refused = hint(FLOODER, 100)
        assert refused.status_code == 429, refused.text
        assert refused.json()["code"] == "too_many_decisions"
        # ... while the same seat's hint from another caller is not.
        assert hint(OTHER, 100).status_code == 202
        # A level that does not search costs no think time, but counts as a decision.
        assert bot_move(FLOODER, "random").status_code == 202
        counted = bot_move(FLOODER, "random")
        assert counted.status_code == 429, counted.text
        assert queued_decisions(own_redis.url) == 3
    finally:
        server.stop()
        own_redis.stop()


def queued_decisions(url: str) -> int:
    """The decisions queued."""
    return redis.Redis.from_url(url).llen(f"rq:queue:{DECISIONS}")


def test_a_full_decisions_queue_answers_503_however_many_addresses_ask(tmp_path):
    """Shares bound each caller; the queue's depth bounds them all together. No worker
    runs, so every admitted decision stays queued."""
    own_redis = EmbeddedRedis(tmp_path / "redis").start()
    env = {"SCHNAPSEN_DECISION_QUEUE_MAX_JOBS": "3", "SCHNAPSEN_LOG_LEVEL": "WARNING"}
    server = LiveServer(own_redis.url, env=env)
    connection = redis.Redis.from_url(own_redis.url)
    try:
        answers = [
            session_from(f"127.0.2.{n}").post(
                f"{server.url}/v1/bot/moves",
                json={"position": POSITION, "level": "random"},
                timeout=10,
            )
            for n in range(1, 6)
        ]
        assert [answer.status_code for answer in answers] == [202, 202, 202, 503, 503]
        for refused in answers[3:]:
            assert refused.headers["Content-Type"].startswith("application/problem+json")
            assert refused.json()["code"] == "queue_full"
            assert int(refused.headers["Retry-After"]) >= 1
        assert connection.llen(f"rq:queue:{DECISIONS}") == 3
    finally:
        server.stop()
        own_redis.stop()
