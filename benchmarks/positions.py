"""Positions from expert self-play, labelled, for training the learned value (tools/train_value.py).

Run from the repository root::

    python benchmarks/positions.py --games 600 --seed 1 --out /work/data/positions.npz [--processes 2]

The games of benchmarks/expert_games.py: whole games to 7 game points of
``expert`` against ``expert`` at its default budget, through the engine's
public API (``service.bots.self_play``, as benchmarks/tournament.py plays
them; each bot sees ``seat_view`` only), even-numbered games head counting,
odd ones tracked, the expert deciding by counted work, never by the clock, so
the same arguments give the same games and a byte-identical file, however busy
the machine.

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

import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from benchmarks import expert_games  # noqa: E402
from benchmarks.expert_games import Job  # noqa: E402
from service.bots.features import LAYOUT, encode_view  # noqa: E402
from service.engine import Variant  # noqa: E402
from service.engine.actions import ActionType  # noqa: E402
from service.engine.knowledge import seat_view  # noqa: E402
from service.engine.state import DealResult  # noqa: E402
from tools.npz import write_npz  # noqa: E402

#: Changes whenever the same arguments would give different rows (features, labels, play).
GENERATOR_VERSION = 1
#: ``kind``: a trick's start with the talon open; the position right after a close.
TRICK_START = 0
AFTER_CLOSE = 1
#: The fields of a ``Row`` stored one array each, and their dtypes.
COLUMNS = {
    "outcome": np.int8,
    "search": np.float32,
    "mover": np.uint8,
    "kind": np.uint8,
    "seat": np.uint8,
    "game": np.int32,
    "deal": np.int16,
    "trick": np.int8,
    "head": np.uint8,
}


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


def deal_value(result: DealResult, seat: int, game_points: tuple[int, int]) -> int:
    """The deal's game points for ``seat`` as the expert counts them (``Search.outcome``):
    a win counts at most what the winner still needed (R10a)."""
    points = min(result.game_points, game_points[result.winner])
    return points if result.winner == seat else -points


def play_game(job: Job) -> list[Row]:
    """One expert-against-expert game; its rows in the order the positions came."""
    bot = job.expert()
    game = job.table()
    rows: list[Row] = []
    dealt = 0  # the number of the deal the fields below are of
    pending: list[dict] = []  # this deal's positions, waiting for its outcome
    seen: set[int] = set()  # this deal's trick starts already recorded
    just_closed = False
    for move, turn in enumerate(game.turns()):
        state, deal, seat = turn.state, turn.deal, turn.seat
        if deal.number != dealt:
            dealt, pending, seen, just_closed = deal.number, [], set(), False
        kind = -1
        if just_closed:
            kind = AFTER_CLOSE
        elif deal.lead_card is None and deal.talon_open and len(deal.tricks) not in seen:
            seen.add(len(deal.tricks))
            kind = TRICK_START
        decision = bot.choose(
            seat_view(state, seat), seed=job.decision_seed(move), budget_ms=job.budget_ms
        )
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
                        head=job.variant is Variant.HEAD,
                        need=(state.game_points[side], state.game_points[1 - side]),
                    )
                )
        after = game.play(decision.action)
        just_closed = decision.action.type is ActionType.CLOSE_TALON
        result = after.deal.result if after.deal is not None else None
        if result is not None and pending:
            for fields in pending:
                outcome = deal_value(result, fields["seat"], state.game_points)
                rows.append(Row(outcome=outcome, **fields))
            pending = []
    return rows


def to_arrays(rows: list[Row], seed: int, games: int, budget_ms: int) -> dict[str, np.ndarray]:
    """The file's arrays, by name (module doc)."""
    width = len(LAYOUT)
    features = np.array([r.features for r in rows], dtype=np.float32).reshape(len(rows), width)
    return {
        "features": features,
        **expert_games.columns(rows, COLUMNS),
        "need": np.array([r.need for r in rows], dtype=np.int8).reshape(len(rows), 2),
        "layout": np.array(LAYOUT),
        **expert_games.run_arrays(seed, games, budget_ms),
        "version": np.array(GENERATOR_VERSION, dtype=np.int64),
    }


def generate(seed: int, games: int, budget_ms: int, processes: int) -> list[Row]:
    """Every game's rows, in game order whatever the number of processes."""
    jobs = [Job(seed, game, budget_ms) for game in range(games)]
    rows: list[Row] = []
    for game_rows in expert_games.played(play_game, jobs, processes, lambda: f"{len(rows)} rows"):
        rows.extend(game_rows)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = expert_games.run_arguments(__doc__.split("\n\n")[0])
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
    expert_games.report_run(args, seconds, (movers, "positions"), (len(rows), "rows"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
