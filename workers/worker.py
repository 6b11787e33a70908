"""The worker command: ``schnapsen-worker`` or ``python -m workers``.

Runs RQ's forking worker with the JSON serializer and a scheduler (for
retries with backoff), by default on every queue in priority order:
``moves`` (bot opponents), ``decisions`` (the bot-move service, hints),
``exports``, then the legacy ``bots`` queue (drained; nothing is enqueued
there any more). ``--queues moves`` makes a worker that only moves bot
opponents, as the run command starts one.

Recovery, within ``RECOVERY_BOUND_SECONDS`` (15 s) of a ``kill -9`` of a
worker and its work horse, once another worker runs and is idle or between
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
"""

from __future__ import annotations

import argparse
import logging
import os
import sys

import redis
from rq import Queue, Worker
from rq.job import Job
from rq.serializers import JSONSerializer

from service.job_watch import announce_ended
from service.logs import configure_logging
from service.queue_names import LEGACY_QUEUES, QUEUES
from service.queues import PUBLIC_KINDS, job_kind, queue
from service.redis_clients import QueuesNotConfigured
from service.settings import from_env, queue_redis_url

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

log = logging.getLogger(__name__)


class SchnapsenWorker(Worker):
    """RQ's worker, tuned so that a killed worker's job is requeued within seconds.

    RQ's fixed minute of heartbeat slack and its 405 s blocking dequeue would
    make a player wait minutes for a killed worker's bot move.
    """

    def get_heartbeat_ttl(self, job: Job, working_time: float = 0.0) -> int:
        interval = self.job_monitoring_interval
        if job.timeout and job.timeout > 0:
            return int(min(job.timeout - working_time, interval)) + HEARTBEAT_SLACK
        return int(interval) + HEARTBEAT_SLACK

    def handle_job_success(self, job: Job, queue: Queue, *args: object, **kwargs: object) -> None:
        super().handle_job_success(job, queue, *args, **kwargs)  # type: ignore[arg-type]
        self._announce(job)

    def handle_job_failure(self, job: Job, queue: Queue, *args: object, **kwargs: object) -> None:
        super().handle_job_failure(job, queue, *args, **kwargs)  # type: ignore[arg-type]
        self._announce(job)

    def _announce(self, job: Job) -> None:
        """Wake the servers' waits for this job (``service.job_watch``); it is saved."""
        if job_kind(job.id) not in PUBLIC_KINDS:
            return
        try:
            announce_ended(self.connection, job.id)
        except redis.RedisError as error:  # the waits end at their deadline and look again
            log.warning("could not announce the end of job %s: %s", job.id, error)

    @property
    def dequeue_timeout(self) -> int:
        """Block on the queues no longer than a maintenance interval, so an idle worker's
        maintenance (the requeue of abandoned jobs) runs on time without any job arriving."""
        return max(1, int(self.maintenance_interval))


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
    parser.add_argument("--log-level", default=os.environ.get("SCHNAPSEN_LOG_LEVEL", "INFO"))
    args = parser.parse_args(argv)

    settings = from_env()
    if not settings["REDIS_URL"] and not settings["QUEUE_REDIS_URL"]:
        print("set REDIS_URL (and QUEUE_REDIS_URL if the queues live elsewhere)", file=sys.stderr)
        return 2
    url = queue_redis_url(settings)
    if url is None:  # the log is on a Redis Cluster, where RQ does not run
        print(QueuesNotConfigured.MESSAGE, file=sys.stderr)
        return 2
    connection = redis.Redis.from_url(url)
    queues = [queue(name.strip(), connection) for name in args.queues.split(",") if name.strip()]
    configure_logging(args.log_level.upper())  # JSON lines, like the API's
    worker = SchnapsenWorker(
        queues,
        name=args.name,
        connection=connection,
        serializer=JSONSerializer,
        job_monitoring_interval=args.monitoring_interval,
        maintenance_interval=args.maintenance_interval,
    )
    worker.work(with_scheduler=True, burst=args.burst, logging_level=args.log_level.upper())
    return 0


if __name__ == "__main__":
    sys.exit(main())
