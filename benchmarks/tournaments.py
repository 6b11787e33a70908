"""A Swiss tournament of a thousand players: how long each round takes to pair.

Run from the repository root::

    python benchmarks/tournaments.py [--players 1000] [--rounds 11] [--seed 1]
                                     [--churn 0.01] [--limit 2.0]

Every round is paired by ``service.competition.pair_round`` from the field and the
results so far, timed alone (the process's CPU clock and the wall clock), then played
at random: the higher rated wins with the Elo odds of the gap (ratings drawn around
1500). Between rounds ``--churn`` of the field withdraws and as many join late. Printed:
one line per round (its time, boards, bye, repeats, floats, the largest score group),
then the slowest round against ``--limit`` (seconds of wall clock per round, the target:
2) and how far the dealer balances spread. Exit status 1 if a round took longer than
``--limit``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.competition import (  # noqa: E402
    Bye,
    Entrant,
    Result,
    dealer_balance,
    pair_round,
    swiss_standings,
)


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--churn", type=float, default=0.01)
    parser.add_argument("--limit", type=float, default=2.0)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    rng = random.Random(args.seed)
    joined = 0

    def newcomer() -> Entrant:
        nonlocal joined
        joined += 1
        return Entrant(f"p{joined:05d}", round(rng.gauss(1500, 250)))

    field = [newcomer() for _ in range(args.players)]
    results: list[Result] = []
    byes: list[Bye] = []
    met: set[frozenset[str]] = set()
    slowest = 0.0
    print(f"Swiss: {args.players} players, {args.rounds} rounds, seed {args.seed}")
    print("round  wall s   cpu s  boards  bye  repeats  floats  largest group")
    for number in range(1, args.rounds + 1):
        if number > 1 and args.churn:
            leaving = rng.sample(field, round(len(field) * args.churn))
            field = [e for e in field if e not in leaving] + [newcomer() for _ in leaving]
        points = {line.player: line.points for line in swiss_standings(results, byes)}
        wall, cpu = time.perf_counter(), time.process_time()
        paired = pair_round(number, field, results, byes)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        slowest = max(slowest, wall)
        repeats = sum(board.players in met for board in paired.pairings)
        floats = sum(
            points.get(board.dealer, 0) != points.get(board.forehand, 0)
            for board in paired.pairings
        )
        groups = Counter(points.get(e.player, 0) for e in field)
        print(
            f"{number:5d}  {wall:6.3f}  {cpu:6.3f}  {len(paired.pairings):6d}  "
            f"{'yes' if paired.bye else 'no':>3}  {repeats:7d}  {floats:6d}  "
            f"{max(groups.values()):13d}"
        )
        rating = {e.player: e.rating for e in field}
        for board in paired.pairings:
            gap = (rating[board.dealer] - rating[board.forehand]) / 400
            dealer_wins = rng.random() < 1 / (1 + 10**-gap)
            winner = board.dealer if dealer_wins else board.forehand
            results.append(Result(number, board.dealer, board.forehand, winner))
            met.add(board.players)
        if paired.bye:
            byes.append(Bye(number, paired.bye))
    spread = Counter(abs(b) for b in dealer_balance(results).values())
    print(f"slowest round: {slowest:.3f} s (limit {args.limit:.1f} s)")
    print(
        "dealer balance (|dealt first - led first|: players): "
        + ", ".join(f"{k}: {spread[k]}" for k in sorted(spread))
    )
    return 1 if slowest > args.limit else 0


if __name__ == "__main__":
    sys.exit(main())
