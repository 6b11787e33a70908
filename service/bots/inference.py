"""The opponent's past decisions in a sampled deal, and how likely its play was there.

A searching bot samples the deals its seat cannot tell apart as if each were
as likely as the next; the opponent's plays say otherwise. To weigh a sampled
deal by how likely the opponent's past actions were in it, each action is
put back where it was taken: what the opponent saw then (its ``SeatView`` at
that decision, R11) and what it did. The public part of that view follows
from the seat's own view (``past_decisions``: the tricks before it, the
marriages already declared, a close, the talon's size then); the opponent's
hand then does not: it is its hand now, plus the cards it played since,
less the cards it drew since, and which of its cards it drew when is hidden.

A sampled deal therefore fixes the opponent's draws too (``past_hands``):
walking back from its hand in that deal, each card it drew after an open
trick is chosen at random among the cards it held just after drawing,
except those it surely held before (a marriage's King and Queen from the
lead where it declared them; the face-up card, drawn last and known). Every
such history is as likely as another under a shuffled deck (the count of
choices at each step is fixed by public facts), so one history drawn this
way makes the likelihood an unbiased estimate of the deal's.

The one fact a view does not keep is *when* a trump jack was exchanged
(R6a: at some lead while the talon was open): before it, the face-up card,
the exchanger's hand and the public facts were other. After an exchange only
the decisions made once the talon was closed or exhausted are weighed
(``first_weighed_trick``): their views follow exactly, the exchange being
surely past. This is the one approximation; everything else is exact for the
history drawn.

``world_weight`` multiplies, over the weighed decisions, the opponent
model's probability of the action taken (``opponent_model``), each mixed
with a uniform choice among the legal actions (``FLOOR_SHARE``), so that no
deal the rules allow weighs 0 however sure the model is. Buro, Long, Furtak
and Sturtevant (2009) weighed Skat worlds the same way, by the product of
a policy's probabilities of the opponents' past moves; in Skat nobody draws,
so the past hands follow from the world alone.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from service.bots.action_features import (
    action_inputs,
    breaks_marriage,
    decision_inputs,
    is_master,
    slot_of,
)
from service.bots.opponent_model import (
    probabilities,
    scores_of_first_layer,
    shipped_model,
    softmax,
)
from service.bots.sampling import FULL_TALON
from service.engine.actions import CLOSE_TALON, DECLARE_MARRIAGE, PLAY, Action
from service.engine.cards import Card, sort_cards
from service.engine.knowledge import SeatView
from service.engine.rules import deal_legal_actions
from service.engine.state import DealState, Marriage

#: The open tricks before the talon runs out (R3b): the fifth trick's loser draws the face-up card.
OPEN_TRICKS = FULL_TALON // 2 + 1
#: The share of each past action's probability that is uniform over the legal actions.
FLOOR_SHARE = 0.1
#: Work units of one call of the model for a past decision and a hand (``DecisionOdds``),
#: counted by a search as ``expert``'s units are: about its cost in quarter microseconds
#: (numpy and plain Python: compiling the search does not make it faster).
MODEL_WORK = 300


@dataclass(frozen=True, slots=True)
class PastDecision:
    """One action the opponent took earlier in the deal, with the view it took it from.

    ``before`` is the opponent's ``SeatView`` at the decision with an empty hand: a
    sampled deal fills it in (``with_hand``).
    """

    trick: int
    action: Action
    before: SeatView

    def with_hand(self, hand: Sequence[Card]) -> SeatView:
        return replace(self.before, hand=tuple(sort_cards(hand)))


def marriage_tricks(view: SeatView) -> list[int]:
    """The trick at whose lead each marriage of ``view.marriages`` was declared.

    A declarer must lead the marriage's King or Queen (R6c) and held both until then,
    so it is the first trick in which the declarer played either card; a marriage
    whose card is not yet led was declared at the current lead.
    """
    found: list[int] = []
    for marriage in view.marriages:
        royals = marriage.cards
        at = len(view.tricks)
        for index, trick in enumerate(view.tricks):
            if trick.leader == marriage.seat and trick.lead in royals:
                at = index
                break
        found.append(at)
    return found


def closed_at(view: SeatView) -> int | None:
    """The trick at whose lead the talon was closed (nobody draws after a close)."""
    if view.closed_by is None:
        return None
    return (FULL_TALON - view.talon_size) // 2


def first_weighed_trick(view: SeatView) -> int:
    """The first trick whose decisions are weighed: all of them, unless a trump jack was
    exchanged at a lead the view does not name; then those from the close or the talon's
    end on, where the exchange is surely past."""
    if view.exchanged_by is None:
        return 0
    close = closed_at(view)
    return close if close is not None else OPEN_TRICKS


def past_decisions(view: SeatView) -> tuple[PastDecision, ...]:
    """The opponent's weighed decisions of the deal so far, oldest first, each with the
    public part of its view (its closes, marriages and card plays; an exchange is not
    weighed: see the module doc)."""
    opponent = view.opponent
    close = closed_at(view)
    declared_at = marriage_tricks(view)
    decisions: list[PastDecision] = []
    current = len(view.tricks)
    for k in range(first_weighed_trick(view), current + 1):
        if k < current:
            trick = view.tricks[k]
            leader, lead, follow = trick.leader, trick.lead, trick.follow
        elif view.lead_card is not None:
            leader, lead, follow = view.leader, view.lead_card, None
        else:
            break  # the seat leads the current trick: the opponent has not acted in it
        closed = close is not None and close <= k
        before = _view_at(view, k, leader, closed, _marriages_before(view, declared_at, k))
        if leader != opponent:
            if follow is None:
                break
            shown = _marriages_before(view, declared_at, k + 1)
            decisions.append(
                PastDecision(k, PLAY[follow], replace(before, marriages=shown, lead_card=lead))
            )
            continue
        if close == k and view.closed_by == opponent:
            decisions.append(
                PastDecision(k, CLOSE_TALON, replace(before, closed_by=None, at_close=None))
            )
        for marriage, at in zip(view.marriages, declared_at, strict=True):
            if at == k and marriage.seat == opponent:
                decisions.append(PastDecision(k, DECLARE_MARRIAGE[marriage.suit], before))
                before = replace(
                    before, marriages=(*before.marriages, marriage), declared=marriage.suit
                )
        decisions.append(PastDecision(k, PLAY[lead], before))
    return tuple(decisions)


def _marriages_before(view: SeatView, declared_at: list[int], k: int) -> tuple[Marriage, ...]:
    return tuple(m for m, at in zip(view.marriages, declared_at, strict=True) if at < k)


def _view_at(
    view: SeatView, k: int, leader: int, closed: bool, marriages: tuple[Marriage, ...]
) -> SeatView:
    """The opponent's view at the lead of trick ``k`` (its hand left empty)."""
    exhausted = not closed and k >= OPEN_TRICKS
    talon_size = view.talon_size if closed else max(FULL_TALON - 2 * k, 0)
    return replace(
        view,
        seat=view.opponent,
        hand=(),
        talon_size=talon_size,
        turn_up_drawn_by=view.turn_up_drawn_by if exhausted else None,
        leader=leader,
        lead_card=None,
        tricks=view.tricks[:k],
        marriages=marriages,
        declared=None,
        closed_by=view.closed_by if closed else None,
        at_close=view.at_close if closed else None,
    )


