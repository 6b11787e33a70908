"""Post-game analysis: every decision of a game valued from the deciding seat's view alone.

For each action a seat took, the analysing level (today's ``expert``, the top
bot level) values every legal action in expected game points for that seat,
from ``seat_view`` of the state just before the action: exactly the
observation a bot gets, so no card the seat could not see is used (R11b).
The chosen action's *loss* is the best action's value minus its own. The
seed of each decision is the one a bot opponent would have used at that
version (``bot_seed``, keyed with the server's secret), and the search counts
work, not wall time, so an analysis is the same on any machine of the server
and, for the expert's own moves, the same values the expert played by.

Labels by loss, in game points (``THRESHOLDS``, documented in docs/analysis.md):

- ``best``: no loss (within ``EPSILON``); ``forced``: one legal action only;
- ``good``: less than 0.2; ``inaccuracy``: 0.2 to 0.5; ``mistake``: 0.5 to 1;
  ``blunder``: 1 game point or more.

Accuracy of a set of decisions (per seat, per seat and deal): the mean of
``100 * max(0, 1 - loss / ACCURACY_SCALE)`` over its unforced decisions, so
100 is best play throughout and a decision losing a game point or more
scores 0; null when there is no unforced decision.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from service.bots.expert import DEFAULT_BUDGET_MS, ExpertBot
from service.engine.actions import Action
from service.engine.events import ActionTaken, Event, apply_event
from service.engine.knowledge import SeatView, seat_view
from service.game.seeds import bot_seed

#: The level that analyses (the top level; see the bot-strength issue).
LEVEL = "expert"
#: Its think time per decision (ms): the expert's default.
BUDGET_MS = DEFAULT_BUDGET_MS
#: A loss below this is no loss (values are averages of floats).
EPSILON = 1e-6
#: The lower bound of each label's loss, in game points, worst last.
THRESHOLDS: tuple[tuple[str, float], ...] = (
    ("good", EPSILON),
    ("inaccuracy", 0.2),
    ("mistake", 0.5),
    ("blunder", 1.0),
)
#: A decision losing this many game points or more scores 0 accuracy.
ACCURACY_SCALE = 1.0


@dataclass(frozen=True, slots=True)
class Moment:
    """One decision of a game: the seat's view just before it and what the seat did."""

    version: int  # the game's version before the action
    deal: int
    trick: int  # the trick it belongs to, from 1
    view: SeatView
    chosen: Action

    @property
    def seat(self) -> int:
        return self.view.seat


def moments(events: Sequence[Event]) -> Iterator[Moment]:
    """Every player action of a game's log, with the deciding seat's view before it."""
    state = None
    for index, event in enumerate(events):
        if isinstance(event, ActionTaken) and state is not None and state.deal is not None:
            view = seat_view(state, event.seat)
            yield Moment(index, state.deal.number, len(view.tricks) + 1, view, event.action)
        state = apply_event(state, event)


def label(loss: float, forced: bool) -> str:
    """The label of a decision by its loss (see the module doc)."""
    if forced:
        return "forced"
    name = "best"
    for candidate, bound in THRESHOLDS:
        if loss >= bound:
            name = candidate
    return name


def value_decision(
    view: SeatView, chosen: Action, *, seed: int, budget_ms: int = BUDGET_MS
) -> dict[str, Any]:
    """One decision valued from ``view`` only: each legal action's value, the best, the loss."""
    legal = view.legal_actions()
    if len(legal) == 1:
        return {
            "chosen": chosen.to_dict(),
            "best": chosen.to_dict(),
            "chosen_value": None,
            "best_value": None,
            "loss": 0.0,
            "label": "forced",
            "values": [],
        }
    bot = ExpertBot(wall_clock_guard=False)  # the same values on a busy machine
    decision = bot.choose(view, seed=seed, budget_ms=budget_ms)
    assert decision.evaluations is not None
    values = [(action, round(value, 4)) for action, value in decision.evaluations]
    best_action, best_value = max(values, key=lambda pair: pair[1])
    chosen_value = next(value for action, value in values if action == chosen)
    if chosen_value >= best_value:
        best_action = chosen  # a tie: the chosen action is as good as any
    loss = round(max(0.0, best_value - chosen_value), 4)
    return {
        "chosen": chosen.to_dict(),
        "best": best_action.to_dict(),
        "chosen_value": chosen_value,
        "best_value": best_value,
        "loss": loss,
        "label": label(loss, False),
        "values": [{"action": action.to_dict(), "value": value} for action, value in values],
    }


def analyse_moment(
    game_id: str, moment: Moment, budget_ms: int = BUDGET_MS, *, secret: bytes
) -> dict[str, Any]:
    """A decision's analysis record, with where it happened (``secret``: the server's)."""
    seed = bot_seed(game_id, moment.version, secret)
    valued = value_decision(moment.view, moment.chosen, seed=seed, budget_ms=budget_ms)
    return {
        "version": moment.version,
        "deal": moment.deal,
        "trick": moment.trick,
        "seat": moment.seat,
        **valued,
    }


def analyse(
    game_id: str,
    selected: Iterable[Moment],
    *,
    secret: bytes,
    budget_ms: int = BUDGET_MS,
    progress: Callable[[int, int], None] | None = None,
) -> list[dict[str, Any]]:
    """The records of ``selected`` decisions; ``progress(done, total)`` after each one."""
    chosen = list(selected)
    records = []
    for done, moment in enumerate(chosen, start=1):
        records.append(analyse_moment(game_id, moment, budget_ms, secret=secret))
        if progress is not None:
            progress(done, len(chosen))
    return records


def accuracy(records: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Accuracy, mean loss and label counts of a set of decision records."""
    records = list(records)
    unforced = [r for r in records if r["label"] != "forced"]
    scores = [100 * max(0.0, 1 - r["loss"] / ACCURACY_SCALE) for r in unforced]
    counts = {name: 0 for name, _ in THRESHOLDS}
    for record in unforced:
        if record["label"] in counts:
            counts[record["label"]] += 1
    return {
        "decisions": len(records),
        "forced": len(records) - len(unforced),
        "accuracy": round(sum(scores) / len(scores), 1) if scores else None,
        "mean_loss": round(sum(r["loss"] for r in unforced) / len(unforced), 4)
        if unforced
        else None,
        "inaccuracies": counts["inaccuracy"],
        "mistakes": counts["mistake"],
        "blunders": counts["blunder"],
    }


def summary(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Accuracy per seat and per seat and deal of the analysed decisions."""
    seats = sorted({r["seat"] for r in records})
    per_seat = [{"seat": s, **accuracy(r for r in records if r["seat"] == s)} for s in seats]
    pairs = sorted({(r["deal"], r["seat"]) for r in records})
    per_deal = [
        {"deal": d, "seat": s, **accuracy(r for r in records if (r["deal"], r["seat"]) == (d, s))}
        for d, s in pairs
    ]
    return {"players": per_seat, "deals": per_deal}


def thresholds() -> dict[str, float]:
    """The labels' lower bounds of loss, as the answer documents them."""
    return {name: bound for name, bound in THRESHOLDS if name != "good"} | {"good": 0.0}
