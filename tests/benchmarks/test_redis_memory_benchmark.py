"""A short run of the Redis memory benchmark (benchmarks/redis_memory.py): players
registered and games finished through the run command leave Redis no key of theirs
once archived and past their grace, and its used_memory within 1.5 times the idle one.

The full run (10,000 players, 10,000 games; docs/performance.md) is a benchmark,
not a test; this one checks that it still measures what it says.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

from tests.support.paths import REPO


def test_a_short_run_leaves_no_key_of_a_game_or_a_player_and_memory_within_its_bound():
    run = subprocess.run(
        [sys.executable, "benchmarks/redis_memory.py", "--players", "60", "--games", "60",
         "--clients", "2", "--grace", "1", "--settle", "1"],
        cwd=REPO, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    said = [line for line in run.stderr.splitlines() if "WARNING" not in line]
    assert run.returncode == 0, (run.stdout[-3000:], "\n".join(said)[-3000:])
    figures = json.loads(run.stdout.strip().splitlines()[-1])
    assert figures["players"] == figures["games"] == figures["archived"] == 60
    assert figures["after_over_empty"] <= 1.5
    # No pattern of a game's keys ({<id>}) or of a job's, nor any RQ registry, is left.
    left = figures["patterns_after"]
    assert not [name for name in left if "{*}" in name or name.startswith("rq:job")], left
    assert re.search(r"^RQ registries and streams after \(length\):\n\{", run.stdout, re.M)
