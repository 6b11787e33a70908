"""Readiness (GET /readyz): the log's Redis and the queues' Redis answer and have room, a
worker serves each queue.

Each check waits at most ``READINESS_TIMEOUT_SECONDS`` on its own
short-timeout client (``quick_client``), so readiness never hangs. On a Redis
Cluster the log's check pings every primary; with the log on a cluster and no
``QUEUE_REDIS_URL``, ``queue_redis`` is missing (RQ does not run on a cluster).

A Redis past its ``maxmemory`` under ``noeviction`` answers pings but refuses
every write (``service.store.full``): no game can be created or moved, no job
queued. The ``store`` check reads each Redis's memory (``INFO memory``), and
``store_full`` is missing while either is full; the workers make room
meanwhile (``workers/room.py``), and /readyz is ready again once there is.
"""

from __future__ import annotations

from typing import Any

import redis
from redis.backoff import NoBackoff
from redis.cluster import RedisCluster
from redis.retry import Retry

from service.jobs.queues import live_workers
from service.store.full import room
from service.store.redis_clients import AnyRedis, QueuesNotConfigured, connect, is_cluster

#: The name ``missing`` gives a Redis that refuses writes for memory.
STORE_FULL = "store_full"


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
    checks["store"] = _room(log_client, queue_client, checks)
    if checks["store"].startswith("full"):
        missing.append(STORE_FULL)
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


def _room(log_client: AnyRedis, queue_client: AnyRedis, checks: dict[str, Any]) -> str:
    """``ok``, ``full: ...`` naming the full Redis, or ``unknown: ...``."""
    named = [("the log's Redis", log_client, checks["redis"])]
    if queue_client is not log_client:
        named.append(("the queues' Redis", queue_client, checks["queue_redis"]))
    full, looked = [], 0
    for name, client, reachable in named:
        if reachable != "ok":
            continue
        looked += 1
        try:
            found = room(client)
        except redis.RedisError as error:
            return f"unknown: {error.__class__.__name__}: {error}"
        if found.full:
            full.append(f"{name} ({found})")
    if full:
        return "full: " + ", ".join(full)
    return "ok" if looked == len(named) else "unknown: a Redis does not answer"


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


__all__ = ["STORE_FULL", "quick_client", "readiness"]
