"""The compiled search core and bots against their source: the expert's time per decision.

    python benchmarks/native.py [--positions 200] [--rounds 2]

setup.py compiles the search core and the searching bots with mypyc where a
C compiler is found (``service.engine.native``); a copy of the sources
without the compiled files (``native.source_copy``) runs the source beside
that build. This benchmark lets the expert decide the
first ``--positions`` of the 500 recorded positions (tests/data/corpus.py,
random deals of both variants, each with a choice) at its default budget
(work counted, no wall-clock guard), in a fresh process per mode,
compiled and source alternating ``--rounds`` times (these machines are
shared: a drift cancels). It prints the CPU time per decision of each run,
the ratio, and whether both modes chose the same actions (they must: the
budget is work, not time).
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def decide(count: int) -> dict:
    """In this process: the expert on the first ``count`` positions of the recorded corpus."""
    from service.bots.expert import ExpertBot
    from service.engine import apply, core, native
    from service.engine.knowledge import seat_view
    from tests.data.corpus import read_decisions

    views = []
    for position, _choice_at_the_corpus_budget in itertools.islice(read_decisions(), count):
        state = position.start()
        for action in position.actions:
            state = apply(state, action)
        views.append(seat_view(state, state.deal.to_move))
    expert = ExpertBot(wall_clock_guard=False)
    started = time.process_time()
    choices = [expert.choose(view, seed=7).action for view in views]
    cpu = time.process_time() - started
    return {
        "compiled": native.compiled(core),
        "decisions": len(views),
        "cpu_ms_per_decision": 1000 * cpu / len(views),
        "choices": hashlib.sha256(repr(choices).encode()).hexdigest()[:16],
    }


def run(positions: int, source: Path | None) -> dict:
    """A child process's figures: the build as installed, or ``source``, a copy of the
    sources without the compiled files, first on its path."""
    command = [sys.executable, __file__, "--child", "--positions", str(positions)]
    if source is not None:
        command += ["--source", str(source)]
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return json.loads(out.splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=200, help="recorded positions")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--source", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        if args.source is not None:
            sys.path.insert(0, str(args.source))  # its service package, before the build's
        print(json.dumps(decide(args.positions)))
        return 0
    print(__doc__.splitlines()[0])
    from service.engine import native

    runs: dict[bool, list[dict]] = {True: [], False: []}
    with tempfile.TemporaryDirectory(prefix="schnapsen-source-") as folder:
        copy = Path(folder)
        native.source_copy(copy)
        for _ in range(args.rounds):
            for pure in (False, True):
                figures = run(args.positions, copy if pure else None)
                runs[pure].append(figures)
                mode = "compiled" if figures["compiled"] else "source"
                print(f"  {mode:9} {figures['decisions']} decisions: "
                      f"{figures['cpu_ms_per_decision']:.1f} ms CPU per decision, "
                      f"choices {figures['choices']}", flush=True)  # fmt: skip
    if not any(f["compiled"] for f in runs[False]):
        print("this build runs from source (no compiler at install?): nothing to compare")
        return 0
    compiled = statistics.mean(f["cpu_ms_per_decision"] for f in runs[False])
    source = statistics.mean(f["cpu_ms_per_decision"] for f in runs[True])
    same = len({f["choices"] for f in runs[False] + runs[True]}) == 1
    print(f"expert, ms CPU per decision: source {source:.1f}, compiled {compiled:.1f}, "
          f"ratio {source / compiled:.2f}; same choices in every run: {'yes' if same else 'NO'}")  # fmt: skip
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
