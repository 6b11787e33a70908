"""The two xdist workers of ``bash scripts/test`` get whole modules, the costliest first.

A module's module-scoped servers start once, on one worker; a shared lane's folder
(the cluster's topology, the contract's npm tools) is one unit; and the units go
out costliest first, so a long module is not the last thing one worker starts
(tests/support/scheduling.py).
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections import defaultdict

import pytest

from tests.support.paths import REPO
from tests.support.scheduling import (
    UNKNOWN_TEST_SECONDS,
    ModuleCost,
    costliest_first,
    fold_costs,
    read_known_costs,
    unit_cost,
    unit_of,
)


@pytest.mark.heavy  # a pytest of its own, on two xdist workers
def test_each_module_runs_on_one_worker_under_the_test_commands_distribution():
    # Two modules of many quick tests (38 and 47, a tenth of a CPU second each), which
    # a distribution test by test would spread over both workers.
    modules = ["tests/engine/test_deal.py", "tests/engine/test_events.py"]
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-v"]
        + ["-n", "2", "--dist", "loadgroup", *modules],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,  # bounds a hang only
    )
    assert result.returncode == 0, result.stdout[-3000:]
    workers: dict[str, set[str]] = defaultdict(set)
    for worker, nodeid in re.findall(r"^\[(gw\d+)\] .*?PASSED (tests/\S+)", result.stdout, re.M):
        workers[nodeid.split("::")[0]].add(worker)
    assert set(workers) == set(modules), result.stdout[-3000:]
    assert all(len(seen) == 1 for seen in workers.values()), dict(workers)


def test_a_shared_lanes_folder_is_one_unit_and_any_other_module_its_own():
    assert unit_of("tests/cluster/test_games.py::test_x") == "cluster"
    assert unit_of("tests/cluster/test_races.py::test_y[1]") == "cluster"
    assert unit_of("tests/contract/test_spec_lint.py::test_z") == "contract"
    assert unit_of("tests/api/test_listing.py::test_a[b::c]") == "tests/api/test_listing.py"
    assert unit_of("tests/test_lanes.py::test_b") == "tests/test_lanes.py"


def test_the_costliest_unit_goes_out_first_and_a_part_of_a_module_costs_its_part():
    known = {"tests/a.py": ModuleCost(10.0, 10), "tests/b.py": ModuleCost(45.0, 3)}
    queue = {
        "tests/a.py": dict.fromkeys([f"tests/a.py::t{n}" for n in range(10)], False),
        "tests/b.py": {"tests/b.py::t0": False},  # one of three: 15 s
        "tests/c.py": {"tests/c.py::t0": False},  # unknown
        "cluster": {"tests/cluster/x.py::t": False, "tests/a.py::t0": False},
    }
    assert unit_cost(queue["tests/b.py"], known) == 15.0
    assert unit_cost(queue["tests/c.py"], known) == UNKNOWN_TEST_SECONDS
    assert unit_cost(queue["cluster"], known) == UNKNOWN_TEST_SECONDS + 1.0
    assert list(costliest_first(queue, known)) == [
        "tests/b.py",
        "tests/a.py",
        "cluster",
        "tests/c.py",
    ]


def test_the_known_costs_name_modules_that_exist():
    known = read_known_costs()
    assert known, "tests/known_costs.tsv is empty"
    gone = [module for module in known if not (REPO / module).is_file()]
    assert gone == [], f"modules no longer in the tree: {gone}"


def test_the_table_from_a_run_counts_each_test_once_and_only_modules_of_the_tree():
    """A test that runs pytest itself (tests/test_scheduling.py, tests/test_failure_reports.py)
    writes its inner tests' lines into the same file: a node id seen again is not counted
    twice, and a module outside the tree (a temporary one) gets no row."""
    lines = [
        "tests/engine/test_deal.py::test_a\t0.1\t0\t1.0\n",
        "tests/engine/test_deal.py::test_b\t0.1\t0\t2.0\n",
        "tests/engine/test_deal.py::test_a\t0.1\t0\t1.5\n",  # again, from an inner run
        "test_lineless.py::test_passes\t0.0\t0\t0.1\n",  # a temporary module of an inner run
        "tests/test_scheduling.py::test_x\t3.0\t5.0\t4.0\n",
    ]
    assert fold_costs(lines) == {
        "tests/engine/test_deal.py": ModuleCost(3.0, 2),
        "tests/test_scheduling.py": ModuleCost(4.0, 1),
    }


def test_every_test_module_has_a_known_cost():
    """A module missing from the table counts half a second a test, so a long one goes out
    among the last and runs alone at the end of the run (a benchmark of minutes did)."""
    modules = {str(path.relative_to(REPO)) for path in (REPO / "tests").rglob("test_*.py")}
    missing = sorted(modules - set(read_known_costs()))
    assert missing == [], f"modules without a row in tests/known_costs.tsv: {missing}"
