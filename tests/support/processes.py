"""Looking at real processes from tests (Linux /proc): children, groups, and whether one lives."""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path


def _stat_fields(pid: int) -> list[str]:
    """/proc/<pid>/stat after the command name: state, ppid, pgrp, session, ..."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def descendants(pid: int) -> set[int]:
    """Every process below ``pid``, read from /proc (Linux)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int(_stat_fields(int(entry.name))[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def parent(pid: int) -> int | None:
    """The parent of ``pid``; None once it is gone."""
    try:
        return int(_stat_fields(pid)[1])
    except (OSError, IndexError, ValueError):
        return None


def process_group(pid: int) -> int | None:
    """The process group of ``pid``; None once it is gone."""
    try:
        return int(_stat_fields(pid)[2])
    except (OSError, IndexError, ValueError):
        return None


def cmdline(pid: int) -> list[str]:
    """The arguments ``pid`` was started with; [] once it is gone."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return [part.decode(errors="replace") for part in raw.split(b"\0") if part]


def supervised(command_pid: int, module: str) -> set[int]:
    """The command's own children that run ``python -m <module>`` (not what they forked:
    RQ's horses and scheduler, gunicorn's workers)."""
    return {
        pid
        for pid in descendants(command_pid)
        if parent(pid) == command_pid and cmdline(pid)[1:3] == ["-m", module]
    }


def work_horses(worker_pid: int) -> set[int]:
    """The RQ work horses below a worker: RQ 3's horse calls ``os.setpgrp()``, so each
    leads its own process group (the scheduler process stays in the worker's group)."""
    return {pid for pid in descendants(worker_pid) if process_group(pid) == pid}


def kill_tree(pid: int) -> set[int]:
    """SIGKILL ``pid`` and everything below it, whatever its process groups; the pids killed.

    The process is stopped first, so it cannot fork (a new work horse) between
    the listing and the kill.
    """
    os.kill(pid, signal.SIGSTOP)
    victims = {pid, *descendants(pid)}
    for victim in victims:
        with contextlib.suppress(ProcessLookupError):
            os.kill(victim, signal.SIGKILL)
    return victims


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.exists() and _stat_fields(pid)[0] != "Z"
    except OSError:
        return False
