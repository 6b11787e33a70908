"""What weighing sampled deals by the opponent's past play costs, and whether it points at the truth.

Run from the repository root::

    python benchmarks/inference.py [--games 12] [--seed 100] [--worlds 30] [--repeat 3]

Expert self-play games (the expert at its default budget, decided by counted
work, so the same seed plays the same games). At every position where the
seat to move has past decisions of the opponent to weigh
(``inference.past_decisions``) and the deal is not yet fully known:

- **the truth**: the weight ``inferring`` gives the real deal (its hidden draws
  drawn as for any deal) against the mean weight of ``--worlds`` deals the
  expert's sampler draws for the same view: a ratio above 1 means the
  weighting leans towards the truth. Printed: the share of positions where the
  real deal weighs more than the median sampled one, and the ratio's mean and
  geometric mean, overall and by phase (talon open, or closed or exhausted);
- **the cost**: one call of the model for a past decision and a hand, the
  quick way a search makes it (``DecisionOdds.probability``, warm: its
  decision seen before) and the plain way (``action_probability`` from the
  rebuilt view), each the best of ``--repeat`` passes over the same calls;
  and how many past decisions a position has.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.bots.expert import DEFAULT_BUDGET_MS, ExpertBot  # noqa: E402
from service.bots.inference import DecisionOdds, action_probability, past_hands  # noqa: E402
from service.bots.inferring import InferringSearch  # noqa: E402
from service.bots.self_play import SelfPlay  # noqa: E402
from service.engine import Variant  # noqa: E402
from service.engine.knowledge import seat_view  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--seed", type=int, default=100)
    parser.add_argument("--worlds", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    expert = ExpertBot(wall_clock_guard=False)
    ratios: dict[str, list[float]] = {"open": [], "strict": []}
    above = 0
    decisions: list[int] = []
    calls: list[tuple[DecisionOdds, tuple]] = []
    for game in range(args.games):
        rng = random.Random(args.seed + game)
        variant = (Variant.HEAD, Variant.TRACKED)[game % 2]
        table = SelfPlay.seated(variant, rng)
        for move, turn in enumerate(table.turns()):
            deal = turn.deal
            view = seat_view(turn.state, turn.seat)
            search = InferringSearch(view, move, DEFAULT_BUDGET_MS, wall_clock_guard=False)
            if search.decisions and not search.sampler.exact:
                known = set(view.known_opponent_cards())
                hidden = [c.order for c in deal.hands[view.opponent] if c not in known]
                truth = search.weight(search.sampler.world(hidden, [c.order for c in deal.talon]))
                sampled = [
                    search.weight(search.sampler.sample(search.rng)) for _ in range(args.worlds)
                ]
                if statistics.mean(sampled) > 0:
                    phase = "open" if view.talon_size and view.closed_by is None else "strict"
                    ratios[phase].append(truth / statistics.mean(sampled))
                    above += truth > statistics.median(sampled)
                decisions.append(len(search.decisions))
                draws = random.Random(move)  # not the game's stream: the same games
                hands = past_hands(view, search.decisions, deal.hands[view.opponent], draws)
                if hands is not None:
                    calls += list(zip(search.odds, (tuple(h) for h in hands), strict=True))
            table.play(expert.choose(view, seed=move).action)

    every = ratios["open"] + ratios["strict"]
    print(f"{args.games} expert self-play games, seed {args.seed}: {len(every)} positions weighed")
    print(
        f"the real deal weighs more than the median of {args.worlds} sampled deals in "
        f"{above} ({above / len(every):.1%})"
    )
    for name, values in (("all", every), *ratios.items()):
        if values:
            geometric = math.exp(statistics.mean(math.log(r) for r in values))
            print(
                f"  {name}: {len(values)} positions, real / mean sampled weight: "
                f"mean {statistics.mean(values):.2f}, median {statistics.median(values):.2f}, "
                f"geometric mean {geometric:.2f}"
            )
    print(
        f"past decisions weighed per position: median {statistics.median(decisions)}, "
        f"mean {statistics.mean(decisions):.1f}, most {max(decisions)}"
    )
    quick = best_of(args.repeat, lambda: [odds.probability(hand) for odds, hand in calls])
    plain = best_of(
        args.repeat,
        lambda: [
            action_probability(odds.decision.with_hand(hand), odds.decision.action)
            for odds, hand in calls
        ],
    )
    print(
        f"one call of the model ({len(calls)} calls): quick {1e6 * quick / len(calls):.0f} us, "
        f"plain from the view {1e6 * plain / len(calls):.0f} us"
    )


def best_of(repeat: int, run) -> float:
    best = math.inf
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return best


if __name__ == "__main__":
    main()
