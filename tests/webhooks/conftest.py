"""The webhook tests' network and deployments.

Every webhook test stays on the loopback interface: a connection anywhere else, or a
name looked up in DNS, fails the test before a packet leaves (this process; the
service's own processes refuse such addresses themselves, as they must). A deployment
of its own for the tests over HTTP: a Redis, gunicorn and an RQ worker that may
deliver to 127.0.0.1 (``allowed``), and one that may not (``guarded``); retries come
after a second, so a receiver that fails for a while is retried within a test.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from redis import Redis

from service.devtools.embedded_redis import EmbeddedRedis
from service.jobs import outbound
from tests.support.servers import LiveServer, WorkerProcess
from tests.support.webhooks import loopback_only

_real_getaddrinfo = socket.getaddrinfo


def _numeric_getaddrinfo(host, port, family=0, type=0, proto=0, flags=0):  # noqa: A002
    """getaddrinfo for address literals only: a name fails instead of reaching DNS."""
    return _real_getaddrinfo(host, port, family, type, proto, flags | socket.AI_NUMERICHOST)


@pytest.fixture(autouse=True)
def loopback_network_only(monkeypatch):
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex

    def connect(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6):
            loopback_only(address)
        return real_connect(self, address)

    def connect_ex(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6):
            loopback_only(address)
        return real_connect_ex(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", _numeric_getaddrinfo)
    # post's default resolver was bound when the module was read: replace it too.
    monkeypatch.setitem(outbound.post.__kwdefaults__, "resolve", _numeric_getaddrinfo)


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


def _deployment(folder: Path, allow: str) -> Iterator[Deployment]:
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
