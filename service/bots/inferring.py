"""``inferring``: the expert's search over sampled deals weighed by the opponent's past play.

A bot the benchmarks can name (``get_bot("inferring")``) but the service
does not offer: measured against the expert it wins no more often (three
tries, each stopped by the sequential test at 37 to 46% of games, then 47.5%
of 800 games; docs/history/bot-strength.md, round 2). It is kept as the base
for a better opponent model or another use of its likelihoods.

The expert samples the deals its seat cannot tell apart uniformly and plays
the action with the best plain average over them. ``inferring`` samples the
same deals (the same seed gives the same deals in the same order) and values
them the same way, but averages each deal's values with the weight
``inference`` gives it: the opponent model's probability of every action the
opponent took earlier in the deal, from the view it had then in that deal,
floored so that no deal the rules allow weighs 0. A deal in which the
opponent's play was likely counts more than one in which it made a move the
model finds odd.

The weight's cost is counted in the expert's deterministic units
(``inference.MODEL_WORK`` per call of the model), so the same view, seed and budget
give the same decision; it buys fewer sampled deals within a budget than
the expert values. The opponent's past hands are drawn from a random stream
of their own, so the deals themselves are the expert's.
"""

from __future__ import annotations

import random

from service.bots.expert import VALUE_WORK, ExpertBot, Search
from service.bots.inference import MODEL_WORK, DecisionOdds, past_decisions, past_hands
from service.engine.core import FastDeal, card_of, cards_in
from service.engine.knowledge import SeatView

#: Mixed into the search's seed for the stream that draws the opponent's past hands.
HISTORY_STREAM = 0x5EED


class InferringSearch(Search):
    """The expert's search, each sampled deal weighed by the opponent's past play."""

    def __init__(
        self, view: SeatView, seed: int, budget_ms: int, *, wall_clock_guard: bool = True
    ) -> None:
        super().__init__(view, seed, budget_ms, wall_clock_guard=wall_clock_guard)
        self.decisions = past_decisions(view)
        self.odds = [DecisionOdds(decision) for decision in self.decisions]
        self.history_rng = random.Random(seed ^ HISTORY_STREAM)
        #: The model's probability of a past decision's action, by decision and hand.
        self.likelihoods: dict[tuple[int, tuple[int, ...]], float] = {}
        self.model_calls = 0

    def weight(self, deal: FastDeal) -> float:
        """The product, over the opponent's past decisions, of the floored probability of
        what it did, from its view then in ``deal`` (``inference``)."""
        if not self.decisions:
            return 1.0
        hand = [card_of(c) for c in cards_in(deal.hands[self.view.opponent])]
        hands = past_hands(self.view, self.decisions, hand, self.history_rng)
        if hands is None:
            return 0.0
        weight = 1.0
        for index, (odds, held) in enumerate(zip(self.odds, hands, strict=True)):
            key = (index, tuple(sorted(card.order for card in held)))
            p = self.likelihoods.get(key)
            if p is None:
                p = odds.probability(held)
                self.likelihoods[key] = p
                self.model_calls += 1
                self.values_computed += MODEL_WORK // VALUE_WORK
            weight *= p
        return weight


class InferringBot(ExpertBot):
    """The ``inferring`` bot (see the module doc)."""

    level = "inferring"

    def search(self, view: SeatView, seed: int, budget: int) -> Search:
        return InferringSearch(view, seed, budget, wall_clock_guard=self.wall_clock_guard)


__all__ = ["InferringBot", "InferringSearch"]
