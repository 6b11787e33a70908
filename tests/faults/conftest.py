"""Fixtures of the fault tests."""

from __future__ import annotations

import pytest

from service.devtools.embedded_redis import EmbeddedRedis


@pytest.fixture
def persistent_redis(tmp_path):
    """A Redis of the test's own that keeps its data on disk: stopped and started again
    (same folder and socket) it comes back with every game."""
    server = EmbeddedRedis(tmp_path / "redis", persistent=True).start()
    try:
        yield server
    finally:
        server.stop()