def past_hands(
    view: SeatView, decisions: Sequence[PastDecision], hand: Sequence[Card], rng: random.Random
) -> list[tuple[Card, ...]] | None:
    """The opponent's hand at each of ``decisions``, in a deal where it now holds ``hand``,
    its hidden draws chosen at random (module doc); None if no history fits (the deal
    breaks a fact the view records: not with legal play)."""
    if not decisions:
        return []
    opponent = view.opponent
    close = closed_at(view)
    declared_at = marriage_tricks(view)
    held = set(hand)
    if view.lead_card is not None and view.leader == opponent:
        held.add(view.lead_card)
    at_start: dict[int, tuple[Card, ...]] = {len(view.tricks): tuple(held)}
    for k in range(len(view.tricks) - 1, decisions[0].trick - 1, -1):
        trick = view.tricks[k]
        if (close is None or close > k) and k < OPEN_TRICKS:  # drawn after trick k (R3a)
            if k == OPEN_TRICKS - 1 and trick.winner != opponent:
                drawn = view.turn_up  # the loser of the last open trick takes it (R3b)
                if drawn not in held:
                    return None
            else:
                kept = {
                    card
                    for m, at in zip(view.marriages, declared_at, strict=True)
                    if m.seat == opponent and at <= k
                    for card in m.cards
                }
                choices = sort_cards(held - kept)
                if not choices:
                    return None
                drawn = choices[rng.randrange(len(choices))]
            held.discard(drawn)
        held.add(trick.card_of(opponent))
        at_start[k] = tuple(held)
    return [at_start[decision.trick] for decision in decisions]


