"""The worker command: ``schnapsen-worker`` or ``python -m workers``.

Runs RQ's worker with the JSON serializer and a scheduler (for retries with
backoff), by default on every queue in priority order: ``moves`` (bot
opponents), ``decisions`` (the bot-move service, hints), ``exports``, then
the legacy ``bots`` queue (drained; nothing is enqueued there any more).
``--queues moves`` makes a worker that only moves bot opponents, as the run
command starts one.

Bots' jobs (``moves``, ``decisions``) run in the worker's own process: a fork
per job, its fresh connections and its exit cost more than a bot's thinking
(``benchmarks/bot_latency.py``: a random or heuristic bot's reply took
75-185 ms at the median with a work horse per job, 11-34 ms without).
Exports and analyses, long and memory-hungry, still run in a work horse of
their own. A job run in the worker's own process keeps the work horse's
guarantees:

- its heartbeat: a thread of the worker beats for it as the worker beats for
  a work horse, so a ``kill -9`` of the worker lapses it just the same;
- its timeout: RQ's alarm (SIGALRM) interrupts it at its timeout, and it fails
  (and is retried) as a work horse's job would; code that holds the
  interpreter so that the alarm cannot interrupt it (a native search) is
  ended with the whole worker ``HARD_TIMEOUT_SLACK`` s later (a watchdog that
  needs no interpreter: ``faulthandler``), and its job is found abandoned (and
  retried, if it has retries left) as a killed worker's is (below). The run
  command starts the worker again.

Recovery, within ``RECOVERY_BOUND_SECONDS`` (15 s) of a ``kill -9`` of a
worker (and its work horse, if it has one), once another worker runs and is idle or between
jobs (no other job needs to arrive):

- while a job runs, its worker heartbeats every ``MONITORING_INTERVAL`` (2 s),
  and each heartbeat keeps the job's execution alive for
  ``MONITORING_INTERVAL + HEARTBEAT_SLACK`` (5 s); after a kill it lapses
  within 5 s;
- every worker runs maintenance (which puts lapsed executions' jobs back on
  their queue, with a retry) every ``MAINTENANCE_INTERVAL`` (3 s) and at its
  start. RQ runs maintenance only between dequeues, and an idle RQ worker
  blocks in one dequeue for ``worker_ttl - 15`` s (405 s by default), so an
  idle worker here waits at most ``MAINTENANCE_INTERVAL`` per dequeue.

So a killed job runs again at most 5 + 3 s after the kill, plus the time to
run it (the test measures about 5 s). A job whose work horse alone dies is
retried at once by its worker.

A full Redis (past its ``maxmemory``) refuses RQ's own writes too: the worker
then stays up, takes no job, and (a worker of the archive queue) runs the
sweep in its own process to make room, until there is room again
(``workers/room.py``).
"""

from __future__ import annotations

import argparse
import faulthandler
import logging
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import TracebackType

import redis
from rq import Queue, Worker
from rq.executions import Execution
from rq.job import Job
from rq.serializers import JSONSerializer
from rq.worker import WorkerStatus

from service.jobs.clocks import enqueue_overdue
from service.jobs.names import ARCHIVE, DECISIONS, LEGACY_QUEUES, MOVES, QUEUES, WEBHOOKS
from service.jobs.queues import PUBLIC_KINDS, enqueue_sweep, job_kind, queue
from service.jobs.watch import announce_ended
from service.jobs.webhook_outbox import AppOutboxes
from service.ops.logs import configure_logging
from service.ops.settings import SettingError, from_env, queue_redis_url
from service.store.redis_clients import QueuesNotConfigured
from workers.room import RoomKeeping
from workers.runtime import runtime
from workers.tournaments import ask_what_was_lost

#: A killed worker's bot move runs again within this many seconds (see above).
RECOVERY_BOUND_SECONDS = 15
#: Seconds between heartbeats of a running job.
MONITORING_INTERVAL = 2
#: A running job's execution lives this much longer than its heartbeat interval:
#: small, for a fast recovery; large enough that a busy machine's late heartbeat
#: does not make a live job look abandoned (a bot move would still append once).
HEARTBEAT_SLACK = 3
#: Seconds between maintenance passes (requeueing abandoned jobs), idle or not.
MAINTENANCE_INTERVAL = 3
#: Seconds between sweeps for tournaments' lost jobs (``workers.tournaments``), by one
#: worker of the ``moves`` queue at a time.
TOURNAMENT_SWEEP_SECONDS = 10
#: Held by the worker whose maintenance sweeps the tournaments, for the interval.
TOURNAMENT_SWEEP_KEY = "schnapsen:tournaments:sweep"
#: Jobs of these queues run in the worker's own process (no work horse): short jobs,
#: whose fork would cost more than their work.
IN_PROCESS_QUEUES = frozenset({MOVES, DECISIONS, WEBHOOKS, ARCHIVE})
#: A job run in the worker's own process that outlives its timeout by this many
#: seconds (the alarm could not interrupt it) ends the worker.
HARD_TIMEOUT_SLACK = 10

log = logging.getLogger(__name__)

