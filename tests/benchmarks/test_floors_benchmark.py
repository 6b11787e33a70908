"""A short run of the floors benchmark (benchmarks/floors.py): bare Flask, one Redis
script call, the API's action and its view, each measured with wrk on the API's
gunicorn shape; it prints each rate, both ratios to the one-script floor, and no
errors. The figures themselves are a benchmark's (docs/performance.md), not a test's.
"""

from __future__ import annotations

import re
import subprocess
import sys

from tests.support.paths import REPO


def test_a_short_floors_run_prints_every_rate_both_ratios_and_no_errors():
    run = subprocess.run(
        [sys.executable, "benchmarks/floors.py", "--seconds", "1", "--warmup", "1",
         "--port", "8971"],
        cwd=REPO, capture_output=True, text=True, timeout=420,
    )  # fmt: skip
    said = [line for line in run.stderr.splitlines() if "WARNING" not in line]
    assert run.returncode == 0, (run.stdout[-2000:], "\n".join(said)[-3000:])
    out = run.stdout
    for name in ("bare flask", "one script", "action", "view"):
        measured = re.search(rf"^{name}: ([\d,]+) req/s, errors (\d+)$", out, re.M)
        assert measured, out
        assert int(measured.group(1).replace(",", "")) > 0
        assert measured.group(2) == "0", out
    for ratio in ("action/one-script", "view/one-script"):
        assert re.search(rf"^ratio {ratio}: \d+\.\d{{3}}$", out, re.M), out
    assert re.search(r"^errors: 0$", out, re.M), out
