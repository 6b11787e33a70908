"""A short run of the waiters-at-scale benchmark (benchmarks/many_waiters.py): it holds
its waiters from several loopback addresses, and counts each woken by its game's next
event, by kind.

The full run (10,000 waiters, docs/performance.md) is a benchmark, not a test; this
one checks that the benchmark still measures what it says, against the real
``schnapsen-serve`` it starts.
"""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support.paths import REPO

WAITERS = 120
GAMES = 10


def test_a_short_run_holds_every_waiter_and_sees_each_woken_by_its_games_next_event():
    run = subprocess.run(
        [sys.executable, "benchmarks/many_waiters.py", "--waiters", str(WAITERS),
         "--games", str(GAMES), "--addresses", "4", "--hold", "2"],
        cwd=REPO, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    figures = json.loads(run.stdout.strip().splitlines()[-1])
    assert (figures["held_sse"], figures["held_poll"]) == (WAITERS // 2, WAITERS // 2)
    assert (figures["woken_sse"], figures["woken_poll"]) == (WAITERS // 2, WAITERS // 2)
    assert figures["refused"] == {} and figures["not_woken"] == 0
    assert figures["sse_ended_early"] == 0
    assert figures["healthz_requests"] > 0 and figures["healthz_errors"] == 0
    # The waiters leave at the end; the server logs each stream's end with its reason.
    assert set(figures["stream_ends_logged"]) <= {"client_left", "connection_closed"}
