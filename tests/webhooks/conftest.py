"""A deployment of its own for the webhook tests: a Redis, gunicorn and an RQ worker that
may deliver to 127.0.0.1 (``allowed``), and one that may not (``guarded``); retries
come after a second, so a receiver that fails for a while is retried within a test."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from redis import Redis

from service.devtools.embedded_redis import EmbeddedRedis
from tests.support.servers import LiveServer, WorkerProcess

RETRIES = "1,1,1,1,1,1,1,1,1,1"


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


def _deployment(folder: Path, allow: str) -> Iterator[Deployment]:
    redis_server = EmbeddedRedis(folder / "redis").start()
    env = {
        "SCHNAPSEN_WEBHOOK_ALLOW_ADDRESSES": allow,
        "SCHNAPSEN_WEBHOOK_RETRY_SECONDS": RETRIES,
        "SCHNAPSEN_WEBHOOK_TIMEOUT_SECONDS": "2",
        "SCHNAPSEN_BOT_DELAY_MS": "0",
    }
    server = LiveServer(redis_server.url, workers=1, env=env)
    worker = WorkerProcess(redis_server.url, **env)
    deployment = Deployment(
        folder, Redis.from_url(redis_server.url), redis_server.url, server, worker, env
    )
    try:
        yield deployment
    finally:
        deployment.worker.stop()
        server.stop()
        redis_server.stop()


@pytest.fixture(scope="module")
def allowed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    yield from _deployment(tmp_path_factory.mktemp("hooks"), "127.0.0.1/32")


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    yield from _deployment(tmp_path_factory.mktemp("guarded"), "")
