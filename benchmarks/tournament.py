"""A duplicate tournament between two bot levels: whole games to 7 game points.

Run from the repository root::

    python benchmarks/tournament.py heuristic random --games 400 [--seed 1] [--processes 2]
                                    [--sprt [--sprt-h0 0.50] [--sprt-h1 0.55]
                                            [--sprt-alpha 0.05] [--sprt-beta 0.05]]

Any bot ``get_bot`` knows may play, the benchmark-only ones too (``classic``).
``--variant both`` plays half the games in each variant and prints each variant's result,
then the combined one. The tracked games then get decks of their own (pairs
numbered on from the head games'), so no deck is played in both variants.

Games come in pairs with the same first dealer and the same decks, deal by
deal: in one game level A sits in seat 0, in the other in seat 1. So every
deck is played twice with the seats swapped (duplicate format), which takes
most of the luck of the cards out of the comparison. Games go through the
engine's public API (``new_game``, ``take_seat``, ``start_deal``, ``apply``);
each bot sees only ``seat_view(state, seat)``.

Each side has a search seed of its own per move, from the match seed, the
pair, the side (A or B) and the move number (``move_seed``): with one seed
for both, a level against itself would play the second game of every pair
as the mirror of the first and score exactly 50%, hiding the noise the
yardstick has. The same seed still plays the same games: the expert's
wall-clock guard is off here (``tournament_bot``), so how busy the machine is
never cuts a search short.

``--sprt`` (off by default, so a figure quoted with its command is the same
``--games`` games when run again) stops the run as soon as a sequential test
(``benchmarks/sprt.py``: Wald's test on the pairs' scores) decides between
H0, A's game win rate is ``--sprt-h0`` (0.50), and H1, it is ``--sprt-h1``
(0.55), with at most ``--sprt-alpha`` (0.05) chance of accepting H1 under H0
and ``--sprt-beta`` (0.05) of accepting H0 under H1. A clear winner or loser
is then decided in a few dozen games, an even match in a few hundred;
``--games`` stays the most it plays. The test takes the pairs in their fixed
order (the variants alternate) whatever order the workers finish them in, so
the same seed stops at the same pair, and the figures printed are those of
the pairs it counted.

Printed: games won (with a 95% Wilson interval for A's game win rate), deals
won, game points per deal (A's net, with a 95% interval), and the median and
99th percentile time per move for each level; with ``--sprt``, a last line
with the hypothesis accepted (or none) and after how many games. A progress
line goes to stderr.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import multiprocessing
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sprt import Pairs, Sprt  # noqa: E402

from service.bots import BOT_NAMES, Bot, get_bot  # noqa: E402
from service.bots.expert import ExpertBot  # noqa: E402
from service.bots.self_play import SelfPlay  # noqa: E402
from service.engine import Variant  # noqa: E402
from service.engine.knowledge import seat_view  # noqa: E402


@dataclass
class GameRecord:
    """One finished game, from level A's side."""

    a_won: bool
    #: Per deal: A's game points, won positive or lost negative.
    deal_points: list[int] = field(default_factory=list)
    #: Per deal: why it ended (``DealEndReason`` value) and whether A won it.
    endings: list[tuple[str, bool]] = field(default_factory=list)
    a_times: list[float] = field(default_factory=list)
    b_times: list[float] = field(default_factory=list)


@dataclass(frozen=True)
class Match:
    level_a: str
    level_b: str
    variant: Variant
    seed: int
    budget_a: int | None
    budget_b: int | None


def move_seed(match_seed: int, pair: int, side: str, move: int) -> int:
    """The search seed of ``side`` ("A" or "B") for the game's move number ``move``.

    A digest rather than ``hash()``, so it is the same in every process and
    every run whatever PYTHONHASHSEED is, and the two sides never share one.
    """
    key = f"{match_seed}:{pair}:{side}:{move}".encode()
    return int.from_bytes(hashlib.blake2b(key, digest_size=4).digest(), "big")


def tournament_bot(level: str) -> Bot:
    """The bot of ``level``, its moves fixed by view, seed and budget alone.

    The expert's search is bounded by counted work; its wall-clock guard only
    bounds latency in service, and here it would let a busy machine change
    the games a seed plays.
    """
    bot = get_bot(level)
    if isinstance(bot, ExpertBot):
        bot.wall_clock_guard = False
    return bot


