"""The command lines of the RQ worker processes the run command starts.

One place for them, so that the tests start workers exactly as
``schnapsen-serve`` does. Only argument lists: the service does not import
the workers' code.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def worker_command(queues: Sequence[str] = (), *, log_level: str | None = None) -> list[str]:
    """``python -m workers``: on ``queues`` in that priority order (none named: all of them)."""
    command = [sys.executable, "-m", "workers"]
    if queues:
        command += ["--queues", ",".join(queues)]
    if log_level:
        command += ["--log-level", log_level]
    return command


def run_command_workers(count: int, *, log_level: str | None = None) -> list[tuple[str, list[str]]]:
    """The workers of ``schnapsen-serve --workers COUNT``: (a name for log lines, command)."""
    return [(f"RQ worker {n}", worker_command(log_level=log_level)) for n in range(1, count + 1)]
