"""The run command keeps the service up when one of its processes dies; Ctrl-C stops it all."""

from __future__ import annotations

import os
import re
import signal

import requests

from tests.support.processes import alive, cmdline, descendants, parent
from tests.support.servers import RunCommand, free_port
from tests.support.waiting import wait_until


def children_running(command_pid: int, module: str) -> dict[int, list[str]]:
    """The command's own children that run ``python -m <module>`` (not the processes they
    forked: RQ's horses and scheduler, gunicorn's workers): pid -> argv."""
    found = {}
    for pid in descendants(command_pid):
        argv = cmdline(pid)
        if parent(pid) == command_pid and argv[1:3] == ["-m", module]:
            found[pid] = argv
    return found


def serves(base: str) -> bool:
    try:
        return requests.get(f"{base}/healthz", timeout=2).ok
    except requests.RequestException:
        return False


def bot_moves_first(base: str) -> None:
    """A bot game in which the bot leads (first_dealer 0: seat 1 leads) gets its first move."""
    created = requests.post(
        f"{base}/v1/games",
        json={"opponent": {"type": "bot", "level": "random"}, "first_dealer": 0},
        timeout=10,
    ).json()
    headers = {"Authorization": f"Bearer {created['token']}"}
    game, version = created["game_id"], created["version"]

    def moved() -> bool:
        feed = requests.get(
            f"{base}/v1/games/{game}/events?after={version}&wait=5", headers=headers, timeout=15
        )
        return feed.ok and any(e["type"] == "action_taken" for e in feed.json()["events"])

    wait_until(moved, 60, "the bot's first move")


def kill_a_child_and_see_the_service_recover(tmp_path, module: str, what: str) -> None:
    """SIGKILL one child running ``module``; it is restarted and logged, the service
    still plays a bot game, and Ctrl-C then leaves no process behind."""
    errors = tmp_path / "stderr.log"
    service = RunCommand(tmp_path / "var", free_port(), stderr=errors)
    seen = set(descendants(service.process.pid))
    try:
        before = wait_until(lambda: children_running(service.process.pid, module), 30, what)
        victim, argv = next(iter(before.items()))
        seen |= descendants(service.process.pid)  # what it forked, before it is orphaned
        os.kill(victim, signal.SIGKILL)

        def restarted() -> list[int]:
            now = children_running(service.process.pid, module)
            return [pid for pid, again in now.items() if pid not in before and again == argv]

        wait_until(restarted, 60, f"a new {what} in place of the killed one")
        assert service.process.poll() is None, "the run command stopped"
        log = errors.read_text()
        lines = [line for line in log.splitlines() if f"pid {victim}" in line]
        assert lines, f"no log line names the killed {what} (pid {victim}):\n{log[-2000:]}"
        assert what in lines[0] and re.search(r"exit code -9\b", lines[0]), lines
        wait_until(lambda: serves(service.url), 60, "the API to answer again")
        bot_moves_first(service.url)
        seen |= descendants(service.process.pid)
    finally:
        service.interrupt()
    wait_until(
        lambda: not [pid for pid in seen if alive(pid)], 30, "every process of the command to end"
    )


def test_killing_the_rq_worker_does_not_stop_the_service(tmp_path):
    kill_a_child_and_see_the_service_recover(tmp_path, "workers", "RQ worker")


def test_killing_the_gunicorn_master_does_not_stop_the_service(tmp_path):
    kill_a_child_and_see_the_service_recover(tmp_path, "gunicorn", "gunicorn")
