"""How long one caller's expert hints hold another caller's decision: the documented bound.

Real gunicorn and the run command's workers (one general worker, one for bot
opponents' moves) on a Redis of this module alone. A caller holds its whole
share of think time with two expert hints at the largest budget; another
caller's bot move, asked right after them, waits behind both on the one worker
serving decisions. Its wait is the promise under test
(``wait_bound_seconds``: the share's think time, a guard margin per search,
``JOB_START_SECONDS`` per job), so it is asserted: every expert search stops
``GUARD_MARGIN_MS`` of wall time past its budget however busy the machine,
and the bound's ``JOB_START_SECONDS`` a job is the margin for that load.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
import requests
from rq import Worker
from rq.job import Job
from rq.serializers import JSONSerializer

from service.bots.expert import GUARD_MARGIN_MS
from service.devtools.embedded_redis import EmbeddedRedis
from service.jobs.decision_shares import JOB_START_SECONDS, wait_bound_seconds
from service.jobs.names import DECISIONS
from service.serve.worker_commands import run_command_workers
from service.web.examples import POSITION
from tests.support.http import auth, session_from
from tests.support.servers import LiveServer, WorkerProcess
from tests.support.waiting import wait_until

HINTER = "127.0.0.2"
OTHER = "127.0.0.3"
SEAT_1 = "127.0.0.4"
#: The largest think time a decision may ask for (``SCHNAPSEN_BOT_SERVICE_MAX_BUDGET_MS``).
BUDGET_MS = 2000
#: A share of two such decisions: the hinting caller's two hints hold all of it.
SETTINGS = {"DECISION_MS_PER_CALLER": 2 * BUDGET_MS, "DECISIONS_PER_CALLER": 2}


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


def seat_to_move(base: str) -> tuple[str, str]:
    """A new two-player game of the hinting caller: its id and the token of the seat to move."""
    created = session_from(HINTER).post(f"{base}/v1/games", json={"seed": 9}, timeout=10).json()
    game_id = created["game_id"]
    joined = (
        session_from(SEAT_1)
        .post(f"{base}/v1/games/{game_id}/join", json={"invite": created["invite"]}, timeout=10)
        .json()
    )
    tokens = {0: created["token"], 1: joined["token"]}
    view = (
        session_from(HINTER)
        .get(f"{base}/v1/games/{game_id}", headers=auth(tokens[0]), timeout=10)
        .json()
    )
    return game_id, tokens[view["to_move"]]


def finished(base: str, job: dict[str, Any]) -> dict[str, Any]:
    """The job once it is finished or failed, waited for with the job's long-poll."""
    while job["status"] not in ("finished", "failed"):
        job = requests.get(f"{base}/v1/jobs/{job['id']}?wait=30", timeout=60).json()
    return job


def test_two_expert_hints_of_one_caller_hold_another_callers_bot_move_within_the_bound(
    service,
):
    base, connection, count = service
    wait_until(lambda: idle(connection, count), 120, "the workers to be idle")
    game_id, token = seat_to_move(base)
    hints = [
        session_from(HINTER).post(
            f"{base}/v1/games/{game_id}/hint",
            json={"level": "expert", "budget_ms": BUDGET_MS},
            headers=auth(token),
            timeout=10,
        )
        for _ in range(2)
    ]
    assert [hint.status_code for hint in hints] == [202, 202], [hint.text for hint in hints]

    started = time.monotonic()
    answer = session_from(OTHER).post(
        f"{base}/v1/bot/moves?wait=30",
        json={"position": POSITION, "level": "random"},
        timeout=60,
    )
    assert answer.status_code in (200, 202), answer.text
    job = finished(base, answer.json())
    waited = time.monotonic() - started
    assert job["status"] == "finished", job

    searches = []
    for hint in hints:
        done = finished(base, hint.json())
        assert done["status"] == "finished", done
        ran = Job.fetch(done["id"], connection=connection, serializer=JSONSerializer)
        searches.append((ran.ended_at - ran.started_at).total_seconds())
    bound = wait_bound_seconds(SETTINGS["DECISION_MS_PER_CALLER"], SETTINGS["DECISIONS_PER_CALLER"])
    print(
        f"the hints ran {', '.join(f'{s:.2f} s' for s in searches)} "
        f"(each at most {(BUDGET_MS + GUARD_MARGIN_MS) / 1000 + JOB_START_SECONDS:.2f} s); "
        f"the other caller's bot move took {waited:.2f} s (bound {bound:.2f} s)"
    )
    for search in searches:
        assert search <= (BUDGET_MS + GUARD_MARGIN_MS) / 1000 + JOB_START_SECONDS, searches
    assert waited <= bound, (waited, bound, searches)
