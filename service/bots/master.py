"""The ``master`` level: the expert's search with a learned value in place of long playouts.

The expert values an action in a sampled deal while the talon is open by
playing the classic policy for both seats until the talon is closed or
exhausted and solving the rest exactly: a long, fixed-policy guess of how
the open talon plays out. ``master`` searches the same sampled deals
(``sampling``) and solves the same closed and exhausted talons
(``solver``), but stops the playout ``HORIZON_TRICKS`` trick(s) after the
action, at the start of a trick with the talon still open, and asks the
learned value (``value_model``) what the position is worth to its seat. The
value reads only what the seat may know there (``features``), so the sampled
opponent hand decides the tricks played until the horizon and nothing after.

A model value costs less than a playout and a solve, so within the same
think time ``master`` values more sampled deals. Its work is counted in the
expert's deterministic units (``MODEL_WORK`` per value), so the same view,
seed and budget give the same decision.
"""

from __future__ import annotations

from service.bots.classic import classic_action
from service.bots.expert import DEFAULT_BUDGET_MS, ExpertBot, Search
from service.bots.value_model import value as model_value
from service.engine.core import FastDeal
from service.engine.knowledge import SeatView

#: Tricks played by the classic policy after the action before the model values the
#: position (a trick the action leads counts as the first).
HORIZON_TRICKS = 3
#: Work units of one model value (about its cost in microseconds, as ``expert``'s units).
MODEL_WORK = 20


class MasterSearch(Search):
    """The expert's search, its open-talon playouts cut at the horizon."""

    def finish(self, deal: FastDeal) -> float:
        """Play on with the classic policy to the horizon, then the model's value; a
        closed or exhausted talon is solved exactly, as the expert does."""
        target = len(deal.tricks) + HORIZON_TRICKS - (1 if deal.lead < 0 else 0)
        mask = deal.legal_mask()
        while mask and not deal.strict:
            if deal.lead < 0 and len(deal.tricks) >= target:
                break
            mask = deal.apply(classic_action(deal, mask))
            self.steps += 1
        if deal.result is not None:
            return float(self.outcome(deal))
        if deal.strict:
            value = self.solver(deal).value(deal)
            return float(value if deal.to_move == self.seat else -value)
        self.values_computed += MODEL_WORK // 4
        return model_value(deal, self.seat, self.game_points)


class MasterBot(ExpertBot):
    """The ``master`` level (see the module doc)."""

    level = "master"

    def __init__(
        self, default_budget_ms: int = DEFAULT_BUDGET_MS, *, wall_clock_guard: bool = True
    ) -> None:
        super().__init__(default_budget_ms, wall_clock_guard=wall_clock_guard)

    def search(self, view: SeatView, seed: int, budget: int) -> Search:
        return MasterSearch(view, seed, budget, wall_clock_guard=self.wall_clock_guard)


__all__ = ["HORIZON_TRICKS", "MasterBot", "MasterSearch"]
