"""One seed of the live schemathesis run (benchmarks/schemathesis_live.py): schemathesis'
current release against the run command with a client app's key, every phase, the
stateful one too, finds no failure and no operation whose schema admits what the server
refuses for its form.

The five seeds (9, 1, 2, 3, 4; about three minutes each) are the benchmark's, their
figures in docs/performance.md; this test runs one with fewer examples, so that what
the benchmark measures stays measured by the suite. An operation schemathesis still
finds "mostly refused" is one whose refusals are the state's, not the form's (a deal
not dealt yet, a position no deal reaches), which the benchmark prints per seed; here
each such refusal must carry one of those codes, and none may judge the request's form.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.support.paths import REPO

#: Refusals of a schema-valid request that no schema of this spec can say: the game's
#: state (a deal not dealt yet, a position no deal reaches, a resource this app's key does
#: not own or that is gone).
STATE_CODES = frozenset({
    "unknown_deal", "impossible_position", "token_required",
    "game_not_found", "player_not_found", "analysis_not_found", "too_many_decisions",
})  # fmt: skip


@pytest.mark.timeout(1500)  # a run of every operation and phase: minutes on a busy machine
def test_one_seed_finds_no_failure_and_refuses_schema_valid_requests_only_for_the_state():
    run = subprocess.run(
        [sys.executable, "benchmarks/schemathesis_live.py", "--seeds", "4",
         "--max-examples", "10"],
        cwd=REPO, capture_output=True, text=True, timeout=1200,
    )  # fmt: skip
    assert run.stdout.strip(), run.stderr[-3000:]
    (figures,) = json.loads(run.stdout.strip().splitlines()[-1])
    assert figures["operations"] and figures["operations"] >= 50, run.stdout[-3000:]
    assert figures["failures"] == 0, run.stdout[-6000:]
    for label, phases in figures["answers"].items():
        for phase, answered in phases.items():
            refusals = {key.split(" ", 1)[1] for key in answered if key != "accepted"}
            assert refusals <= STATE_CODES, (label, phase, answered)
