"""A short run of the Swiss benchmark (benchmarks/tournaments.py): every round is
printed, paired without a repeat, and the summary follows.

Pure pairing in this process, no service: the unit lane, unlike most of this folder.
"""

from __future__ import annotations

import sys

import pytest

from tests.support.paths import REPO

sys.path.insert(0, str(REPO / "benchmarks"))
from tournaments import main  # noqa: E402

pytestmark = pytest.mark.unit


def test_a_small_swiss_prints_every_round_and_the_slowest(capsys):
    main(["--players", "60", "--rounds", "5", "--churn", "0.05", "--limit", "1000"])
    lines = capsys.readouterr().out.splitlines()
    rounds = [line.split() for line in lines if line.strip()[:1].isdigit()]
    assert [int(fields[0]) for fields in rounds] == [1, 2, 3, 4, 5]
    assert all(int(fields[3]) == 30 and fields[5] == "0" for fields in rounds)
    assert lines[-2].startswith("slowest round: ")
    assert lines[-1].startswith("dealer balance")
