"""The README's run command: a whole service from one command, data kept across restarts."""

from __future__ import annotations

import os
import subprocess

import requests

from tests.support.documents import block
from tests.support.processes import alive, descendants
from tests.support.servers import RunCommand, free_port
from tests.support.waiting import wait_until


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
