"""The service's own processes, started by tests as production runs them.

``LiveServer`` is the app under gunicorn, ``WorkerProcess`` an RQ worker,
``RunCommand`` the README's ``schnapsen-serve``: real processes on real
ports, so what the tests see is what a client sees.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import requests

from service.ops.processes import end_process
from service.serve.gunicorn_workers import gunicorn_command
from service.serve.worker_commands import worker_command
from tests.support.paths import REPO, SECRET
from tests.support.processes import kill_tree
from tests.support.waiting import wait_until


def free_port() -> int:
    """A loopback port nothing listens on now, chosen by the kernel: servers of tests
    running side by side never ask for the same one."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LiveServer:
    """The app under gunicorn in its own processes, as in production (gevent workers)."""

    def __init__(
        self,
        redis_url: str,
        workers: int = 2,
        connections: int = 1000,
        env: dict[str, str] | None = None,
        boot_seconds: float = 60,
        log: Path | None = None,
    ):
        """``log``: a file that takes the processes' output (their JSON log lines), for a
        test that reads what the server logged; else they write to the test's own."""
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        environment = dict(os.environ, REDIS_URL=redis_url, SCHNAPSEN_SECRET_KEY=SECRET)
        environment.update(env or {})
        command = gunicorn_command(
            f"127.0.0.1:{self.port}", workers=workers, connections=connections, log_level="warning"
        )
        with open(log, "ab") if log is not None else contextlib.nullcontext() as output:
            self.process = subprocess.Popen(
                command, cwd=REPO, env=environment, stdout=output, stderr=output
            )
        # gunicorn binds before its workers accept: a slow boot shows as timeouts.
        try:
            wait_until(self._up, boot_seconds, "gunicorn to serve /healthz")
        except AssertionError:
            self.stop()
            raise RuntimeError("gunicorn did not start") from None

    def _up(self) -> bool:
        if self.process.poll() is not None:
            raise RuntimeError("gunicorn exited while starting")
        try:
            return requests.get(f"{self.url}/healthz", timeout=2).ok
        except requests.RequestException:
            return False

    def stop(self) -> None:
        """gunicorn's quick stop (SIGQUIT: its workers exit at once), at a test's end, when
        no answer is left that the test waits for. The graceful stop (SIGTERM) costs about a
        second more per server, each gevent worker noticing it on its next one-second tick:
        it is the run command's, proven by tests/test_graceful_stop.py."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            end_process(self.process, timeout=15)


class WorkerProcess:
    """``python -m workers`` in its own session, so it can be killed whole.

    ``command`` is one of the run command's worker command lines
    (service/serve/worker_commands.py); by default a worker on every queue.
    """

    def __init__(self, redis_url: str, command: list[str] | None = None, **settings: str):
        env = dict(os.environ, REDIS_URL=redis_url, SCHNAPSEN_SECRET_KEY=SECRET, **settings)
        self.process = subprocess.Popen(
            command or worker_command(log_level="WARNING"),
            cwd=REPO,
            env=env,
            start_new_session=True,
        )

    def kill(self) -> set[int]:
        """SIGKILL the worker, its scheduler and its work horse: no clean-up runs.

        RQ 3's horse leads its own process group, so killing the worker's group
        would leave it running; every process below the worker is killed instead.
        Returns the pids killed.
        """
        killed = kill_tree(self.process.pid)
        self.process.wait()
        return killed

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()


class RunCommand:
    """``schnapsen-serve`` as a user starts it: no REDIS_URL, so with its embedded Redis.

    With ``stderr``, its standard error goes to that file (to read its log lines); with
    ``stdout``, its standard output (the start banner).
    """

    def __init__(
        self,
        data_dir: Path,
        port: int,
        stderr: Path | None = None,
        stdout: Path | None = None,
    ):
        env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
        env.pop("SCHNAPSEN_SECRET_KEY", None)
        script = Path(sys.executable).parent / "schnapsen-serve"
        command = [str(script)] if script.exists() else [sys.executable, "-m", "service.serve.run"]
        self.stderr = stderr
        with (
            open(stderr, "wb") if stderr else contextlib.nullcontext() as errors,
            open(stdout, "wb") if stdout else contextlib.nullcontext() as output,
        ):
            self.process = subprocess.Popen(
                [*command, "--port", str(port), "--data-dir", str(data_dir)],
                cwd=REPO,
                env=env,
                stderr=errors,
                stdout=output,
            )
        self.url = f"http://127.0.0.1:{port}"
        try:
            wait_until(self.healthy, 60, "the run command to serve /healthz")
        except AssertionError:
            self.process.kill()
            raise

    def healthy(self) -> bool:
        try:
            return requests.get(f"{self.url}/healthz", timeout=2).ok
        except requests.RequestException:
            return False

    def interrupt(self) -> None:
        """Ctrl-C: SIGINT to the command."""
        self.process.send_signal(signal.SIGINT)
        self.process.wait(timeout=30)
