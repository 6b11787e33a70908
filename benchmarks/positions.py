"""Positions from expert self-play, labelled, for training the learned value (tools/train_value.py).

Run from the repository root::

    python benchmarks/positions.py --games 600 --seed 1 --out /work/data/positions.npz [--processes 2]

Whole games to 7 game points of ``expert`` against ``expert`` at its default
budget, through the engine's public API (``new_game``, ``take_seat``,
``start_deal``, ``apply``; each bot sees ``seat_view`` only), as
benchmarks/tournament.py plays them. Even-numbered games are played in the
head-counting variant, odd ones tracked. The expert decides by counted work,
never by the clock (``wall_clock_guard=False``), so the same arguments give
the same games and a byte-identical file, however busy the machine.

Recorded, from both seats' sides (``service.bots.features.encode_view``: only
what that seat knows):

- every trick's start while the talon is open, before the leader's first action
  (``kind`` 0): the positions the learned value will be asked about;
- the position right after a close, the closer to lead (``kind`` 1).

Each row is labelled with

- ``outcome``: the deal's result in game points for the row's seat, counted as
  the expert counts it (``Search.outcome``): a win counts at most the game
  points the winner still needed, negative when lost;
- ``search``: the expert's own value of the position, the best of the
  ``Decision.evaluations`` of the move the seat to move made there (already
  computed by the self-play), from the row's seat's side (negated for the
  seat not to move); NaN where the move was forced.

The file (``tools/npz.py``: a compressed ``.npz``) holds ``features`` (float32,
one row per position and seat, ``layout`` names the columns), ``outcome``,
``search``, ``mover`` (the row's seat was to move), ``kind``, ``seat``,
``game``, ``deal``, ``trick`` (tricks played), ``head`` and ``need`` (game
points still needed: the seat's, the opponent's), and the run's ``seed``,
``games``, ``budget_ms`` and ``version``. Printed: positions, and positions
per hour of this run.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from service.bots.expert import DEFAULT_BUDGET_MS, ExpertBot  # noqa: E402
from service.bots.features import LAYOUT, encode_view  # noqa: E402
from service.engine import DECK, Variant, apply, new_game, start_deal, take_seat  # noqa: E402
from service.engine.actions import ActionType  # noqa: E402
from service.engine.knowledge import seat_view  # noqa: E402
from service.engine.state import DealResult  # noqa: E402
from tools.npz import write_npz  # noqa: E402

#: Changes whenever the same arguments would give different rows (features, labels, play).
GENERATOR_VERSION = 1
#: ``kind``: a trick's start with the talon open; the position right after a close.
TRICK_START = 0
AFTER_CLOSE = 1


@dataclass(frozen=True, slots=True)
class Row:
    """One position from one seat's side, with its labels."""

    features: tuple[float, ...]
    outcome: int
    search: float
    mover: bool
    kind: int
    seat: int
    game: int
    deal: int
    trick: int
    head: bool
    need: tuple[int, int]


@dataclass(frozen=True, slots=True)
class Job:
    """One game to play: what decides its decks and every decision."""

    seed: int
    game: int
    budget_ms: int


def variant_of(game: int) -> Variant:
    """Even games head counting, odd games tracked."""
    return Variant.HEAD if game % 2 == 0 else Variant.TRACKED


def deal_value(result: DealResult, seat: int, game_points: tuple[int, int]) -> int:
    """The deal's game points for ``seat`` as the expert counts them (``Search.outcome``):
    a win counts at most what the winner still needed (R10a)."""
    points = min(result.game_points, game_points[result.winner])
    return points if result.winner == seat else -points


