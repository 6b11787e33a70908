"""A short run of the API benchmark against a baseline revision (benchmarks/api.py
--baseline): the baseline's own tree is what serves, the same games are played on
both servers, and both ratios of server CPU (per action, per view) are printed.

The full run (docs/performance.md) is a benchmark, not a test; this one checks
that the comparison still measures what it says. Both servers run their
sources (``--from-source``), so no compiled build of the baseline is needed.
"""

from __future__ import annotations

import re
import subprocess
import sys

from tests.support.paths import REPO

#: A revision of the flat layout (``service/app.py``), before the packages.
BASELINE = "2aba8af"


def test_a_short_baseline_run_serves_the_old_tree_and_prints_both_cpu_ratios():
    run = subprocess.run(
        [sys.executable, "benchmarks/api.py", "--clients", "1", "--seconds", "1",
         "--long-games", "1", "--baseline", BASELINE, "--from-source", "--rounds", "1",
         "--cpu-games", "2", "--views", "10", "--port", "8951"],
        cwd=REPO, capture_output=True, text=True, timeout=420,
    )  # fmt: skip
    # The servers' warnings (shares set to 0 for the benchmark) would hide why it failed.
    said = [line for line in run.stderr.splitlines() if "WARNING" not in line]
    assert run.returncode == 0, (run.stdout[-2000:], "\n".join(said)[-3000:])
    out = run.stdout
    baseline = re.search(r"^baseline (\w+): service\.app:create_app\(\) from (\S+)$", out, re.M)
    assert baseline, out
    assert baseline.group(2).endswith("/service/app.py")
    assert not baseline.group(2).startswith(str(REPO))
    assert "now (this checkout): service.web.app:create_app()" in out
    assert "the same games on both servers: yes" in out
    assert re.search(
        r"^round 1: baseline: action [\d.]+ ms \(\d+\), view [\d.]+ ms \(20\)", out, re.M
    )
    for kind in ("action", "view"):
        ratio = re.search(rf"^ratio {kind} \(now/baseline\): (\d+\.\d\d)$", out, re.M)
        assert ratio, out
        assert float(ratio.group(1)) > 0
    # The rest of the benchmark's output stays.
    assert re.search(r"^actions: +[\d,]+ actions/s$", out, re.M)
