"""``master``: the expert's search with a learned value in place of long playouts.

A bot the benchmarks can name (``get_bot("master")``) but the service does not
offer: measured against the expert it wins no more often (about 50% of 800
games, docs/history/bot-strength.md), so it is not on the ladder. It is kept
as the base for the next measured tries.

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

With the talon closed and the opponent's hand hidden, ``master`` values its
actions over every possible opponent hand at once (``presumed``: one choice
of its own for all the hands it cannot tell apart, no strategy fusion) when
there are at most ``PRESUMED_HANDS`` of them and the search fits in
``PRESUMED_SHARE`` of the budget; else, as the expert, each hand is solved
on its own and the values averaged.

A model value costs less than a playout and a solve, so within the same
think time ``master`` values more sampled deals. Its work is counted in the
expert's deterministic units (``MODEL_WORK`` per value), so the same view,
seed and budget give the same decision.
"""

from __future__ import annotations

from service.bots.classic import classic_action
from service.bots.expert import STEP_WORK, VALUE_WORK, ExpertBot, Search
from service.bots.presumed import PresumedSearch, TooLarge
from service.bots.value_model import value as model_value
from service.engine.core import FastDeal
from service.engine.knowledge import SeatView

#: Tricks played by the classic policy after the action before the model values the
#: position (a trick the action leads counts as the first).
HORIZON_TRICKS = 3
#: Work units of one model value (about its cost in microseconds, as ``expert``'s units).
MODEL_WORK = 20
#: Search a closed talon over the seat's information set when the opponent may hold at
#: most this many hands (more worlds: the per-hand solve, which can stop early).
PRESUMED_HANDS = 40
#: The share of the budget the presumed search may use before it gives way to the
#: per-hand solve (which then has the rest, and at least one hand).
PRESUMED_SHARE = 0.5
#: Work units per world at a node of the presumed search (copies and actions; it gains
#: about half as much as the solver from compiling, so a unit is a compiled quarter microsecond).
PRESUMED_WORK = 4


class MasterSearch(Search):
    """The expert's search, its open-talon playouts cut at the horizon and its closed
    talon searched over the seat's information set."""

    def _run(self, actions: list[int]) -> dict[int, float]:
        sampler = self.sampler
        if sampler.exact or sampler.template.talon_open or sampler.hand_count() > PRESUMED_HANDS:
            return super()._run(actions)
        worlds = list(sampler.every_hand())
        limit = int(self.work_limit * PRESUMED_SHARE) - self.work
        search = PresumedSearch(
            self.solver(worlds[0]), self.seat, limit, PRESUMED_WORK, self.deadline
        )
        try:
            values = search.action_values(worlds)
        except TooLarge:
            values = {}
        # The solver counts its own nodes in ``work``; the visits count as steps.
        self.steps += -(-search.visits * PRESUMED_WORK // STEP_WORK)
        return values if values else super()._run(actions)

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
        self.values_computed += MODEL_WORK // VALUE_WORK  # the expert's units, as a value's
        return model_value(deal, self.seat, self.game_points)


class MasterBot(ExpertBot):
    """The ``master`` bot (see the module doc)."""

    level = "master"

    def search(self, view: SeatView, seed: int, budget: int) -> Search:
        return MasterSearch(view, seed, budget, wall_clock_guard=self.wall_clock_guard)


__all__ = ["HORIZON_TRICKS", "MasterBot", "MasterSearch"]
