"""Every test runs in one lane, so a part of the suite can be chosen with ``-m``.

The lanes are set in tests/conftest.py (``lane``); CONTRIBUTING.md names the fast
command, ``bash scripts/test -m "unit or redis"``, and says which tests are ``heavy``.
"""

from __future__ import annotations

import re
import subprocess
import sys

from tests.support.lanes import FAST_LANES, LANES, SHARED_LANES, SYSTEM_CALLS
from tests.support.paths import REPO


def collected(*args: str) -> tuple[int, list[str]]:
    """The tests pytest would run with ``args`` (collected only), and its exit code."""
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,  # bounds a hang only: collecting everything takes minutes on a busy machine
    )
    return result.returncode, re.findall(r"^(tests/\S+::\S+)", result.stdout, re.M)


def test_no_test_is_left_out_of_every_lane():
    anything = " or ".join(LANES)
    code, left_out = collected("-m", f"not ({anything})")
    assert left_out == [], f"{len(left_out)} tests in no lane, e.g. {left_out[:5]}"
    assert code == 5  # pytest: no tests collected


def test_the_fast_lanes_hold_the_rules_and_the_store_but_no_server_nor_browser():
    paths = [
        "tests/engine/test_core.py",  # the rules: unit
        "tests/service/test_store.py",  # the event log on a real Redis: redis
        "tests/test_run_command.py",  # the run command's processes: system
        "tests/ui/test_cli.py",  # the terminal client against gunicorn: browser
        "tests/cluster/test_games.py",  # a Redis Cluster: cluster
    ]
    code, fast = collected("-m", "unit or redis", *paths)
    assert code == 0
    files = {name.split("::")[0] for name in fast}
    assert files == {"tests/engine/test_core.py", "tests/service/test_store.py"}, files


def test_no_test_of_a_module_that_starts_the_services_processes_is_in_the_fast_lanes():
    """A module that starts gunicorn, RQ workers or the run command runs in the system lane
    on every parameter: a PostgreSQL back end's ``redis`` mark (tests/conftest.py, rule
    1) must not bring its gunicorn and workers into the fast lanes."""
    starts = [
        str(path.relative_to(REPO))
        for path in sorted((REPO / "tests").rglob("test_*.py"))
        if any(call in path.read_text() for call in SYSTEM_CALLS)
    ]
    assert starts, "no module starts the service's processes"
    _, fast = collected("-m", " or ".join(FAST_LANES), *starts)
    assert fast == [], fast


def test_a_brute_force_over_thousands_of_positions_runs_in_the_heavy_lane_its_sample_fast():
    """The heavy lane holds long CPU-bound runs (CONTRIBUTING.md lists them): the whole
    suite runs them, the fast lanes do not, and run a sample of the same check instead."""
    module = "tests/bots/test_solver.py"
    _, heavy = collected("-m", "heavy", module)
    _, fast = collected("-m", " or ".join(FAST_LANES), module)
    _, every = collected(module)
    check = f"{module}::test_endgame_solver_agrees_with_brute_force_minimax"
    assert f"{check}[all]" in heavy
    assert f"{check}[sample]" in fast
    assert not set(heavy) & set(fast)
    assert sorted(heavy + fast) == sorted(every)


def test_the_cluster_and_contract_tests_each_run_on_one_worker_under_xdist():
    """``--dist loadgroup`` keeps an ``xdist_group`` on one worker: one cluster topology and
    one ``npm ci`` per run, whatever ``-n`` is. No other lane is grouped."""
    paths = [
        "tests/cluster/test_games.py",
        "tests/contract/test_spec_lint.py",
        "tests/engine/test_core.py",
        "tests/service/test_store.py",
    ]
    _, grouped = collected("-m", "xdist_group", *paths)
    _, shared = collected("-m", " or ".join(SHARED_LANES), *paths)
    assert grouped and sorted(grouped) == sorted(shared)


def test_the_shared_lanes_are_collected_without_xdist_too():
    """``-p no:xdist`` (one process, CONTRIBUTING.md) still collects the cluster's and the
    contract's tests: their ``xdist_group`` marker is registered whether xdist is loaded."""
    paths = ["tests/cluster/test_games.py", "tests/contract/test_spec_lint.py"]
    code, shared = collected("-p", "no:xdist", *paths)
    assert code == 0
    assert {name.split("::")[0] for name in shared} == set(paths)