#: RQ's worker methods whose INFO lines an idle worker writes on every maintenance pass
#: (every ``MAINTENANCE_INTERVAL`` s, per worker): they are written at DEBUG here.
IDLE_LOOP_METHODS = frozenset({"clean_registries", "clean_group_registries"})


class IdleLoopAtDebug(logging.Filter):
    """RQ's maintenance lines at DEBUG: an idle service writes nothing at INFO.

    RQ logs "cleaning registries" at INFO on every maintenance pass, which here runs
    every few seconds (see the module docstring): about a hundred lines a minute
    from a service that does nothing. Its start, stop and job lines stay at INFO.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno == logging.INFO and record.funcName in IDLE_LOOP_METHODS:
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)
        return True


def quiet_idle_loop() -> None:
    """Attach ``IdleLoopAtDebug`` to RQ's worker logger (once)."""
    rq_log = logging.getLogger("rq.worker")
    if not any(isinstance(f, IdleLoopAtDebug) for f in rq_log.filters):
        rq_log.addFilter(IdleLoopAtDebug())


class HeartbeatKeeper:
    """Beats for a job that runs in the worker's own process, as the worker beats for its
    work horse: every ``MONITORING_INTERVAL`` until the job's execution has ended.

    A thread, so a busy job keeps its heartbeat; it stops (under a lock) before the
    worker records the job's end, so no beat comes after it.
    """

    def __init__(self, worker: Worker, job: Job, execution: Execution):
        self._worker, self._job, self._execution = worker, job, execution
        self._stopped = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._beat, name="job-heartbeat", daemon=True)

    def __enter__(self) -> HeartbeatKeeper:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()
        self._thread.join(timeout=5)

    def stop(self) -> None:
        with self._lock:
            self._stopped.set()

    def _beat(self) -> None:
        while not self._stopped.wait(self._worker.job_monitoring_interval):
            with self._lock:
                if self._stopped.is_set():
                    return
                try:
                    self._worker.maintain_heartbeats(self._job, self._execution)
                except redis.RedisError as error:  # the next beat tries again
                    log.warning("heartbeat of job %s failed: %s", self._job.id, error)


@contextmanager
def hard_timeout(seconds: float) -> Iterator[None]:
    """End the process (exit code 1, the threads' stacks on stderr) if the block runs
    ``seconds`` longer: a watchdog thread of the interpreter's own that needs no
    interpreter lock, so code that holds it cannot outlive its bound."""
    faulthandler.dump_traceback_later(seconds, exit=True)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()


