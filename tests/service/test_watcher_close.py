"""A closed log watcher stops its threads quietly: no warning once its Redis goes away.

Session fixtures build apps whose watcher threads outlive the test Redis; before
``LogWatcher.close`` those threads logged "lost its subscription" (and logging
errors, into streams pytest had closed) after the last test. Real Redis, real threads.
"""

from __future__ import annotations

import logging
import threading

import pytest
import redis

from service.devtools.embedded_redis import EmbeddedRedis
from service.live.watcher import LogWatcher
from tests.support.waiting import wait_until


def _watcher_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name in ("log-watcher", "closed-clients")]


def test_a_closed_watcher_ends_its_threads_and_says_nothing_when_redis_goes(
    tmp_path, caplog: pytest.LogCaptureFixture
) -> None:
    before = set(_watcher_threads())
    server = EmbeddedRedis(tmp_path).start()
    try:
        watcher = LogWatcher(lambda: redis.Redis.from_url(server.url))
        with watcher.watch("g1", 0):
            pass  # starts the listener and the sweep, subscribed
        started = set(_watcher_threads()) - before
        assert {t.name for t in started} == {"log-watcher", "closed-clients"}
        watcher.close()
        wait_until(lambda: not any(t.is_alive() for t in started), 10, "the threads to end")
    finally:
        with caplog.at_level(logging.WARNING, logger="service.live.watcher"):
            server.stop()
    assert not [r for r in caplog.records if "lost its subscription" in r.getMessage()]
