"""Readiness (GET /readyz): the log's Redis and the queues' Redis answer, a worker serves each queue.

Each check waits at most ``READINESS_TIMEOUT_SECONDS`` on its own
short-timeout client (``quick_client``), so readiness never hangs. On a Redis
Cluster the log's check pings every primary; with the log on a cluster and no
``QUEUE_REDIS_URL``, ``queue_redis`` is missing (RQ does not run on a cluster).
"""

from __future__ import annotations

from typing import Any

import redis
from redis.backoff import NoBackoff
from redis.cluster import RedisCluster
from redis.retry import Retry

from service.jobs.queues import live_workers
from service.store.redis_clients import AnyRedis, QueuesNotConfigured, connect, is_cluster


def quick_client(url: str, timeout: float) -> AnyRedis:
    """A Redis client that gives up after ``timeout`` seconds, without retries."""
    options: dict[str, Any] = {"retry": Retry(NoBackoff(), 0)}
    if not is_cluster(url):  # a cluster client retries nothing with no retries left
        options["retry_on_timeout"] = False
    return connect(url, socket_timeout=timeout, socket_connect_timeout=timeout, **options)


def readiness(log_client: redis.Redis, queue_client: redis.Redis) -> tuple[dict[str, Any], list]:
    """The checks of GET /readyz and the names of those that fail."""
    checks: dict[str, Any] = {}
    missing: list[str] = []
    checks["redis"] = _ping(log_client)
    if queue_client is log_client:
        checks["queue_redis"] = checks["redis"]
    else:
        checks["queue_redis"] = _ping(queue_client)
    if checks["redis"] != "ok":
        missing.append("redis")
    if checks["queue_redis"] != "ok":
        missing.append("queue_redis")
        checks["workers"] = "unknown: the queues' Redis is unreachable"
        missing.append("workers")
        return checks, missing
    try:
        workers = live_workers(queue_client)
    except redis.RedisError as error:
        checks["workers"] = f"unknown: {error}"
        missing.append("workers")
        return checks, missing
    checks["workers"] = workers
    missing += [f"workers:{name}" for name, count in workers.items() if count == 0]
    return checks, missing


def _ping(client: AnyRedis) -> str:
    try:
        if isinstance(client, RedisCluster):
            client.ping(target_nodes=RedisCluster.PRIMARIES)
        else:
            client.ping()
    except QueuesNotConfigured as error:
        return f"missing: {error}"
    except redis.RedisError as error:
        return f"unreachable: {error.__class__.__name__}: {error}"
    return "ok"


__all__ = ["quick_client", "readiness"]
