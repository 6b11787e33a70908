"""Bots' jobs run in the worker's own process, and a job that hangs there is still bounded.

Without a work horse to kill, a bot queue's job that outlives its timeout is
interrupted by RQ's alarm and fails (the worker goes on to the next job); one
the alarm cannot interrupt ends the whole worker a little later
(``HARD_TIMEOUT_SLACK``), and another worker finds its job abandoned. Jobs are
enqueued by dotted name, as the service enqueues its own: a busy loop
(``timeit.timeit``), and a worker whose alarm signal is blocked
(``signal.pthread_sigmask``) for code that holds the interpreter. The waits'
timeouts only bound a hang; the times are printed, not asserted.
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from contextlib import suppress

import redis
from rq.job import Job
from rq.serializers import JSONSerializer

from service.jobs.names import DECISIONS, MOVES
from service.jobs.queues import queue
from service.store.events import EventStore
from service.web.app import create_app
from service.web.services import services
from tests.support.paths import SECRET
from tests.support.processes import alive, work_horses
from tests.support.servers import WorkerProcess
from tests.support.waiting import wait_until
from workers.worker import HARD_TIMEOUT_SLACK, RECOVERY_BOUND_SECONDS

#: The hanging jobs' own timeout (seconds).
JOB_TIMEOUT = 2
HANG_BOUND = 60


def enqueue(connection: redis.Redis, name: str, *args: object, **kwargs: object) -> Job:
    return queue(DECISIONS, connection).enqueue(
        name, *args, **kwargs, job_id=f"move-{uuid.uuid4().hex}", job_timeout=JOB_TIMEOUT
    )


def status(connection: redis.Redis, job: Job) -> str:
    return Job.fetch(job.id, connection=connection, serializer=JSONSerializer).get_status().value


def failure(connection: redis.Redis, job: Job) -> str:
    """The recorded failure of a job (its traceback, or why it was given up)."""
    latest = Job.fetch(job.id, connection=connection, serializer=JSONSerializer).latest_result()
    return (latest.exc_string if latest is not None else "") or ""


def test_a_bot_job_that_outlives_its_timeout_fails_and_its_worker_moves_the_next_bot(own_redis):
    app = create_app({"REDIS_URL": own_redis, "SECRET_KEY": SECRET})
    client = app.test_client()
    connection = services(app).queues
    store = EventStore(services(app).redis)
    worker = WorkerProcess(own_redis)
    try:
        busy = enqueue(connection, "timeit.timeit", stmt="pass", number=10**13)
        wait_until(lambda: status(connection, busy) == "started", HANG_BOUND, "the busy job")
        started = time.monotonic()
        assert work_horses(worker.process.pid) == set(), "a bot queue's job ran in a work horse"
        wait_until(lambda: status(connection, busy) == "failed", HANG_BOUND, "the timeout")
        print(f"busy job failed {time.monotonic() - started:.1f} s after it started "
              f"(its timeout: {JOB_TIMEOUT} s)")  # fmt: skip
        assert "JobTimeoutException" in failure(connection, busy)
        assert worker.process.poll() is None, "the worker itself must live on"

        # The same worker goes on: a bot opponent's move (queue "moves") arrives.
        created = client.post(
            "/v1/games",
            json={"opponent": {"type": "bot", "level": "random"}, "seed": 2, "first_dealer": 0},
        ).json
        version = created["version"]
        wait_until(lambda: store.head(created["game_id"]) > version, HANG_BOUND, "the bot move")
        assert worker.process.poll() is None
    finally:
        worker.stop()


def test_a_bot_job_its_alarm_cannot_interrupt_ends_the_worker_and_is_found_abandoned(own_redis):
    connection = redis.Redis.from_url(own_redis)
    worker = WorkerProcess(own_redis)
    fresh: WorkerProcess | None = None
    try:
        # Block the alarm in the worker's process, as code that holds the interpreter would.
        blocker = enqueue(connection, "signal.pthread_sigmask", signal.SIG_BLOCK, [signal.SIGALRM])
        wait_until(lambda: status(connection, blocker) in ("finished", "failed"), HANG_BOUND,
                   "the alarm to be blocked")  # fmt: skip
        stuck = enqueue(connection, "time.sleep", 3600)
        wait_until(lambda: status(connection, stuck) == "started", HANG_BOUND, "the stuck job")
        started = time.monotonic()
        code = wait_until(lambda: worker.process.poll(), HANG_BOUND, "the worker to end")
        print(f"worker ended {time.monotonic() - started:.1f} s after the stuck job started "
              f"(timeout {JOB_TIMEOUT} s + {HARD_TIMEOUT_SLACK} s), exit code {code}")  # fmt: skip
        assert code == 1
        assert not alive(worker.process.pid)
        with suppress(ProcessLookupError):  # what it left (RQ's scheduler): the run
            os.killpg(worker.process.pid, signal.SIGTERM)  # command's supervisor does this

        # Another worker's maintenance finds the job abandoned: it is not left "started".
        fresh = WorkerProcess(own_redis)
        wait_until(lambda: status(connection, stuck) == "failed",
                   HANG_BOUND + RECOVERY_BOUND_SECONDS, "the abandoned job to be failed")  # fmt: skip
        assert "AbandonedJobError" in failure(connection, stuck)
        # The fresh worker's alarm works: its queue "moves" is served as ever.
        assert queue(MOVES, connection).count == 0
    finally:
        worker.stop()
        if fresh is not None:
            fresh.stop()