def play_game(match: Match, pair: int, a_seat: int) -> GameRecord:
    """One game of the pair ``pair``, level A in ``a_seat``; decks depend on the pair only."""
    game = SelfPlay.seated(match.variant, random.Random(f"{match.seed}:{pair}:decks"))
    bots = {a_seat: tournament_bot(match.level_a), 1 - a_seat: tournament_bot(match.level_b)}
    budgets = {a_seat: match.budget_a, 1 - a_seat: match.budget_b}
    sides = {a_seat: "A", 1 - a_seat: "B"}
    record = GameRecord(a_won=False)
    for move, turn in enumerate(game.turns()):
        seat = turn.seat
        view = seat_view(turn.state, seat)
        began = time.perf_counter()
        seed = move_seed(match.seed, pair, sides[seat], move)
        decision = bots[seat].choose(view, seed=seed, budget_ms=budgets[seat])
        elapsed = time.perf_counter() - began
        (record.a_times if seat == a_seat else record.b_times).append(elapsed)
        result = game.play(decision.action).deal.result
        if result is not None:
            sign = 1 if result.winner == a_seat else -1
            record.deal_points.append(sign * result.game_points)
            record.endings.append((result.reason.value, result.winner == a_seat))
    record.a_won = game.state.winner == a_seat
    return record


#: A played pair: its job's index, the variant, and its two games (A in seat 0, then 1).
PlayedPair = tuple[int, Variant, tuple[GameRecord, GameRecord]]


def _play_pair_of(job: tuple[int, tuple[Match, int]]) -> PlayedPair:
    """The job's two games, with its index and variant (for the worker pool)."""
    index, (match, pair) = job
    return index, match.variant, (play_game(match, pair, 0), play_game(match, pair, 1))


def played_pairs(jobs: list[tuple[Match, int]], processes: int) -> Iterator[PlayedPair]:
    """Each job's pair as it finishes, in any order. Closing the iterator early stops
    the workers, with whatever games they were playing."""
    if processes <= 1:
        yield from map(_play_pair_of, enumerate(jobs))
        return
    with multiprocessing.Pool(processes) as pool:
        yield from pool.imap_unordered(_play_pair_of, enumerate(jobs))


def wilson(wins: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate."""
    if total == 0:
        return (0.0, 1.0)
    p = wins / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return (centre - half, centre + half)


def mean_interval(values: list[float], z: float = 1.96) -> tuple[float, float, float]:
    """Mean and its 95% normal interval."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, mean, mean
    half = z * statistics.stdev(values) / math.sqrt(len(values))
    return mean, mean - half, mean + half


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))
    return ordered[index]


