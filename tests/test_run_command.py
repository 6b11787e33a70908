"""The README's run command: a whole service from one command, data kept across restarts."""

from __future__ import annotations

import os
import sqlite3
import subprocess

import pytest
import redis
import requests

from service.ops.settings import EMBEDDED_REDIS_MAXMEMORY_CAP, from_env, redis_maxmemory
from service.serve.run import main
from service.store.archive_keys import game_id_of
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


def test_the_embedded_redis_has_a_memory_limit_and_never_evicts_a_game(tmp_path):
    data_dir, port = tmp_path / "var", free_port()
    service = RunCommand(data_dir, port)
    try:
        started = redis.Redis(unix_socket_path=str(data_dir / "redis" / "redis.sock"))
        maxmemory = int(started.config_get("maxmemory")["maxmemory"])
        assert maxmemory == redis_maxmemory(from_env({})), "the documented default"
        assert 0 < maxmemory <= EMBEDDED_REDIS_MAXMEMORY_CAP
        assert started.config_get("maxmemory-policy") == {"maxmemory-policy": "noeviction"}
    finally:
        service.interrupt()


def test_a_memory_limit_that_is_no_size_stops_the_run_command_before_it_starts(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.setenv("SCHNAPSEN_REDIS_MAXMEMORY", "lots")
    with pytest.raises(SystemExit) as stopped:
        main(["--data-dir", str(tmp_path / "var")])
    assert stopped.value.code == 2
    assert "SCHNAPSEN_REDIS_MAXMEMORY is 'lots'" in capsys.readouterr().err
    assert not (tmp_path / "var" / "redis").exists(), "no Redis was started"


def test_the_run_command_archives_finished_games_in_its_data_folder_without_a_database(
    tmp_path, monkeypatch
):
    """A fresh machine has no database: the run command keeps its archive in a SQLite file
    in the data folder, and a finished game read after Redis forgot it reads the same."""
    monkeypatch.delenv("SCHNAPSEN_ARCHIVE_URL", raising=False)
    monkeypatch.setenv("SCHNAPSEN_ARCHIVE_GRACE_SECONDS", "0")
    monkeypatch.setenv("SCHNAPSEN_SWEEP_SECONDS", "1")
    data_dir, port = tmp_path / "var", free_port()
    service = RunCommand(data_dir, port)
    try:
        created = requests.post(f"{service.url}/v1/games", json={"seed": 7}).json()
        game = created["game_id"]
        joined = requests.post(
            f"{service.url}/v1/games/{game}/join", json={"invite": created["invite"]}
        ).json()
        resigned = requests.post(
            f"{service.url}/v1/games/{game}/resign",
            headers={"Authorization": f"Bearer {joined['token']}"},
        )
        assert resigned.status_code == 200 and resigned.json()["status"] == "finished"
        before = requests.get(f"{service.url}/v1/games/{game}/replay").json()
        log = redis.Redis(unix_socket_path=str(data_dir / "redis" / "redis.sock"))
        wait_until(lambda: not log.exists(f"sch:{{{game}}}:log"), 60, "Redis to forget the game")
        with sqlite3.connect(data_dir / "archive.sqlite3") as archive:
            rows = archive.execute("SELECT game_id FROM games").fetchall()
        assert [game_id_of(key) for (key,) in rows] == [game]
        after = requests.get(f"{service.url}/v1/games/{game}/replay")
        assert after.status_code == 200
        assert after.json() == before
    finally:
        service.interrupt()
