"""A deployment of its own for the tests over HTTP of webhooks: a Redis, gunicorn and an
RQ worker whose deliveries may (or may not) reach the given addresses; retries come
after a second, so a receiver that fails for a while is retried within a test."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from redis import Redis

from service.devtools.embedded_redis import EmbeddedRedis
from tests.support.servers import LiveServer, WorkerProcess

RETRIES = "1,1,1,1,1"


@dataclass
class Deployment:
    folder: Path
    redis: Redis
    redis_url: str
    server: LiveServer
    worker: WorkerProcess
    env: dict[str, str]

    @property
    def url(self) -> str:
        return self.server.url


def deployment(folder: Path, allow: str) -> Iterator[Deployment]:
    """The running deployment, stopped when the generator is closed; ``allow`` is
    ``SCHNAPSEN_WEBHOOK_ALLOW_ADDRESSES`` (``127.0.0.1/32`` to reach a local receiver)."""
    redis_server = EmbeddedRedis(folder / "redis").start()
    env = {
        "SCHNAPSEN_WEBHOOK_ALLOW_ADDRESSES": allow,
        "SCHNAPSEN_WEBHOOK_RETRY_SECONDS": RETRIES,
        "SCHNAPSEN_WEBHOOK_TIMEOUT_SECONDS": "2",
        # two deliveries failing every retry disable an endpoint
        "SCHNAPSEN_WEBHOOK_DISABLE_AFTER": "2",
        "SCHNAPSEN_BOT_DELAY_MS": "0",
    }
    server = LiveServer(redis_server.url, workers=1, env=env)
    worker = WorkerProcess(redis_server.url, **env)
    running = Deployment(
        folder, Redis.from_url(redis_server.url), redis_server.url, server, worker, env
    )
    try:
        yield running
    finally:
        running.worker.stop()
        server.stop()
        redis_server.stop()
