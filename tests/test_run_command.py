"""The README's run command: a whole service from one command, data kept across restarts."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import requests

from tests.conftest import REPO, free_port
from tests.processes import alive, descendants
from tests.test_readme import block
from tests.waiting import wait_until


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


def test_run_command_serves_a_game_keeps_its_data_and_leaves_no_orphans(tmp_path):
    data_dir, port = tmp_path / "var", free_port()
    service = RunCommand(data_dir, port)
    children = descendants(service.process.pid)
    assert len(children) >= 3, "gunicorn, a worker and the embedded redis-server"
    try:
        result = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", block("curl-session")],
            env=dict(os.environ, BASE=service.url),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == 0, result.stderr
        assert "winner: seat" in result.stdout
        created = requests.post(f"{service.url}/v1/games", json={"seed": 4}).json()
    finally:
        service.interrupt()
    # Ctrl-C leaves no process behind (the timeout bounds a hang).
    wait_until(lambda: not [pid for pid in children if alive(pid)], 30, "every child to exit")
    aof = [p.name for p in (data_dir / "redis").iterdir() if p.name.startswith("appendonly")]
    assert aof, "the embedded Redis keeps an append-only file"

    again = RunCommand(data_dir, port)
    try:
        view = requests.get(
            f"{again.url}/v1/games/{created['game_id']}",
            headers={"Authorization": f"Bearer {created['token']}"},
        )
        assert view.status_code == 200, "the game and its token survive a restart"
        assert view.json()["version"] == created["version"]
    finally:
        again.interrupt()
