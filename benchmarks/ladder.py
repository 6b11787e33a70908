"""The ladder: a round robin of every bot level in duplicate games, and their Elo ratings.

Run from the repository root::

    python benchmarks/ladder.py [--games 800] [--far-games 80] [--seed 2024] [--processes 2]
                                [--levels a,b,...]

The defaults are the run of README.md's table (about 13 minutes on two cores;
the games are seeded, so the same build plays the same games). Fewer games
are for trying a change: at 60 games a pairing a step's interval is about
+-120 Elo, wider than the steps it measures.

Every two levels play each other (a round robin) in duplicate pairs (the same
decks, seats swapped; whole games to 7 game points), half of the pairs in the
head variant and half in the tracked one: ``--games`` games between levels at
most two rungs apart, where the ratings are decided, and ``--far-games``
between levels further apart, whose results are foregone (the expert against
the beginner) but still tie the ladder together.
The ratings are the Bradley-Terry fit of all games won and lost (Elo scale:
400 points = 10:1 odds), ``random`` anchored at 0; each rating's 95%
interval comes from the fit's curvature. One virtual win and one virtual
loss per two levels keep a rating finite when a level wins every game
(the ``random`` level loses nearly all of them), as BayesElo's prior does.

Printed: the table of README.md's Bots section (Elo, interval, the games
against the next weaker level, time per move), a line with every step
between adjacent levels (the target: at least 100 Elo), then
every pairing's score.
"""

from __future__ import annotations

import argparse
import itertools
import math
import multiprocessing
import random
import statistics
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tournament import GameRecord, Match, percentile, play_game, wilson  # noqa: E402

from service.bots import LEVELS  # noqa: E402
from service.engine import Variant  # noqa: E402

#: 400 Elo points are odds of 10 to 1.
ELO_SCALE = 400 / math.log(10)
#: Virtual games each way between every two levels (the prior).
PRIOR_GAMES = 1.0
#: Levels at most this many rungs apart play ``--games``; the others ``--far-games``.
NEAR = 2
#: The target's smallest step between adjacent levels, in Elo.
STEP = 100


@dataclass(frozen=True)
class Score:
    """Games between two levels, from the first one's side, and their times per move."""

    first: str
    second: str
    won: int
    lost: int
    first_times: tuple[float, ...]
    second_times: tuple[float, ...]


def _play_pair(args: tuple[Match, int]) -> tuple[Match, GameRecord, GameRecord]:
    match, pair = args
    variant = Variant.HEAD if pair % 2 == 0 else Variant.TRACKED
    match = replace(match, variant=variant)
    return match, play_game(match, pair, 0), play_game(match, pair, 1)


def fit_elo(levels: list[str], scores: list[Score]) -> dict[str, tuple[float, float]]:
    """Each level's (Elo, standard error): the Bradley-Terry maximum a posteriori fit,
    the first level fixed at 0, by Newton's method."""
    index = {level: i for i, level in enumerate(levels)}
    n = len(levels)
    wins = [[0.0] * n for _ in range(n)]
    for score in scores:
        i, j = index[score.first], index[score.second]
        wins[i][j] += score.won + PRIOR_GAMES
        wins[j][i] += score.lost + PRIOR_GAMES
    strength = [0.0] * n  # natural-log scale; strength[0] stays 0
    hessian: list[list[float]] = []
    for _ in range(100):
        gradient = [0.0] * n
        hessian = [[0.0] * n for _ in range(n)]
        for i, j in itertools.combinations(range(n), 2):
            games = wins[i][j] + wins[j][i]
            if games == 0:
                continue
            p = 1 / (1 + math.exp(strength[j] - strength[i]))
            gradient[i] += wins[i][j] - games * p
            gradient[j] -= wins[i][j] - games * p
            curvature = games * p * (1 - p)
            hessian[i][i] += curvature
            hessian[j][j] += curvature
            hessian[i][j] -= curvature
            hessian[j][i] -= curvature
        step = _solve([row[1:] for row in hessian[1:]], gradient[1:])
        for k, delta in enumerate(step, 1):
            strength[k] += delta
        if max(abs(delta) for delta in step) < 1e-9:
            break
    covariance = _inverse([row[1:] for row in hessian[1:]])
    result = {levels[0]: (0.0, 0.0)}
    for k in range(1, n):
        result[levels[k]] = (
            strength[k] * ELO_SCALE,
            math.sqrt(covariance[k - 1][k - 1]) * ELO_SCALE,
        )
    return result


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """``matrix @ x = vector`` by Gaussian elimination (the matrix is small and positive)."""
    size = len(vector)
    rows = [row[:] + [value] for row, value in zip(matrix, vector, strict=True)]
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(size):
            if r != col:
                factor = rows[r][col] / rows[col][col]
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[col], strict=True)]
    return [rows[r][size] / rows[r][r] for r in range(size)]


