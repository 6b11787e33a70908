"""What a worker process runs jobs on, built once from the environment (see docs/configuration.md).

The services come from the same composition root as the API's
(``service.ops.composition.build``), so a bot's move is dispatched and counted
as a player's is; a job reads its settings from them (``runtime().settings``).
No Flask and no Prometheus are loaded here.
"""

from __future__ import annotations

import functools

import redis

from service.ops.composition import RedisClients, Services, build
from service.ops.settings import Settings, from_env, queue_redis_url, redis_url
from service.store.redis_clients import QueuesNotConfigured, connect


@functools.cache
def runtime() -> Services:
    """The services of this worker process, built on first use from its environment."""
    settings = from_env()
    return build(settings, worker_clients(settings), warn_without_secret=False)


def worker_clients(settings: Settings) -> RedisClients:
    """A worker's Redis clients: no request's budget, a job may wait for its store."""
    queue_url = queue_redis_url(settings)
    if queue_url is None:
        raise QueuesNotConfigured()
    return RedisClients(connect(redis_url(settings)), redis.Redis.from_url(queue_url))


def reset() -> None:
    """Forget the cached runtime (after the environment changed)."""
    runtime.cache_clear()


__all__ = ["reset", "runtime", "worker_clients"]
