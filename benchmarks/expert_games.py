"""The expert's self-play games that benchmarks/positions.py and benchmarks/decisions.py record.

Both recorders play the same games from the same arguments: ``expert`` against
``expert`` at one budget, to 7 game points, even games head counting, odd ones
tracked, each game's decks drawn from ``"<seed>:<game>:decks"`` and each
decision's search seed from the run's seed, the game and the move
(``Job.decision_seed``). The expert decides by counted work only
(``wall_clock_guard=False``), so the same arguments give the same games and a
byte-identical file however busy the machine. What each records from a game is
its own; what they share is here: the game (``Job.table``, ``Job.expert``), the
games in order over worker processes (``played``), the command's arguments, the
file's columns of records (``columns``) and description of its run (``run_arrays``),
and the run's last lines (``report_run``).
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from numpy.typing import DTypeLike

from service.bots.expert import DEFAULT_BUDGET_MS, ExpertBot
from service.bots.self_play import SelfPlay
from service.engine import Variant

Played = TypeVar("Played")


@dataclass(frozen=True, slots=True)
class Job:
    """One game to play: what decides its decks and every decision."""

    seed: int
    game: int
    budget_ms: int

    @property
    def variant(self) -> Variant:
        """Even games head counting, odd games tracked."""
        return Variant.HEAD if self.game % 2 == 0 else Variant.TRACKED

    def table(self) -> SelfPlay:
        """The game, seated, its decks drawn from the run's seed and the game's number."""
        return SelfPlay.seated(self.variant, random.Random(f"{self.seed}:{self.game}:decks"))

    def expert(self) -> ExpertBot:
        """The player of both seats, deciding by counted work, never by the clock."""
        return ExpertBot(self.budget_ms, wall_clock_guard=False)

    def decision_seed(self, moves: int) -> int:
        """A decision's seed, from the run's seed, the game and the move: the same every run."""
        return random.Random(f"{self.seed}:{self.game}:{moves}").getrandbits(32)


def played(
    play: Callable[[Job], Played], jobs: list[Job], processes: int, counted: Callable[[], str]
) -> Iterator[Played]:
    """Each job's game as ``play`` records it, in the jobs' order whatever the number of
    processes; a progress line (``counted()``: what is recorded so far) goes to stderr."""
    began = time.perf_counter()

    def progress(done: int) -> None:
        sys.stderr.write(
            f"\r{done}/{len(jobs)} games, {counted()}, {time.perf_counter() - began:.0f} s"
        )
        sys.stderr.flush()

    if processes > 1:
        # Spawned, not forked: a fork taken while another thread of the caller holds a
        # lock (a test process's watcher threads) can leave the child stuck on it.
        with multiprocessing.get_context("spawn").Pool(processes) as pool:
            for done, game in enumerate(pool.imap(play, jobs), 1):
                yield game
                progress(done)
    else:
        for done, job in enumerate(jobs, 1):
            yield play(job)
            progress(done)
    sys.stderr.write("\n")


def run_arguments(description: str) -> argparse.ArgumentParser:
    """The recorders' arguments: games, seed, the file, processes and the expert's budget."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--games", type=int, required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, required=True, help="the .npz to write")
    parser.add_argument("--processes", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument(
        "--budget-ms",
        type=int,
        default=DEFAULT_BUDGET_MS,
        help=f"the expert's budget per move (default {DEFAULT_BUDGET_MS}: the level's own)",
    )
    return parser


def columns(records: Sequence[Any], dtypes: Mapping[str, DTypeLike]) -> dict[str, np.ndarray]:
    """One array per field of ``records`` named in ``dtypes``, of its dtype, in that order."""
    return {
        name: np.array([getattr(record, name) for record in records], dtype=dtype)
        for name, dtype in dtypes.items()
    }


def run_arrays(seed: int, games: int, budget_ms: int) -> dict[str, np.ndarray]:
    """The file's description of its run (the trainers read it into their manifests)."""
    return {
        "seed": np.array(seed, dtype=np.int64),
        "games": np.array(games, dtype=np.int64),
        "budget_ms": np.array(budget_ms, dtype=np.int64),
    }


def report_run(args: argparse.Namespace, seconds: float, *counts: tuple[int, str]) -> None:
    """The run's last lines: its time and processes with each of ``counts`` (how many, of
    what) per hour, the first then the others in brackets; and the file written."""
    first, *others = (f"{count * 3600 / seconds:.0f} {what} per hour" for count, what in counts)
    brackets = "".join(f" ({other})" for other in others)
    print(f"{seconds:.0f} s with {args.processes} process(es): {first}{brackets}")
    print(f"Written: {args.out} ({args.out.stat().st_size} bytes)")
