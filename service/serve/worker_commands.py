"""The command lines of the RQ worker processes the run command starts.

One place for them, so that the tests start workers exactly as
``schnapsen-serve`` does. Only argument lists: the service does not import
the workers' code.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from service.jobs.names import MOVES


def worker_command(queues: Sequence[str] = (), *, log_level: str | None = None) -> list[str]:
    """``python -m workers``: on ``queues`` in that priority order (none named: all of them)."""
    command = [sys.executable, "-m", "workers"]
    if queues:
        command += ["--queues", ",".join(queues)]
    if log_level:
        command += ["--log-level", log_level]
    return command


def run_command_workers(count: int, *, log_level: str | None = None) -> list[tuple[str, list[str]]]:
    """The workers of ``schnapsen-serve --workers COUNT``: (a name for log lines, command).

    COUNT general workers (every queue, bot opponents' moves first) and, with
    any, one more for bot opponents' moves alone: a general worker can be busy
    with a long service decision or an export when a player's bot is to move.
    """
    if count <= 0:
        return []
    movers = [("RQ worker for bot moves", worker_command([MOVES], log_level=log_level))]
    general = [(f"RQ worker {n}", worker_command(log_level=log_level)) for n in range(1, count + 1)]
    return movers + general
