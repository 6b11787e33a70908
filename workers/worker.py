"""The worker command: ``schnapsen-worker`` or ``python -m workers``.

Runs RQ's forking worker on the ``bots`` and ``exports`` queues with the JSON
serializer and a scheduler (for retries with backoff).

Recovery: the worker heartbeats every ``--monitoring-interval`` seconds (2)
while a job runs. If the whole worker dies (kill -9, a lost machine), its job's
heartbeat lapses after that interval plus ``HEARTBEAT_SLACK`` (5 s), and the
next maintenance pass of any worker (every ``--maintenance-interval``, 5 s, and
at every worker's start) puts the job back on its queue. So a killed worker's
job runs again within about 15 seconds once a worker runs. A job whose
work-horse alone dies is retried at once.
"""

from __future__ import annotations

import argparse
import os
import sys

import redis
from rq import Worker
from rq.job import Job
from rq.serializers import JSONSerializer

from service.observability import configure_logging
from service.settings import from_env
from workers.queues import QUEUES, queue

HEARTBEAT_SLACK = 5


class SchnapsenWorker(Worker):
    """RQ's worker with a heartbeat slack of seconds instead of RQ's fixed minute."""

    def get_heartbeat_ttl(self, job: Job, working_time: float = 0.0) -> int:
        interval = self.job_monitoring_interval
        if job.timeout and job.timeout > 0:
            return int(min(job.timeout - working_time, interval)) + HEARTBEAT_SLACK
        return int(interval) + HEARTBEAT_SLACK


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="schnapsen-worker", description=__doc__.splitlines()[0])
    parser.add_argument("--queues", default=",".join(QUEUES), help="comma-separated queue names")
    parser.add_argument("--burst", action="store_true", help="stop when the queues are empty")
    parser.add_argument("--name", default=None)
    parser.add_argument("--monitoring-interval", type=int, default=2)
    parser.add_argument("--maintenance-interval", type=int, default=5)
    parser.add_argument("--log-level", default=os.environ.get("SCHNAPSEN_LOG_LEVEL", "INFO"))
    args = parser.parse_args(argv)

    settings = from_env()
    url = settings["QUEUE_REDIS_URL"] or settings["REDIS_URL"]
    if not url:
        print("set REDIS_URL (and QUEUE_REDIS_URL if the queues live elsewhere)", file=sys.stderr)
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
