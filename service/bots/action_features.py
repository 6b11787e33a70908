"""A decision as numbers for the opponent model (``opponent_model``): only what the mover knows.

The opponent model scores each legal action of the seat to move from two
parts:

- ``decision_inputs(view)``: the position as the mover sees it, the same for
  every action: ``features.encode_view`` (its hand, the tricks, the shown
  cards, the points, the match score) plus the card led to it, if any, which
  ``encode_view`` leaves out (it encodes a trick's start);
- ``action_inputs(view, action)``: the action itself: its type, its card
  (suits relabelled trumps first, as ``features`` does), the card's rank,
  points and whether it is a trump, and how it stands in the trick and the
  hand: a lead, a card that follows suit, takes the trick or trumps in, the
  points the trick would carry, a King or Queen played while its marriage
  partner is still in hand, a master card (no unseen card of its suit beats it).

Both read a ``SeatView`` and nothing else, so the model cannot learn from a
card the mover could not see (R11).
"""

from __future__ import annotations

from collections.abc import Collection

from service.bots.features import RANKS, SUIT_SLOTS, encode_view
from service.engine.actions import Action, ActionType
from service.engine.cards import Card, Rank
from service.engine.knowledge import SeatView

#: The action types, in ``ActionType``'s order.
TYPES: tuple[ActionType, ...] = tuple(ActionType)
#: The inputs after the type and card groups, in order.
ACTION_SCALARS = (
    "trump",  # the card (or the marriage) is of the trump suit
    "points",  # the card's points, / 11
    "leads",  # a card played with no card led
    "follows_suit",  # a card of the led suit
    "wins",  # takes the led card
    "trumps_in",  # a trump on a led card of another suit
    "trick_points",  # the led card's and this card's points, / 22 (0 for a lead)
    "breaks_marriage",  # a King or Queen whose partner is still in the hand
    "master",  # every card of its suit that beats it is in the hand or played
)
#: The name of every action input, in order.
ACTION_LAYOUT: tuple[str, ...] = (
    *(f"type.{kind.value}" for kind in TYPES),
    *(f"card.{slot}.{rank}" for slot in SUIT_SLOTS for rank in RANKS),
    *(f"rank.{rank}" for rank in RANKS),
    *ACTION_SCALARS,
)
#: The inputs of the position: ``features.LAYOUT`` then the led card, trumps first.
LED_LAYOUT: tuple[str, ...] = tuple(f"led.{slot}.{rank}" for slot in SUIT_SLOTS for rank in RANKS)
ACTION_SIZE = len(ACTION_LAYOUT)
_CARDS_AT = len(TYPES)
_RANKS_AT = _CARDS_AT + 20
_SCALARS_AT = _RANKS_AT + len(RANKS)
_TOP_CARD = 11.0
_PARTNER = {Rank.KING: Rank.QUEEN, Rank.QUEEN: Rank.KING}


def slot_of(card: Card, view: SeatView) -> int:
    """The card's place among 20 once the trump suit comes first (``features`` order)."""
    trump = view.trump.number
    suits = [trump] + [s for s in range(4) if s != trump]
    return 5 * suits.index(card.suit.number) + card.order % 5


def decision_inputs(view: SeatView) -> list[float]:
    """The position's inputs for the mover of ``view``: ``encode_view`` then the led card."""
    led = [0.0] * 20
    if view.lead_card is not None:
        led[slot_of(view.lead_card, view)] = 1.0
    return [*encode_view(view), *led]


def action_inputs(view: SeatView, action: Action) -> list[float]:
    """The inputs (``ACTION_LAYOUT``) of one legal ``action`` of the mover of ``view``."""
    out = [0.0] * ACTION_SIZE
    out[TYPES.index(action.type)] = 1.0
    at = _SCALARS_AT
    if action.type is ActionType.DECLARE_MARRIAGE and action.suit is not None:
        out[at] = 1.0 if action.suit is view.trump else 0.0
    card = action.card
    if card is None:
        return out
    out[_CARDS_AT + slot_of(card, view)] = 1.0
    out[_RANKS_AT + RANKS.index(card.rank.value)] = 1.0
    out[at] = 1.0 if card.suit is view.trump else 0.0
    out[at + 1] = card.points / _TOP_CARD
    led = view.lead_card
    if led is None:
        out[at + 2] = 1.0
    else:
        out[at + 3] = 1.0 if card.suit is led.suit else 0.0
        out[at + 4] = 1.0 if card.beats(led, view.trump) else 0.0
        out[at + 5] = 1.0 if card.suit is view.trump and led.suit is not view.trump else 0.0
        out[at + 6] = (card.points + led.points) / (2 * _TOP_CARD)
    if breaks_marriage(card, view.hand):
        out[at + 7] = 1.0
    if is_master(card, set(view.played) | set(view.hand)):
        out[at + 8] = 1.0
    return out


#: Where the two inputs that depend on the mover's hand sit (``breaks_marriage``, ``master``).
HAND_INPUTS = (_SCALARS_AT + 7, _SCALARS_AT + 8)


def breaks_marriage(card: Card, hand: Collection[Card]) -> bool:
    """A King or Queen played while its marriage partner is still in ``hand``."""
    partner = _PARTNER.get(card.rank)
    return partner is not None and Card.of(partner, card.suit) in hand


def is_master(card: Card, seen: Collection[Card]) -> bool:
    """Every card of its suit that beats ``card`` is in ``seen`` (the hand or played)."""
    return all(c in seen for c in _HIGHER[card])


#: The cards of its suit that beat each card.
_HIGHER: dict[Card, tuple[Card, ...]] = {
    card: tuple(c for c in Card if c.suit is card.suit and c.strength > card.strength)
    for card in Card
}
