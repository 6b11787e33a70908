"""Deals consistent with what one seat knows: the expert's determinizations.

A seat knows its hand, every played card, the cards the opponent has shown
(``SeatView.known_opponent_cards``) and, since the follower must follow,
beat and trump in strict play (R5), what the opponent did *not* hold: a
follower who did not follow suit had none of the suit led; one who did not
trump either had no trump; one who followed with a lower card had no higher
card of that suit. Nobody draws once play is strict, so these voids last to
the end of the deal. ``WorldSampler`` fills the unseen places (the
opponent's unknown cards, the talon) at random within those facts.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from itertools import combinations
from math import comb

from service.engine.cards import SUITS
from service.engine.core import FastDeal, cards_in, mask_of
from service.engine.knowledge import SeatView
from service.engine.masks import HIGHER, SUIT, SUIT_MASK
from service.engine.state import HAND_SIZE

#: Face-down cards of a fresh talon (the turn-up not counted).
FULL_TALON = 20 - 2 * HAND_SIZE - 1


def strict_from_trick(view: SeatView) -> int:
    """The index of the first trick played under strict rules (R5): after the close or the talon."""
    if view.closed_by is not None:
        # Nobody draws after a close: the talon's size tells how many tricks came before.
        return (FULL_TALON - view.talon_size) // 2
    return FULL_TALON // 2 + 1  # the talon is exhausted after the fifth trick (R3b)


def opponent_voids(view: SeatView) -> int:
    """Cards the opponent cannot hold, shown by its strict-play answers (R5a, R5b)."""
    opponent = view.opponent
    trump_mask = SUIT_MASK[SUITS.index(view.trump)]
    forbidden = 0
    for trick in view.tricks[strict_from_trick(view) :]:
        if trick.leader == opponent:
            continue
        lead, follow = trick.lead.order, trick.follow.order
        if SUIT[follow] != SUIT[lead]:
            forbidden |= SUIT_MASK[SUIT[lead]]  # could not follow suit
            if not trump_mask >> follow & 1:
                forbidden |= trump_mask  # could not trump either
        elif follow > lead:
            forbidden |= HIGHER[lead]  # could not beat the led card
    return forbidden


class WorldSampler:
    """Random complete deals (``FastDeal``) consistent with one seat's view."""

    def __init__(self, view: SeatView) -> None:
        self.view = view
        self.seat = view.seat
        self.opponent = view.opponent
        self.template = FastDeal.from_engine(view.sample_deal(), view.variant)
        self.known = mask_of(view.known_opponent_cards())
        self.unseen = cards_in(mask_of(view.unseen_cards()))
        self.need = view.opponent_hand_size - self.known.bit_count()
        forbidden = opponent_voids(view)
        self.allowed = [c for c in self.unseen if not forbidden >> c & 1]
        self.banned = [c for c in self.unseen if forbidden >> c & 1]
        if len(self.allowed) < self.need:  # cannot happen with legal play; stay safe
            self.allowed, self.banned = self.unseen, []

    @property
    def exact(self) -> bool:
        """Whether only one deal is possible (the talon is exhausted: everything is seen)."""
        return self.need == len(self.allowed) and not self.view.talon_size

    def hand_count(self) -> int:
        """How many opponent hands are possible (the talon's order aside)."""
        return comb(len(self.allowed), self.need)

    def world(self, hidden_hand: list[int] | tuple[int, ...], talon: list[int]) -> FastDeal:
        deal = self.template.copy()
        mask = self.known
        for c in hidden_hand:
            mask |= 1 << c
        deal.hands[self.opponent] = mask
        deal.talon = talon
        deal.talon_pos = 0
        return deal

    def sample(self, rng: random.Random) -> FastDeal:
        """One deal, the unseen cards placed uniformly at random within the known voids."""
        allowed = self.allowed[:]
        rng.shuffle(allowed)
        hand = allowed[: self.need]
        talon = allowed[self.need :] + self.banned
        rng.shuffle(talon)
        return self.world(hand, talon)

    def every_hand(self) -> Iterator[FastDeal]:
        """Every possible opponent hand once (for a closed talon: its order does not matter)."""
        for hand in combinations(self.allowed, self.need):
            rest = [c for c in self.allowed if c not in hand] + self.banned
            yield self.world(hand, rest)
