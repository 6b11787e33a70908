"""A short run of the bot reply benchmark (benchmarks/bot_latency.py): against the real
``schnapsen-serve`` it starts (embedded Redis, gunicorn, RQ workers), every bot reply
and every bot-move service answer it waits for arrives, and it reads its own figures.

The full run (docs/performance.md) is a benchmark, not a test: no time is
asserted here.
"""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support.paths import REPO

LEVELS = ("random", "heuristic", "expert")
SAMPLES = 4


def test_a_short_bot_latency_run_gets_every_bot_reply_and_service_answer():
    run = subprocess.run(
        [sys.executable, "benchmarks/bot_latency.py", "--levels", ",".join(LEVELS),
         "--moves", str(SAMPLES), "--service", str(SAMPLES)],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    figures = json.loads(run.stdout.strip().splitlines()[-1])
    assert [row["level"] for row in figures["replies"]] == list(LEVELS)
    assert [row["level"] for row in figures["service"]] == list(LEVELS)
    for row in figures["replies"] + figures["service"]:
        assert (row["n"], row["missing"]) == (SAMPLES, 0), row
        assert 0 < row["p50_ms"] <= row["p99_ms"] <= row["max_ms"]
    for row in figures["service"]:
        assert row["thinking"]["n"] == SAMPLES
    assert figures["errors_in_log"] == 0
