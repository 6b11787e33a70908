"""The API under gunicorn for a benchmark: started as the tests start it, awaited until
it serves ``/healthz``.

One machine plays every client of a benchmark, so the per-address and per-token
limits are off, and request logs are (their lines would cost the server time).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

import requests

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from service.serve.gunicorn_workers import gunicorn_command  # noqa: E402

#: The settings every benchmark's server runs with.
ONE_MACHINE = {
    "SCHNAPSEN_SECRET_KEY": "benchmark",
    "SCHNAPSEN_LOG_LEVEL": "WARNING",
    "SCHNAPSEN_RATE_LIMIT_PER_IP": "0",
    "SCHNAPSEN_RATE_LIMIT_PER_TOKEN": "0",
    "SCHNAPSEN_GAMES_PER_ADDRESS_PER_HOUR": "0",
    "SCHNAPSEN_MAX_WAITING_PER_ADDRESS": "0",
    "SCHNAPSEN_CONNECTIONS_PER_ADDRESS": "0",
}


def start_api(
    port: int, settings: Mapping[str, str], *, connections: int, boot_seconds: float = 60
) -> tuple[subprocess.Popen[bytes], str]:
    """gunicorn (2 gevent processes) on ``port`` with ``settings`` over ``ONE_MACHINE``;
    the process and its URL once it answers ``/healthz``."""
    env = {**os.environ, **ONE_MACHINE, **settings}  # settings win over ONE_MACHINE
    process = subprocess.Popen(
        gunicorn_command(
            f"127.0.0.1:{port}", workers=2, connections=connections, log_level="warning"
        ),
        cwd=REPO,
        env=env,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + boot_seconds
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if requests.get(f"{url}/healthz", timeout=5).ok:
                return process, url
        except requests.RequestException:  # not listening yet, or a worker still booting
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("the server did not start")
