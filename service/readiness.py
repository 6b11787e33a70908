"""Readiness (GET /readyz): the log's Redis and the queues' Redis answer, a worker serves each queue.

Each check waits at most ``READINESS_TIMEOUT_SECONDS`` on its own
short-timeout client (``quick_client``), so readiness never hangs.
"""

from __future__ import annotations

from typing import Any

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from service.queues import live_workers


def quick_client(url: str, timeout: float) -> redis.Redis:
    """A Redis client that gives up after ``timeout`` seconds, without retries."""
    return redis.Redis.from_url(
        url,
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
        retry=Retry(NoBackoff(), 0),
        retry_on_timeout=False,
    )


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


def _ping(client: redis.Redis) -> str:
    try:
        client.ping()
    except redis.RedisError as error:
        return f"unreachable: {error.__class__.__name__}: {error}"
    return "ok"


__all__ = ["quick_client", "readiness"]
