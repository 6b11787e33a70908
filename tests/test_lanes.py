"""Every test runs in one lane, so a part of the suite can be chosen with ``-m``.

The lanes are set in tests/conftest.py (``lane``); CONTRIBUTING.md names the fast
command, ``bash scripts/test -m "unit or redis"``, and says which tests are ``heavy``.
The collections these tests read run in one process, one pytest session after another
(tests/support/collecting.py).
"""

from __future__ import annotations

import pytest

from tests.support.collecting import Collected, collect
from tests.support.lanes import FAST_LANES, LANES, SHARED_LANES, SYSTEM_CALLS
from tests.support.paths import REPO

#: Each test here reads collections a pytest of its own makes of the whole suite: seconds
#: of CPU, so the module runs in the heavy lane (CONTRIBUTING.md), not in the fast ones.
pytestmark = pytest.mark.heavy

FAST = " or ".join(FAST_LANES)
#: Modules of every lane, for the fast lanes' choice.
EVERY_LANE = [
    "tests/engine/test_core.py",  # the rules: unit
    "tests/service/test_store.py",  # the event log on a real Redis: redis
    "tests/test_run_command.py",  # the run command's processes: system
    "tests/ui/test_cli.py",  # the terminal client against gunicorn: browser
    "tests/cluster/test_games.py",  # a Redis Cluster: cluster
]
#: A brute force over thousands of positions, in the heavy lane beside its fast sample.
SOLVER = "tests/bots/test_solver.py"
#: Modules of the two shared lanes and of two others.
SHARED = [
    "tests/cluster/test_games.py",
    "tests/contract/test_spec_lint.py",
    "tests/engine/test_core.py",
    "tests/service/test_store.py",
]
#: The modules that start the service's processes themselves (gunicorn, RQ workers, ...).
STARTERS = [
    str(path.relative_to(REPO))
    for path in sorted((REPO / "tests").rglob("test_*.py"))
    if any(call in path.read_text() for call in SYSTEM_CALLS)
]


@pytest.fixture(scope="module")
def collected() -> dict[str, Collected]:
    return collect(
        {
            "in_no_lane": ["-m", f"not ({' or '.join(LANES)})"],
            "fast_of_every_lane": ["-m", FAST, *EVERY_LANE],
            "solver_heavy": ["-m", "heavy", SOLVER],
            "solver_fast": ["-m", FAST, SOLVER],
            "solver": [SOLVER],
            "grouped": ["-m", "xdist_group", *SHARED],
            "shared": ["-m", " or ".join(SHARED_LANES), *SHARED],
            "shared_without_xdist": ["-p", "no:xdist", *SHARED[:2]],
            "fast_of_starters": ["-m", FAST, *STARTERS],
        }
    )


def test_no_test_is_left_out_of_every_lane(collected):
    left_out = collected["in_no_lane"].nodeids
    assert left_out == [], f"{len(left_out)} tests in no lane, e.g. {left_out[:5]}"
    assert collected["in_no_lane"].code == 5  # pytest: no tests collected


def test_the_fast_lanes_hold_the_rules_and_the_store_but_no_server_nor_browser(collected):
    fast = collected["fast_of_every_lane"]
    assert fast.code == 0
    files = {name.split("::")[0] for name in fast.nodeids}
    assert files == {"tests/engine/test_core.py", "tests/service/test_store.py"}, files


def test_no_test_of_a_module_that_starts_the_services_processes_is_in_the_fast_lanes(collected):
    """A module that starts gunicorn, RQ workers or the run command runs in the system lane
    on every parameter: a PostgreSQL back end's ``redis`` mark (tests/conftest.py, rule
    1) must not bring its gunicorn and workers into the fast lanes."""
    assert STARTERS, "no module starts the service's processes"
    assert collected["fast_of_starters"].nodeids == []


def test_a_brute_force_over_thousands_of_positions_runs_in_the_heavy_lane_its_sample_fast(
    collected,
):
    """The heavy lane holds long CPU-bound runs (CONTRIBUTING.md lists them): the whole
    suite runs them, the fast lanes do not, and run a sample of the same check instead."""
    heavy, fast = collected["solver_heavy"].nodeids, collected["solver_fast"].nodeids
    check = f"{SOLVER}::test_endgame_solver_agrees_with_brute_force_minimax"
    assert f"{check}[all]" in heavy
    assert f"{check}[sample]" in fast
    assert not set(heavy) & set(fast)
    assert sorted(heavy + fast) == sorted(collected["solver"].nodeids)


def test_the_cluster_and_contract_tests_each_run_on_one_worker_under_xdist(collected):
    """``--dist loadgroup`` keeps an ``xdist_group`` on one worker: one cluster topology and
    one ``npm ci`` per run, whatever ``-n`` is. No other lane is grouped."""
    grouped, shared = collected["grouped"].nodeids, collected["shared"].nodeids
    assert grouped and sorted(grouped) == sorted(shared)


def test_the_shared_lanes_are_collected_without_xdist_too(collected):
    """``-p no:xdist`` (one process, CONTRIBUTING.md) still collects the cluster's and the
    contract's tests: their ``xdist_group`` marker is registered whether xdist is loaded."""
    shared = collected["shared_without_xdist"]
    assert shared.code == 0
    assert {name.split("::")[0] for name in shared.nodeids} == set(SHARED[:2])
