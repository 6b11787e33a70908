"""A real RQ worker process (``python -m workers``) beside the test app."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from tests.conftest import REPO, SECRET


class WorkerProcess:
    """``python -m workers`` in its own process group, so it can be killed whole."""

    def __init__(self, redis_url: str, **settings: str):
        env = dict(os.environ, REDIS_URL=redis_url, SCHNAPSEN_SECRET_KEY=SECRET, **settings)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "workers", "--log-level", "WARNING"],
            cwd=REPO,
            env=env,
            start_new_session=True,
        )

    def kill(self) -> None:
        """SIGKILL the worker and its work-horse: no clean-up runs."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture(scope="session")
def worker(redis_url: str) -> Iterator[WorkerProcess]:
    process = WorkerProcess(redis_url)
    time.sleep(0.5)
    try:
        yield process
    finally:
        process.stop()
