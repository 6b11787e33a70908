"""Stopping child processes: one child (``end_process``), or the whole session a dead
child left behind (Linux /proc).

The run command starts each child in a session of its own. A child's own
children may leave its process group (RQ's work horse calls ``os.setpgrp()``)
and outlive it (gunicorn's workers, RQ's scheduler and horse), but they keep
its session id, so the session is what is swept when a child dies or stops.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from pathlib import Path


def end_process(process: subprocess.Popen[bytes], timeout: float) -> None:
    """Ask ``process`` to stop (SIGTERM), give it ``timeout`` seconds, then kill it.

    A process that has already exited is only reaped. The embedded Redis, the
    local cluster's nodes and the tests' servers stop this way.
    """
    if process.poll() is None:
        process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def session_members(session: int) -> set[int]:
    """Every live process whose session id is ``session`` (empty where /proc is missing)."""
    members = set()
    proc = Path("/proc")
    if not proc.is_dir():
        return members
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        # fields: state, ppid, pgrp, session, ...; a zombie is already dead.
        if fields[0] != "Z" and fields[3] == str(session):
            members.add(int(entry.name))
    return members


def signal_session(session: int, sig: signal.Signals) -> set[int]:
    """Send ``sig`` to every process of ``session``; the pids signalled.

    Without /proc, the session leader's process group is signalled instead
    (which misses process groups of their own, such as RQ's work horses).
    """
    members = session_members(session)
    if not members and not Path("/proc").is_dir():
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(session, sig)
        return set()
    for pid in members:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)
    return members
