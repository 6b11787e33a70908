"""A short run of the live benchmark (benchmarks/live.py): its waiters, in a process of
their own, are held and get every event once, and it reads its own figures right.

The full run (2,000 waiters, docs/performance.md) is a benchmark, not a test;
this one checks that the benchmark still measures what it says, against the real
``schnapsen-serve`` it starts (embedded Redis, gunicorn's gevent workers).
"""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support.paths import REPO

WAITERS = 24


def test_a_short_live_run_holds_its_waiters_and_delivers_every_event_once():
    run = subprocess.run(
        [sys.executable, "benchmarks/live.py", "--waiters", str(WAITERS), "--games", "6",
         "--players", "2", "--seconds", "2", "--rounds", "1"],
        cwd=REPO, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    figures = json.loads(run.stdout.strip().splitlines()[-1])
    assert figures["held"] == WAITERS
    assert figures["refused"] == 0
    assert figures["errors_once_held"] == 0
    assert figures["delivered"] > 0  # half the players played the watched games
    assert (figures["missed"], figures["duplicated"], figures["log_gaps"]) == (0, 0, 0)
    for phase in ("idle", "waiting"):
        assert figures[phase]["actions_per_s"] > 0
        assert figures[phase]["player_errors"] == 0
        assert figures[phase]["client_loop_lag_ms"] >= 0
    # The client's CPU rows are read in the waiting phase too (its processes, /proc).
    assert figures["waiting"]["client_cpu_cores"] > 0
