"""Speed of post-game analysis: seconds per decision and per whole game to 7.

Run from the repository root::

    python benchmarks/analysis.py [--games N] [--seed S] [--budget-ms B]

Plays ``--games`` whole games to 7 game points (the heuristic bot against
itself, decks shuffled from ``--seed``, the two variants in turn), then
analyses every decision of each with ``service.analysis.review`` in this process,
one core, exactly as the analysis job does (the expert at its default
budget, work counted, no wall-clock guard). Prints the decisions per game,
the time per decision (mean and the slowest game's mean), and the time per
whole game against the bound of 30 s per game on one worker; each
as wall time and as this process's CPU time (on a shared machine the wall
time also counts the other processes' turns on the cores; the CPU time is
what the analysis itself costs).
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.analysis.review import BUDGET_MS, analyse, moments  # noqa: E402
from service.bots import get_bot  # noqa: E402
from service.engine import DECK, Variant  # noqa: E402
from service.engine.events import (  # noqa: E402
    ActionTaken,
    DealStarted,
    Event,
    GameCreated,
    SeatTaken,
    apply_event,
)
from service.engine.knowledge import seat_view  # noqa: E402

#: The bound: a whole game to 7 analysed within this many seconds on one worker.
BOUND_SECONDS = 30.0


def played_game(seed: int, variant: Variant) -> list[Event]:
    """The event log of one whole game of the heuristic bot against itself."""
    rng = random.Random(seed)
    bot = get_bot("heuristic")
    events: list[Event] = [GameCreated(variant, rng.randrange(2)), SeatTaken(0), SeatTaken(1)]
    state = None
    for event in events:
        state = apply_event(state, event)
    assert state is not None
    while state.winner is None:
        if state.awaiting_deal:
            deck = list(DECK)
            rng.shuffle(deck)
            event: Event = DealStarted(len(state.results) + 1, state.next_dealer, tuple(deck))
        else:
            seat = state.to_move
            event = ActionTaken(seat, bot.choose(seat_view(state, seat)).action)
        events.append(event)
        state = apply_event(state, event)
    return events


#: The seeds of a bot's search are keyed with a server's secret; the benchmark's own.
BENCH_SECRET = b"benchmark"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--budget-ms", type=int, default=BUDGET_MS)
    args = parser.parse_args()
    print(f"python {platform.python_version()}, expert budget {args.budget_ms} ms, one core")
    per_game = []
    decisions_total = 0
    for number in range(args.games):
        variant = (Variant.HEAD, Variant.TRACKED)[number % 2]
        events = played_game(args.seed + number, variant)
        selected = list(moments(events))
        started, cpu_started = time.perf_counter(), time.process_time()
        records = analyse(f"bench{number}", selected, secret=BENCH_SECRET, budget_ms=args.budget_ms)
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu_started
        forced = sum(1 for r in records if r["label"] == "forced")
        per_game.append((seconds, cpu))
        decisions_total += len(records)
        print(
            f"game {number + 1} ({variant.value}): {len(records)} decisions ({forced} forced), "
            f"{seconds:.2f} s wall ({1000 * seconds / len(records):.1f} ms per decision), "
            f"{cpu:.2f} s CPU ({1000 * cpu / len(records):.1f} ms per decision)"
        )
    games = len(per_game)
    for name, index in (("wall", 0), ("CPU", 1)):
        total = sum(figures[index] for figures in per_game)
        slowest = max(figures[index] for figures in per_game)
        print(
            f"{name}: mean {1000 * total / decisions_total:.1f} ms per decision, "
            f"{total / games:.2f} s per game of {decisions_total / games:.0f} decisions; "
            f"slowest game {slowest:.2f} s (bound {BOUND_SECONDS:.0f} s: "
            f"{'met' if slowest <= BOUND_SECONDS else 'NOT met'})"
        )


if __name__ == "__main__":
    main()