def play_game(job: Job) -> list[Row]:
    """One expert-against-expert game; its rows in the order the positions came."""
    rng = random.Random(f"{job.seed}:{job.game}:decks")
    variant = variant_of(job.game)
    bot = ExpertBot(job.budget_ms, wall_clock_guard=False)
    state = take_seat(take_seat(new_game(variant, rng.randrange(2)), 0), 1)
    rows: list[Row] = []
    pending: list[dict] = []  # this deal's positions, waiting for its outcome
    seen: set[int] = set()  # this deal's trick starts already recorded
    just_closed = False
    moves = 0
    while state.winner is None:
        if state.awaiting_deal:
            deck = list(DECK)
            rng.shuffle(deck)
            state = start_deal(state, deck)
            pending, seen, just_closed = [], set(), False
            continue
        deal = state.deal
        seat = None if deal is None else deal.to_move
        assert deal is not None and seat is not None  # a deal runs, a seat is to move
        kind = -1
        if just_closed:
            kind = AFTER_CLOSE
        elif deal.lead_card is None and deal.talon_open and len(deal.tricks) not in seen:
            seen.add(len(deal.tricks))
            kind = TRICK_START
        decision = bot.choose(
            seat_view(state, seat), seed=decision_seed(job, moves), budget_ms=job.budget_ms
        )
        moves += 1
        if kind >= 0:
            best = math.nan
            if decision.evaluations is not None:
                best = max(value for _, value in decision.evaluations)
            for side in (0, 1):
                pending.append(
                    dict(
                        features=tuple(encode_view(seat_view(state, side))),
                        search=best if side == seat else -best,
                        mover=side == seat,
                        kind=kind,
                        seat=side,
                        game=job.game,
                        deal=deal.number,
                        trick=len(deal.tricks),
                        head=variant is Variant.HEAD,
                        need=(state.game_points[side], state.game_points[1 - side]),
                    )
                )
        game_points = state.game_points
        state = apply(state, decision.action, seat)
        just_closed = decision.action.type is ActionType.CLOSE_TALON
        result = state.deal.result if state.deal is not None else None
        if result is not None and pending:
            for fields in pending:
                outcome = deal_value(result, fields["seat"], game_points)
                rows.append(Row(outcome=outcome, **fields))
            pending = []
    return rows


def decision_seed(job: Job, moves: int) -> int:
    """A decision's seed, from the run's seed, the game and the move: the same every run."""
    return random.Random(f"{job.seed}:{job.game}:{moves}").getrandbits(32)


def to_arrays(rows: list[Row], seed: int, games: int, budget_ms: int) -> dict[str, np.ndarray]:
    """The file's arrays, by name (module doc)."""
    width = len(LAYOUT)
    features = np.array([r.features for r in rows], dtype=np.float32).reshape(len(rows), width)
    return {
        "features": features,
        "outcome": np.array([r.outcome for r in rows], dtype=np.int8),
        "search": np.array([r.search for r in rows], dtype=np.float32),
        "mover": np.array([r.mover for r in rows], dtype=np.uint8),
        "kind": np.array([r.kind for r in rows], dtype=np.uint8),
        "seat": np.array([r.seat for r in rows], dtype=np.uint8),
        "game": np.array([r.game for r in rows], dtype=np.int32),
        "deal": np.array([r.deal for r in rows], dtype=np.int16),
        "trick": np.array([r.trick for r in rows], dtype=np.int8),
        "head": np.array([r.head for r in rows], dtype=np.uint8),
        "need": np.array([r.need for r in rows], dtype=np.int8).reshape(len(rows), 2),
        "layout": np.array(LAYOUT),
        "seed": np.array(seed, dtype=np.int64),
        "games": np.array(games, dtype=np.int64),
        "budget_ms": np.array(budget_ms, dtype=np.int64),
        "version": np.array(GENERATOR_VERSION, dtype=np.int64),
    }


def generate(seed: int, games: int, budget_ms: int, processes: int) -> list[Row]:
    """Every game's rows, in game order whatever the number of processes."""
    jobs = [Job(seed, game, budget_ms) for game in range(games)]
    rows: list[Row] = []
    began = time.perf_counter()

    def progress(done: int) -> None:
        sys.stderr.write(
            f"\r{done}/{games} games, {len(rows)} rows, {time.perf_counter() - began:.0f} s"
        )
        sys.stderr.flush()

    if processes > 1:
        # Spawned, not forked: a fork taken while another thread of the caller holds a
        # lock (a test process's watcher threads) can leave the child stuck on it.
        with multiprocessing.get_context("spawn").Pool(processes) as pool:
            for done, played in enumerate(pool.imap(play_game, jobs), 1):
                rows.extend(played)
                progress(done)
    else:
        for done, job in enumerate(jobs, 1):
            rows.extend(play_game(job))
            progress(done)
    sys.stderr.write("\n")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
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
    args = parser.parse_args(argv)
    began = time.perf_counter()
    rows = generate(args.seed, args.games, args.budget_ms, args.processes)
    seconds = time.perf_counter() - began
    write_npz(args.out, to_arrays(rows, args.seed, args.games, args.budget_ms))
    movers = sum(r.mover for r in rows)
    opens = sum(r.kind == TRICK_START for r in rows)
    print(
        f"{args.games} games, seed {args.seed}, budget {args.budget_ms} ms: "
        f"{len(rows)} rows ({movers} positions seen by the seat to move, both seats' sides "
        f"recorded; {opens} at a trick's start with the talon open, "
        f"{len(rows) - opens} just after a close)"
    )
    print(
        f"{seconds:.0f} s with {args.processes} process(es): "
        f"{movers * 3600 / seconds:.0f} positions per hour "
        f"({len(rows) * 3600 / seconds:.0f} rows per hour)"
    )
    print(f"Written: {args.out} ({args.out.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
