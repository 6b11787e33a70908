"""``schnapsen-admin`` as an operator runs it, from tests: client keys made for real."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.support.paths import REPO


def admin(
    redis_url: str, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``schnapsen-admin ARGS`` as an operator runs it (``env``: more settings)."""
    return subprocess.run(
        [sys.executable, "-m", "service.serve.admin", *args],
        cwd=REPO,
        env={**os.environ, "REDIS_URL": redis_url, **(env or {})},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )


def new_client(redis_url: str, name: str) -> dict:
    return json.loads(admin(redis_url, "clients", "create", name, "--json").stdout)
