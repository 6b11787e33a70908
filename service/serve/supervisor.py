"""Keeping the run command's processes up: a dead child is restarted, a stop ends them all.

A player's game needs both the API (gunicorn) and a worker (bot moves): one
of them dying must not take the other down with it, nor the embedded Redis.
So a child that dies is logged (name, pid, exit code) and started again
after a backoff that doubles while it keeps dying young (a crash loop does
not spin), and only ``stop`` (Ctrl-C, SIGTERM) ends everything.

Each child runs in a session of its own: what it leaves behind when it dies
(gunicorn's workers, RQ's scheduler and work horse, which leads a process
group of its own) keeps that session id, and is taken down with it.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TextIO

from service.ops.processes import signal_session

#: The first restart waits this long (seconds), so a crash loop does not spin...
FIRST_BACKOFF_SECONDS = 1.0
#: ... each quick death after it doubles the wait, up to this ...
MAX_BACKOFF_SECONDS = 30.0
#: ... and a child that lived this long starts again from the first backoff.
STABLE_SECONDS = 10.0
#: On stop, children get this long to finish their work before they are killed: a
#: container runtime sends SIGKILL 10 s after its SIGTERM, and the embedded Redis still
#: has to stop after them. A job cut off here is handed back by RQ's recovery of
#: abandoned jobs (a bot move runs again once a worker is up, ``workers.worker``).
STOP_SECONDS = 7.0


@dataclass
class Child:
    """One supervised process: its command, its current process, its restart schedule."""

    name: str
    command: list[str]
    process: subprocess.Popen[bytes] | None = None
    started_at: float = 0.0
    #: Deaths since it last lived STABLE_SECONDS: the backoff doubles with each.
    recent_deaths: int = 0
    #: When a dead child starts again (None: it is running).
    restart_at: float | None = None
    #: Every session this child had, to sweep what its processes left behind.
    sessions: set[int] = field(default_factory=set)

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None


class Supervisor:
    """Starts children, restarts the dead ones, and stops them all (see the module docstring)."""

    def __init__(self, env: Mapping[str, str], log: TextIO | None = None, prog: str = "supervisor"):
        self.env = dict(env)
        self.log = log if log is not None else sys.stderr
        self.prog = prog
        self.children: list[Child] = []

    def add(self, name: str, command: list[str]) -> Child:
        child = Child(name, command)
        self.children.append(child)
        return child

    def start(self) -> None:
        for child in self.children:
            self._spawn(child)

    def check(self) -> None:
        """One pass: note children that died, and start those whose backoff is over."""
        now = time.monotonic()
        for child in self.children:
            if child.restart_at is None and not child.running:
                self._schedule_restart(child, now)
            elif child.restart_at is not None and now >= child.restart_at:
                # Whatever the dead child left and a SIGTERM did not end goes now.
                for session in child.sessions:
                    signal_session(session, signal.SIGKILL)
                self._spawn(child)

    def stop(self, sig: int = signal.SIGTERM, timeout: float = STOP_SECONDS) -> None:
        """Pass ``sig`` on to every child, wait up to ``timeout``, then kill what is left.

        Ctrl-C passes SIGINT on (gunicorn's quick shutdown; RQ finishes the job at
        hand), SIGTERM passes SIGTERM (gunicorn's graceful shutdown).
        """
        for child in self.children:
            child.restart_at = None
            if child.running:
                assert child.process is not None
                child.process.send_signal(sig)
        deadline = time.monotonic() + timeout
        while any(child.running for child in self.children) and time.monotonic() < deadline:
            time.sleep(0.1)
        for child in self.children:
            for session in child.sessions:
                signal_session(session, signal.SIGKILL)
            if child.process is not None:
                child.process.wait()

    def _spawn(self, child: Child) -> None:
        try:
            child.process = subprocess.Popen(child.command, env=self.env, start_new_session=True)
        except OSError as error:
            child.process = None
            self._say(f"{child.name} could not start: {error}")
            child.restart_at = time.monotonic() + self._backoff(child, lived=0.0)
            return
        child.started_at = time.monotonic()
        child.restart_at = None
        # start_new_session: the child leads a new session whose id is its pid.
        child.sessions.add(child.process.pid)

    def _schedule_restart(self, child: Child, now: float) -> None:
        assert child.process is not None
        code = child.process.returncode
        delay = self._backoff(child, lived=now - child.started_at)
        self._say(
            f"{child.name} (pid {child.process.pid}) died with exit code {code}"
            f"{_signal_note(code)}; restarting it in {delay:g} s"
        )
        # Its processes that outlived it (its horse, its workers) are asked to end now.
        signal_session(child.process.pid, signal.SIGTERM)
        child.restart_at = now + delay

    def _backoff(self, child: Child, lived: float) -> float:
        if lived >= STABLE_SECONDS:
            child.recent_deaths = 0
        delay = min(FIRST_BACKOFF_SECONDS * 2**child.recent_deaths, MAX_BACKOFF_SECONDS)
        child.recent_deaths += 1
        return delay

    def _say(self, message: str) -> None:
        print(f"{self.prog}: {message}", file=self.log, flush=True)


def _signal_note(code: int | None) -> str:
    if code is None or code >= 0:
        return ""
    try:
        return f" ({signal.Signals(-code).name})"
    except ValueError:
        return ""