def action_probability(view: SeatView, action: Action) -> float:
    """The model's probability of ``action`` from ``view``, floored (``FLOOR_SHARE``); 1 for
    a forced action, 0 for one the view does not allow."""
    odds = probabilities(view)
    for legal, p in odds:
        if legal == action:
            return floored(p, len(odds))
    return 0.0


def floored(p: float, choices: int) -> float:
    """A probability mixed with a uniform choice among ``choices`` (``FLOOR_SHARE``)."""
    return (1.0 - FLOOR_SHARE) * p + FLOOR_SHARE / choices


class DecisionOdds:
    """``action_probability`` of one past decision, for any hand the opponent may have held.

    The same as building the view with that hand and asking the model, up to float32
    rounding, for a fraction of the cost: only the hand changes from one sampled deal to
    the next, so the first layer's sums of the decision's public inputs are kept, and each
    action's, and a hand adds its own (the hand's cards among the position's inputs, and
    the two action inputs that read the hand: ``action_features.HAND_INPUTS``).
    """

    def __init__(self, decision: PastDecision) -> None:
        self.decision = decision
        self.layers = shipped_model().layers
        self.variant = decision.before.variant
        self.mover = decision.before.seat
        self.played = frozenset(decision.before.played)
        #: Set by the first hand: the position's first-layer sums without the hand, the
        #: rows of the hand's cards, a deal to ask the rules for the legal actions.
        self.position: np.ndarray | None = None
        self.hand_rows: np.ndarray | None = None
        self.template: DealState | None = None
        self.slots: dict[Card, int] = {}
        self.rows: dict[tuple[int, bool, bool], np.ndarray] = {}

    def probability(self, hand: Sequence[Card]) -> float:
        held = tuple(sort_cards(hand))
        if self.template is None:
            self._start(self.decision.with_hand(held))
        assert self.template is not None and self.position is not None
        assert self.hand_rows is not None
        hands = [held, held]
        hands[1 - self.mover] = self.template.hands[1 - self.mover]
        deal = self.template._replace(hands=(hands[0], hands[1]))
        legal = deal_legal_actions(deal, self.variant)
        if self.decision.action not in legal:
            return 0.0
        if len(legal) == 1:
            return 1.0
        seen = self.played.union(held)
        position = self.position + self.hand_rows[[self.slots[card] for card in held]].sum(0)
        sums = np.stack([self._row(held, action, seen) for action in legal]) + position
        odds = softmax(scores_of_first_layer(self.layers, sums).astype(np.float64))
        return floored(float(odds[legal.index(self.decision.action)]), len(legal))

    def _start(self, view: SeatView) -> None:
        weight, bias = self.layers[0]
        self.slots = {card: slot_of(card, view) for card in Card}
        position = np.array(decision_inputs(view), dtype=np.float32)
        for card in view.hand:
            position[self.slots[card]] = 0.0  # the hand group comes first (features.LAYOUT)
        width = len(position)
        self.position = position @ weight[:width] + bias
        self.hand_rows = weight[:20]
        self.template = view.sample_deal()

    def _row(self, held: tuple[Card, ...], action: Action, seen: frozenset[Card]) -> np.ndarray:
        """The first-layer sums of one legal action's inputs (actions are shared values:
        ``id`` keys them)."""
        card = action.card
        key = (
            id(action),
            card is not None and breaks_marriage(card, held),
            card is not None and is_master(card, seen),
        )
        row = self.rows.get(key)
        if row is None:
            weight = self.layers[0][0]
            inputs = np.array(action_inputs(self.decision.with_hand(held), action), np.float32)
            row = self.rows[key] = inputs @ weight[weight.shape[0] - len(inputs) :]
        return row


__all__ = [
    "FLOOR_SHARE",
    "MODEL_WORK",
    "DecisionOdds",
    "PastDecision",
    "action_probability",
    "closed_at",
    "first_weighed_trick",
    "floored",
    "marriage_tricks",
    "past_decisions",
    "past_hands",
]
