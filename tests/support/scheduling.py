"""How ``bash scripts/test`` hands the suite to its pytest-xdist workers.

The unit of work is a test module, or a whole shared lane (tests/support/lanes.py):
a module's module-scoped servers (gunicorn, RQ workers, a Redis of its own) start
once, on one worker, not once on each; the cluster's topology starts once and one
``npm ci`` fills the contract tests' node_modules. The units go out costliest first
(the known costs: tests/known_costs.tsv), so the run does not end with one worker
still busy on a long module it picked up last while the other waits.

pytest-xdist's own ``--dist loadgroup`` reads an ``xdist_group`` marker through a
suffix it writes into each test's node id, which pytest 9.2's structured node ids
no longer take: every test was handed out on its own. The unit here is found from
the node id alone, on the controlling process, which collects nothing itself.
"""

from __future__ import annotations

import csv
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from tests.support.lanes import SHARED_LANES
from tests.support.paths import REPO

#: Each module's measured wall seconds and how many tests it held then (CONTRIBUTING.md,
#: "How long the tests take", says how it is made from SCHNAPSEN_TEST_COSTS).
KNOWN_COSTS = REPO / "tests" / "known_costs.tsv"
#: The folders whose tests share one thing per run: each is one unit, named after its lane.
SHARED_FOLDERS = {f"tests/{lane}/": lane for lane in SHARED_LANES}
#: What a test of a module not in the table is taken to cost (s): a typical test's wall.
UNKNOWN_TEST_SECONDS = 0.5


def module_of(nodeid: str) -> str:
    """The test module of a node id: ``tests/api/test_x.py::test_y[p]`` -> the path."""
    return nodeid.split("::", 1)[0]


def unit_of(nodeid: str) -> str:
    """The unit of work a test belongs to: its shared lane, else its module."""
    module = module_of(nodeid)
    for folder, lane in SHARED_FOLDERS.items():
        if module.startswith(folder):
            return lane
    return module


@dataclass(frozen=True)
class ModuleCost:
    """A module's wall seconds in a measured run of the whole suite, and its test count."""

    seconds: float
    tests: int


def read_known_costs(path: Path = KNOWN_COSTS) -> dict[str, ModuleCost]:
    """The table: ``module<TAB>seconds<TAB>tests`` lines, ``#`` lines are comments."""
    if not path.exists():
        return {}
    rows = (row for row in csv.reader(path.open(), delimiter="\t") if row and row[0][:1] != "#")
    return {module: ModuleCost(float(seconds), int(tests)) for module, seconds, tests in rows}


def unit_cost(nodeids: Iterable[str], known: Mapping[str, ModuleCost]) -> float:
    """What a unit's tests are expected to cost: each known module's seconds shared out
    over its tests (a run of part of a module costs its part), others a typical test's."""
    total = 0.0
    for nodeid in nodeids:
        cost = known.get(module_of(nodeid))
        total += cost.seconds / max(cost.tests, 1) if cost else UNKNOWN_TEST_SECONDS
    return total


def costliest_first(
    workqueue: Mapping[str, dict[str, bool]], known: Mapping[str, ModuleCost]
) -> OrderedDict[str, dict[str, bool]]:
    """The units of work, costliest first; equal costs keep their collection order."""
    ordered = sorted(workqueue.items(), key=lambda unit: -unit_cost(unit[1], known))
    return OrderedDict(ordered)


def make_scheduler(config, log):
    """pytest-xdist's scope scheduling, with this suite's units in the order above."""
    from xdist.scheduler import LoadScopeScheduling

    class CostOrderedScheduling(LoadScopeScheduling):
        known = read_known_costs()
        ordered = False

        def _split_scope(self, nodeid: str) -> str:
            return unit_of(nodeid)

        def _assign_work_unit(self, node) -> None:
            if not self.ordered:  # the first assignment: the queue is whole
                self.workqueue = costliest_first(self.workqueue, self.known)
                self.ordered = True
            super()._assign_work_unit(node)

    return CostOrderedScheduling(config, log)


def fold_costs(lines: Iterable[str]) -> dict[str, ModuleCost]:
    """SCHNAPSEN_TEST_COSTS lines (node id, CPU s, children's CPU s, wall s) summed per
    module: its wall seconds and its number of tests. A test that runs pytest itself
    writes its inner tests' lines into the same file: a node id already counted is not
    counted again, and a module that is not in the tree (a temporary one) gets no row."""
    seconds: dict[str, float] = {}
    tests: dict[str, int] = {}
    seen: set[str] = set()
    for line in lines:
        fields = line.rstrip("\n").split("\t")
        if len(fields) != 4 or fields[0] in seen:
            continue
        seen.add(fields[0])
        module = module_of(fields[0])
        if not (REPO / module).is_file():
            continue
        seconds[module] = seconds.get(module, 0.0) + float(fields[3])
        tests[module] = tests.get(module, 0) + 1
    return {module: ModuleCost(round(seconds[module], 1), tests[module]) for module in seconds}


def main(argv: list[str]) -> None:
    """``python -m tests.support.scheduling costs.tsv ...``: the known costs' table, from
    SCHNAPSEN_TEST_COSTS files of whole-suite runs (later files win per module)."""
    known: dict[str, ModuleCost] = {}
    for name in argv:
        with open(name) as lines:
            known.update(fold_costs(lines))
    print("# module\twall seconds\ttests  (tests/support/scheduling.py; CONTRIBUTING.md)")
    for module, cost in sorted(known.items(), key=lambda item: -item[1].seconds):
        print(f"{module}\t{cost.seconds}\t{cost.tests}")


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
