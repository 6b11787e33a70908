"""Fixtures of the worker tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from service.devtools.embedded_redis import EmbeddedRedis


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[str]:
    """The URL of a Redis of this test alone: no other test's worker takes its jobs, and
    its clients are the test's own."""
    server = EmbeddedRedis(tmp_path / "redis").start()
    try:
        yield server.url
    finally:
        server.stop()