def _inverse(matrix: list[list[float]]) -> list[list[float]]:
    size = len(matrix)
    columns = [_solve(matrix, [1.0 if r == c else 0.0 for r in range(size)]) for c in range(size)]
    return [[columns[c][r] for c in range(size)] for r in range(size)]


def ladder_table(levels: list[str], scores: list[Score]) -> list[str]:
    """The Markdown table of README.md: a row per level, weakest first."""
    ratings = fit_elo(levels, scores)
    times: dict[str, list[float]] = {level: [] for level in levels}
    by_pair = {(s.first, s.second): s for s in scores}
    for score in scores:
        times[score.first].extend(score.first_times)
        times[score.second].extend(score.second_times)
    lines = [
        "| level | Elo | 95% interval | against the next weaker | time per move (p50 / p99) |",
        "| --- | --- | --- | --- | --- |",
    ]
    for k, level in enumerate(levels):
        elo, error = ratings[level]
        interval = "anchor" if k == 0 else f"{elo - 1.96 * error:.0f} .. {elo + 1.96 * error:.0f}"
        if k == 0:
            against = "-"
        else:
            score = by_pair[(levels[k - 1], level)]
            won, lost = score.lost, score.won
            low, high = wilson(won, won + lost)
            against = f"{won} : {lost} vs {levels[k - 1]} ({low:.0%} - {high:.0%})"
        spent = times[level]
        timing = f"{1000 * statistics.median(spent):.1f} / {1000 * percentile(spent, 0.99):.1f} ms"
        lines.append(f"| {level} | {elo:.0f} | {interval} | {against} | {timing} |")
    return lines


def ladder_steps(levels: list[str], ratings: dict[str, tuple[float, float]]) -> str:
    """One line: every step from a level to the next stronger one, and whether the
    smallest is at least ``STEP`` Elo (the ladder's target)."""
    steps = [
        (weaker, stronger, ratings[stronger][0] - ratings[weaker][0])
        for weaker, stronger in zip(levels, levels[1:], strict=False)
    ]
    shown = ", ".join(f"{weaker} -> {stronger} +{gap:.0f}" for weaker, stronger, gap in steps)
    weaker, stronger, smallest = min(steps, key=lambda step: step[2])
    verdict = f"at least {STEP}" if smallest >= STEP else f"below {STEP}"
    return f"Steps: {shown}; smallest +{smallest:.0f} ({weaker} -> {stronger}): {verdict}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=800, help="games per two near levels")
    parser.add_argument("--far-games", type=int, default=80, help="games per two far levels")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--levels", default=",".join(LEVELS), help="weakest first, commas")
    args = parser.parse_args(argv)
    levels = args.levels.split(",")
    pairs = (args.games + 1) // 2
    far_pairs = (args.far_games + 1) // 2
    jobs = [
        (Match(levels[i], levels[j], Variant.HEAD, args.seed, None, None), pair)
        for i, j in itertools.combinations(range(len(levels)), 2)
        for pair in range(pairs if j - i <= NEAR else far_pairs)
    ]
    random.Random(args.seed).shuffle(jobs)  # the slow pairings spread over the run
    records: dict[tuple[str, str], list[GameRecord]] = {}
    began = time.perf_counter()
    with multiprocessing.Pool(args.processes) as pool:
        for done, (match, *games) in enumerate(pool.imap_unordered(_play_pair, jobs), 1):
            records.setdefault((match.level_a, match.level_b), []).extend(games)
            sys.stderr.write(
                f"\r{2 * done}/{2 * len(jobs)} games, {time.perf_counter() - began:.0f} s"
            )
            sys.stderr.flush()
    sys.stderr.write("\n")
    scores = []
    for (first, second), games in records.items():
        won = sum(game.a_won for game in games)
        scores.append(
            Score(
                first,
                second,
                won,
                len(games) - won,
                tuple(t for game in games for t in game.a_times),
                tuple(t for game in games for t in game.b_times),
            )
        )
    print(
        f"Ladder: {len(levels)} levels, a round robin of duplicate games to 7 game points "
        f"({2 * pairs} per two levels at most {NEAR} rungs apart, {2 * far_pairs} further "
        f"apart; head and tracked variants alike), seed {args.seed}"
    )
    print("\n".join(ladder_table(levels, scores)))
    print(ladder_steps(levels, fit_elo(levels, scores)))
    print("\nEvery pairing (games won : lost, the first level's side):")
    for score in sorted(scores, key=lambda s: (levels.index(s.first), levels.index(s.second))):
        print(f"  {score.first} vs {score.second}: {score.won} : {score.lost}")
    print(f"Wall time: {time.perf_counter() - began:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