class SchnapsenWorker(Worker):
    """RQ's worker, tuned so that a killed worker's job is requeued within seconds.

    RQ's fixed minute of heartbeat slack and its 405 s blocking dequeue would
    make a player wait minutes for a killed worker's bot move.
    """

    def get_heartbeat_ttl(self, job: Job, working_time: float = 0.0) -> int:
        """At most a heartbeat interval plus the slack; never less than a second plus the
        slack: past its timeout (a job its alarm cannot interrupt, until the hard
        timeout ends the worker) a negative time to live would keep the job's
        execution in the registry for ever, and no worker would ever requeue it."""
        interval = self.job_monitoring_interval
        if job.timeout and job.timeout > 0:
            return int(max(min(job.timeout - working_time, interval), 1)) + HEARTBEAT_SLACK
        return int(interval) + HEARTBEAT_SLACK

    _keeper: HeartbeatKeeper | None = None

    def execute_job(self, job: Job, queue: Queue) -> None:
        """Bots' jobs in this process (see the module docstring); others in a work horse."""
        if queue.name not in IN_PROCESS_QUEUES:
            super().execute_job(job, queue)
            return
        execution = self.prepare_execution(job)
        timeout = job.timeout if job.timeout and job.timeout > 0 else queue.DEFAULT_TIMEOUT
        self._keeper = HeartbeatKeeper(self, job, execution)
        try:
            with self._keeper, hard_timeout(timeout + HARD_TIMEOUT_SLACK):
                self.perform_job(job, queue, execution)
        finally:
            self._keeper = None
            # A job that ended early in ``perform_job`` may leave its execution behind.
            self.executions.pop(execution.id, None)
        self.set_state(WorkerStatus.IDLE)

    def handle_execution_ended(self, job: Job, queue: Queue, heartbeat_ttl: int) -> None:
        """The job has returned or raised: no heartbeat may come after its end is saved."""
        if self._keeper is not None:
            self._keeper.stop()
        super().handle_execution_ended(job, queue, heartbeat_ttl)

    def handle_job_success(self, job: Job, queue: Queue, *args: object, **kwargs: object) -> None:
        super().handle_job_success(job, queue, *args, **kwargs)  # type: ignore[arg-type]
        self._announce(job)

    def handle_job_failure(self, job: Job, queue: Queue, *args: object, **kwargs: object) -> None:
        super().handle_job_failure(job, queue, *args, **kwargs)  # type: ignore[arg-type]
        self._announce(job)

    def _announce(self, job: Job) -> None:
        """Wake the servers' waits for this job (``service.jobs.watch``); it is saved."""
        if job_kind(job.id) not in PUBLIC_KINDS:
            return
        try:
            announce_ended(self.connection, job.id)
        except redis.RedisError as error:  # the waits end at their deadline and look again
            log.warning("could not announce the end of job %s: %s", job.id, error)

    def kill_horse(self, sig: signal.Signals = signal.SIGKILL) -> None:
        """Without a work horse (a job in this process) there is nothing to kill: RQ's
        own would signal the worker's own process group."""
        if self.horse_pid:
            super().kill_horse(sig)

    #: Seconds between sweeps of the games' lifecycle (``workers.jobs.sweep``); set by
    #: ``main`` from ``SWEEP_SECONDS``; None: this worker asks for none.
    sweep_seconds: float | None = None

    def run_maintenance_tasks(self) -> None:
        """RQ's maintenance; then the clocks' jobs that RQ's scheduler left overdue (its
        lock outlives a killed worker by a minute: ``service.jobs.clocks``) and the
        tournaments' lost jobs (``_sweep_tournaments``); then the apps
        whose webhook turn was lost (``AppOutboxes.recover``, every 10 s); then a sweep
        asked for when one is due: any worker of the archive queue may ask, and one a
        ``sweep_seconds`` gets it (``enqueue_sweep``)."""
        super().run_maintenance_tasks()
        if MOVES in self.queue_names():
            try:
                enqueue_overdue(self.connection)
            except redis.RedisError as error:  # the next pass looks again
                log.warning("could not move overdue clocks: %s", error)
            self._sweep_tournaments()
        if WEBHOOKS in self.queue_names():
            try:
                AppOutboxes(self.connection).recover()
            except redis.RedisError as error:  # the next pass looks again
                log.warning("could not look for lost webhook turns: %s", error)
        if self.sweep_seconds is None or ARCHIVE not in self.queue_names():
            return
        try:
            enqueue_sweep(self.connection, self.sweep_seconds)
        except redis.RedisError as error:  # the next pass asks again
            log.warning("could not ask for a sweep: %s", error)

    def _sweep_tournaments(self) -> None:
        """Ask again for tournaments' lost rounds and counts (``ask_what_was_lost``): one
        worker every ``TOURNAMENT_SWEEP_SECONDS``, whoever takes the key first."""
        try:
            if runtime().tournaments is None or not self.connection.set(
                TOURNAMENT_SWEEP_KEY, self.name, nx=True, ex=TOURNAMENT_SWEEP_SECONDS
            ):
                return
            ask_what_was_lost()
        except Exception:  # a sweep is never worth a worker: the next one looks again
            log.exception("could not sweep the tournaments for lost jobs")

    @property
    def dequeue_timeout(self) -> int:
        """Block on the queues no longer than a maintenance interval, so an idle worker's
        maintenance (the requeue of abandoned jobs) runs on time without any job arriving."""
        return max(1, int(self.maintenance_interval))


class ServiceWorker(RoomKeeping, SchnapsenWorker):
    """The worker command's worker: ``SchnapsenWorker``'s jobs and quick recovery, and it
    lives through a full store, making room while it waits (``workers/room.py``)."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="schnapsen-worker", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--queues",
        default=",".join(QUEUES + LEGACY_QUEUES),
        help="comma-separated queue names, the first served first",
    )
    parser.add_argument("--burst", action="store_true", help="stop when the queues are empty")
    parser.add_argument("--name", default=None)
    parser.add_argument("--monitoring-interval", type=int, default=MONITORING_INTERVAL)
    parser.add_argument("--maintenance-interval", type=int, default=MAINTENANCE_INTERVAL)
    try:
        settings = from_env()  # the one read of the environment
    except SettingError as error:
        print(error, file=sys.stderr)
        return 2
    parser.add_argument("--log-level", default=settings.log_level)
    args = parser.parse_args(argv)

    if not settings.redis_url and not settings.queue_redis_url:
        print("set REDIS_URL (and QUEUE_REDIS_URL if the queues live elsewhere)", file=sys.stderr)
        return 2
    url = queue_redis_url(settings)
    if url is None:  # the log is on a Redis Cluster, where RQ does not run
        print(QueuesNotConfigured.MESSAGE, file=sys.stderr)
        return 2
    connection = redis.Redis.from_url(url)
    queues = [queue(name.strip(), connection) for name in args.queues.split(",") if name.strip()]
    configure_logging(args.log_level.upper())  # JSON lines, like the API's
    quiet_idle_loop()
    import workers.jobs  # noqa: F401  (the bots load once, not in the first player's move)

    worker = ServiceWorker(
        queues,
        name=args.name,
        connection=connection,
        serializer=JSONSerializer,
        job_monitoring_interval=args.monitoring_interval,
        maintenance_interval=args.maintenance_interval,
    )
    if settings.archive_url:
        worker.sweep_seconds = settings.sweep_seconds
        if ARCHIVE in worker.queue_names():  # the archive queue's jobs are what frees memory
            worker.make_room = workers.jobs.sweep
    worker.work(with_scheduler=True, burst=args.burst, logging_level=args.log_level.upper())
    return 0


if __name__ == "__main__":
    sys.exit(main())
