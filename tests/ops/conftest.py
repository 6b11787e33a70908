"""Fixtures of the operations tests: a Redis of their own, and apps on it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from flask import Flask

from service.devtools.embedded_redis import EmbeddedRedis
from service.web.app import create_app
from service.web.services import services
from tests.support.paths import SECRET


@pytest.fixture
def lone_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedRedis]:
    """A fresh real Redis that no worker listens on."""
    server = EmbeddedRedis(tmp_path_factory.mktemp("ops")).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def lone_app(lone_redis: EmbeddedRedis) -> Iterator[Flask]:
    """The app on ``lone_redis``: Redis answers, no worker runs.

    Its watchers are closed before ``lone_redis`` stops: left open, their threads
    would go on resubscribing to a Redis that is gone, and log it into other tests.
    """
    app = create_app({"REDIS_URL": lone_redis.url, "SECRET_KEY": SECRET})
    try:
        yield app
    finally:
        wired = services(app)
        wired.watcher.close()
        wired.job_watcher.close()
