"""Fixtures of the API tests, on top of tests/conftest.py."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from service.web.app import create_app
from tests.support.paths import SECRET
from tests.support.servers import LiveServer


@pytest.fixture(scope="module")
def sse_live_server(redis_url: str) -> Iterator[LiveServer]:
    """The app under gunicorn with short-lived SSE streams (1 s, keep-alive every 0.2 s),
    so a stream the test stops reading ends on the server soon after."""
    server = LiveServer(
        redis_url,
        workers=1,
        env={"SCHNAPSEN_SSE_MAX_SECONDS": "1", "SCHNAPSEN_SSE_HEARTBEAT_SECONDS": "0.2"},
    )
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def sse_app(redis_url: str):
    """An app whose SSE streams end after 1 s, with a keep-alive every 0.2 s."""
    return create_app(
        {
            "REDIS_URL": redis_url,
            "SECRET_KEY": SECRET,
            "SSE_MAX_SECONDS": 1,
            "SSE_HEARTBEAT_SECONDS": 0.2,
        }
    )
