"""Decisions from expert self-play, for training the opponent model (tools/train_opponent.py).

Run from the repository root::

    python benchmarks/decisions.py --games 600 --seed 1 --out /work/data/decisions.npz \
        [--first-game 0] [--processes 2]

``--first-game`` plays games ``first .. first + games - 1`` of the seed, so a
long run can be made in parts (each its own file; the trainer reads several).

The games of benchmarks/expert_games.py, as benchmarks/positions.py plays them
(the same arguments give the same games there and here): ``expert`` against
``expert`` at its default budget, to 7 game points, even games head counting,
odd ones tracked, the expert deciding by counted work only, so the same
arguments give a byte-identical file however busy the machine.

Recorded: every decision with more than one legal action (forced ones are
counted, not kept), as the mover saw it (``service.bots.action_features``:
its seat's view only):

- ``position`` (float32, one row per decision: ``decision_inputs``);
- ``actions`` (float32, one row per legal action, in ``view.legal_actions()``
  order: ``action_inputs``), ``first`` (each decision's first row, and the
  total at the end);
- ``taken``: the index among its legal actions of the action the expert took;
- ``heuristic``: the index of the action the ``heuristic`` level chooses in the
  same view (the yardstick predictor);
- ``game``, ``seat``, ``deal``, ``trick`` (tricks played), ``talon_open``,
  ``follows`` (a card was led to the mover);
- the layouts, the run's ``seed``, ``first_game``, ``games``, ``budget_ms``, ``forced`` (forced
  decisions seen) and ``version``.

Printed: decisions, forced decisions, and decisions per hour of this run.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from benchmarks import expert_games  # noqa: E402
from benchmarks.expert_games import Job  # noqa: E402
from service.bots.action_features import (  # noqa: E402
    ACTION_LAYOUT,
    LED_LAYOUT,
    action_inputs,
    decision_inputs,
)
from service.bots.features import LAYOUT  # noqa: E402
from service.bots.heuristic import HeuristicBot  # noqa: E402
from service.engine.knowledge import seat_view  # noqa: E402
from tools.npz import write_npz  # noqa: E402

#: Changes whenever the same arguments would give different rows.
GENERATOR_VERSION = 1
#: The fields of a ``Choice`` stored one array each, and their dtypes.
COLUMNS = {
    "taken": np.int8,
    "heuristic": np.int8,
    "game": np.int32,
    "seat": np.uint8,
    "deal": np.int16,
    "trick": np.int8,
    "talon_open": np.uint8,
    "follows": np.uint8,
}


@dataclass(frozen=True, slots=True)
class Choice:
    """One decision of one seat: what it saw, what it could do, what it did."""

    position: tuple[float, ...]
    actions: tuple[tuple[float, ...], ...]
    taken: int
    heuristic: int
    game: int
    seat: int
    deal: int
    trick: int
    talon_open: bool
    follows: bool


def play_game(job: Job) -> tuple[list[Choice], int]:
    """One expert-against-expert game: its unforced decisions in order, and the forced count."""
    bot = job.expert()
    yardstick = HeuristicBot()
    game = job.table()
    choices: list[Choice] = []
    forced = 0
    for move, turn in enumerate(game.turns()):
        deal, seat = turn.deal, turn.seat
        view = seat_view(turn.state, seat)
        decision = bot.choose(view, seed=job.decision_seed(move), budget_ms=job.budget_ms)
        legal = view.legal_actions()
        if len(legal) > 1:
            choices.append(
                Choice(
                    position=tuple(decision_inputs(view)),
                    actions=tuple(tuple(action_inputs(view, a)) for a in legal),
                    taken=legal.index(decision.action),
                    heuristic=legal.index(yardstick.choose(view).action),
                    game=job.game,
                    seat=seat,
                    deal=deal.number,
                    trick=len(deal.tricks),
                    talon_open=view.closed_by is None and view.talon_size > 0,
                    follows=view.lead_card is not None,
                )
            )
        else:
            forced += 1
        game.play(decision.action)
    return choices, forced


def to_arrays(
    choices: list[Choice], forced: int, seed: int, games: int, budget_ms: int
) -> dict[str, np.ndarray]:
    """The file's arrays, by name (module doc)."""
    width = len(LAYOUT) + len(LED_LAYOUT)
    sizes = [len(c.actions) for c in choices]
    return {
        "position": np.array([c.position for c in choices], dtype=np.float32).reshape(-1, width),
        "actions": np.array([row for c in choices for row in c.actions], dtype=np.float32).reshape(
            -1, len(ACTION_LAYOUT)
        ),
        "first": np.concatenate([[0], np.cumsum(sizes)]).astype(np.int32),
        **expert_games.columns(choices, COLUMNS),
        "layout": np.array((*LAYOUT, *LED_LAYOUT)),
        "action_layout": np.array(ACTION_LAYOUT),
        **expert_games.run_arrays(seed, games, budget_ms),
        "forced": np.array(forced, dtype=np.int64),
        "version": np.array(GENERATOR_VERSION, dtype=np.int64),
    }


def generate(
    seed: int, first: int, games: int, budget_ms: int, processes: int
) -> tuple[list[Choice], int]:
    """Every game's decisions, in game order whatever the number of processes."""
    jobs = [Job(seed, game, budget_ms) for game in range(first, first + games)]
    choices: list[Choice] = []
    forced = 0
    for game_choices, game_forced in expert_games.played(
        play_game, jobs, processes, lambda: f"{len(choices)} decisions"
    ):
        choices.extend(game_choices)
        forced += game_forced
    return choices, forced


def main(argv: list[str] | None = None) -> int:
    parser = expert_games.run_arguments(__doc__.split("\n\n")[0])
    parser.add_argument("--first-game", type=int, default=0, help="the first game's number")
    args = parser.parse_args(argv)
    began = time.perf_counter()
    choices, forced = generate(
        args.seed, args.first_game, args.games, args.budget_ms, args.processes
    )
    seconds = time.perf_counter() - began
    arrays = to_arrays(choices, forced, args.seed, args.games, args.budget_ms)
    arrays["first_game"] = np.array(args.first_game, dtype=np.int64)
    write_npz(args.out, arrays)
    actions = sum(len(c.actions) for c in choices)
    print(
        f"{args.games} games from game {args.first_game}, seed {args.seed}, budget {args.budget_ms} ms: "
        f"{len(choices)} decisions with a choice ({actions} legal actions, "
        f"{actions / max(len(choices), 1):.2f} a decision), {forced} forced"
    )
    expert_games.report_run(args, seconds, (len(choices), "decisions"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
