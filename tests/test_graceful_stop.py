"""``kill -TERM`` of the run command: everything stops within 10 s.

A container runtime sends SIGTERM and, 10 s later, SIGKILL: the run command
must be gone by then, its waiting clients told to come back and a running job
handed back (a worker's unfinished bot move runs again after the restart)
rather than lost.
"""

from __future__ import annotations

import signal
import subprocess
import threading

import requests

from tests.support.http import auth
from tests.support.processes import alive, descendants
from tests.support.servers import RunCommand, free_port
from tests.support.waiting import wait_until
from workers.worker import RECOVERY_BOUND_SECONDS

#: What a container runtime waits after SIGTERM before it sends SIGKILL.
CONTAINER_STOP_SECONDS = 10


def _wait_on(url: str, headers: dict[str, str], ended: list[str], stream: bool) -> None:
    try:
        with requests.get(url, headers=headers, stream=stream, timeout=60) as answer:
            for _ in answer.iter_content(chunk_size=None):
                pass
        ended.append("ended")
    except requests.RequestException as error:
        ended.append(type(error).__name__)


def test_sigterm_stops_the_run_command_within_10_s_with_clients_waiting_and_a_bot_move_running(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("SCHNAPSEN_BOT_DELAY_MS", "60000")  # the bot's job runs at the SIGTERM
    data_dir, port = tmp_path / "var", free_port()
    service = RunCommand(data_dir, port)
    children = descendants(service.process.pid)
    created = requests.post(
        f"{service.url}/v1/games",
        json={"opponent": {"type": "bot", "level": "random"}, "seed": 3, "first_dealer": 0},
    ).json()
    game, token, version = created["game_id"], created["token"], created["version"]
    seat = auth(token)
    base = f"{service.url}/v1/games/{game}"
    waiting: list[str] = []
    waiters = [
        threading.Thread(
            target=_wait_on,
            args=(f"{base}/events?after={version}&wait=30", seat, waiting, False),
        ),
        threading.Thread(
            target=_wait_on,
            args=(f"{base}/stream", {**seat, "Last-Event-ID": str(version)}, waiting, True),
        ),
    ]
    for waiter in waiters:
        waiter.start()
    stopped = False
    try:
        wait_until(
            lambda: requests.get(f"{service.url}/metrics").text.count("schnapsen_waiting") > 0,
            30,
            "the server to serve its metrics",
        )
        service.process.send_signal(signal.SIGTERM)
        try:
            # The bound is the promise under test: a container runtime kills at 10 s.
            code = service.process.wait(timeout=CONTAINER_STOP_SECONDS)
        except subprocess.TimeoutExpired:
            raise AssertionError(
                f"the run command still ran {CONTAINER_STOP_SECONDS} s after SIGTERM"
            ) from None
        stopped = True
        assert code == 0
        assert not [pid for pid in children if alive(pid)], "a child outlived the stop"
        for waiter in waiters:
            waiter.join(timeout=30)
        assert len(waiting) == 2, "both waiting clients were answered or closed"
    finally:
        if not stopped:
            service.process.kill()
    # The bot's move, cut off by the stop, is handed back: the next start plays it.
    monkeypatch.setenv("SCHNAPSEN_BOT_DELAY_MS", "0")
    again = RunCommand(data_dir, port)
    try:
        wait_until(
            lambda: requests.get(base, headers=seat).json()["version"] > version,
            4 * RECOVERY_BOUND_SECONDS + 60,
            "the bot's move after the restart",
        )
    finally:
        again.interrupt()