def report(match: Match, records: list[GameRecord], seconds: float, variant: str = "") -> None:
    """Print the results of ``records``; ``variant`` names the variant(s) if not the match's."""
    a, b = match.level_a, match.level_b
    games = len(records)
    a_games = sum(r.a_won for r in records)
    low, high = wilson(a_games, games)
    deal_points = [p for r in records for p in r.deal_points]
    a_deals = sum(p > 0 for p in deal_points)
    mean, lo, hi = mean_interval([float(p) for p in deal_points])
    a_points = sum(p for p in deal_points if p > 0)
    b_points = -sum(p for p in deal_points if p < 0)
    a_times = [t for r in records for t in r.a_times]
    b_times = [t for r in records for t in r.b_times]
    variant = variant or f"{match.variant.value} variant"
    print(f"Tournament: {a} (A) vs {b} (B), {variant}, seed {match.seed}")
    print(f"Format: {games} games in duplicate pairs (same decks, seats swapped), to 7 game points")
    print(
        f"Games won: {a} {a_games}, {b} {games - a_games} "
        f"({a} win rate {a_games / games:.1%}, 95% CI {low:.1%} - {high:.1%})"
    )
    print(
        f"Deals won: {a} {a_deals}, {b} {len(deal_points) - a_deals} of {len(deal_points)} "
        f"({a_deals / len(deal_points):.1%})"
    )
    print(
        f"Game points per deal: {a} {a_points / len(deal_points):.3f}, "
        f"{b} {b_points / len(deal_points):.3f}; "
        f"net for {a} {mean:+.3f} (95% CI {lo:+.3f} .. {hi:+.3f})"
    )
    for level, times in ((a, a_times), (b, b_times)):
        print(
            f"Time per move, {level}: median {1000 * statistics.median(times):.1f} ms, "
            f"p99 {1000 * percentile(times, 0.99):.1f} ms, max {1000 * max(times):.1f} ms "
            f"({len(times)} moves)"
        )
    endings = Counter(ending for r in records for ending in r.endings)
    reasons = sorted({reason for reason, _ in endings})
    print(
        "How deals ended (won by A / by B): "
        + ", ".join(f"{r} {endings[(r, True)]}/{endings[(r, False)]}" for r in reasons)
    )
    if not math.isnan(seconds):
        print(f"Wall time: {seconds:.0f} s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("level_a", choices=BOT_NAMES)
    parser.add_argument("level_b", choices=BOT_NAMES)
    parser.add_argument(
        "--games", type=int, default=100, help="games (rounded up to pairs); at most, with --sprt"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--processes", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument(
        "--variant",
        choices=[v.value for v in Variant] + ["both"],
        default="head",
        help="both: half the games in each variant",
    )
    parser.add_argument("--budget-a", type=int, default=None, help="A's budget per move, ms")
    parser.add_argument("--budget-b", type=int, default=None, help="B's budget per move, ms")
    parser.add_argument(
        "--sprt", action="store_true", help="stop once the sequential test decides (default: off)"
    )
    parser.add_argument("--sprt-h0", type=float, default=0.50, help="A's win rate under H0 (0.50)")
    parser.add_argument("--sprt-h1", type=float, default=0.55, help="A's win rate under H1 (0.55)")
    parser.add_argument("--sprt-alpha", type=float, default=0.05, help="P(accept H1 | H0) (0.05)")
    parser.add_argument("--sprt-beta", type=float, default=0.05, help="P(accept H0 | H1) (0.05)")
    args = parser.parse_args(argv)
    sprt: Sprt | None = None
    if args.sprt:
        try:
            sprt = Sprt(args.sprt_h0, args.sprt_h1, args.sprt_alpha, args.sprt_beta)
        except ValueError as error:
            parser.error(str(error))

    variants = list(Variant) if args.variant == "both" else [Variant(args.variant)]
    matches = [
        Match(args.level_a, args.level_b, variant, args.seed, args.budget_a, args.budget_b)
        for variant in variants
    ]
    # Pairs per variant: the games split evenly, each variant at least one pair. The
    # variants take turns in the job list, so a run the test stops has played both alike.
    pairs = max(1, (args.games + 2 * len(matches) - 1) // (2 * len(matches)))
    jobs = [
        (match, index * pairs + pair)
        for pair in range(pairs)
        for index, match in enumerate(matches)
    ]
    records: dict[Variant, list[GameRecord]] = {match.variant: [] for match in matches}
    # Pairs count in job order, whatever order the workers finish them in, so the
    # test sees the same sequence, and stops at the same pair, in every run; a pair
    # that finishes before the ones ahead of it waits for them.
    waiting: dict[int, tuple[Variant, tuple[GameRecord, GameRecord]]] = {}
    counted = 0
    tally = Pairs()
    verdict: str | None = None
    began = time.perf_counter()

    def progress() -> None:
        width = 30
        filled = width * counted // len(jobs)
        wins = sum(r.a_won for rs in records.values() for r in rs)
        llr = f", LLR {sprt.llr(tally):+.2f}" if sprt else ""
        sys.stderr.write(
            f"\r[{'#' * filled}{'.' * (width - filled)}] {2 * counted}/{2 * len(jobs)} games, "
            f"{args.level_a} won {wins}{llr}, {time.perf_counter() - began:.0f} s"
        )
        sys.stderr.flush()

    progress()
    with closing(played_pairs(jobs, args.processes)) as finished:
        for index, variant, played in finished:
            waiting[index] = (variant, played)
            while verdict is None and counted in waiting:
                variant, played = waiting.pop(counted)
                records[variant].extend(played)
                tally = tally.add(sum(record.a_won for record in played))
                counted += 1
                verdict = sprt.verdict(tally) if sprt else None
            progress()
            if verdict is not None:
                break
    sys.stderr.write("\n")
    seconds = time.perf_counter() - began
    for index, match in enumerate(matches):
        if index:
            print()
        report(match, records[match.variant], seconds if len(matches) == 1 else float("nan"))
    if len(matches) > 1:
        print()
        every = [r for match in matches for r in records[match.variant]]
        names = " + ".join(match.variant.value for match in matches)
        report(matches[0], every, seconds, variant=f"{names} variants combined")
    if sprt:
        print_sprt(sprt, tally, verdict, args.level_a, planned_games=2 * len(jobs))
    return 0


def print_sprt(
    sprt: Sprt, tally: Pairs, verdict: str | None, level_a: str, planned_games: int
) -> None:
    """The sequential test's line: its hypotheses, what it accepted, and after how many games."""
    games = 2 * tally.count
    outcome = (
        f"accepted {verdict} after {games} games ({tally.count} pairs) of {planned_games}"
        if verdict
        else f"no decision after {games} games ({tally.count} pairs), the most --games allows"
    )
    print(
        f"Sequential test: H0 {level_a} win rate {sprt.p0:.1%} vs H1 {sprt.p1:.1%} "
        f"(alpha {sprt.alpha}, beta {sprt.beta}, on pair scores): {outcome}; "
        f"LLR {sprt.llr(tally):+.2f} (bounds {sprt.lower:+.2f}, {sprt.upper:+.2f})"
    )


if __name__ == "__main__":
    sys.exit(main())
