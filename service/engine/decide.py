"""The engine decides: one player action in, the events to record out.

``decide`` is what a command does between loading a game and appending to
its log: check the action, apply it, and when it ends a deal of a game that
goes on, deal the next deal (R10b, R10c: the game's dealer alternates, and a
finished game deals no more). The caller supplies the next deck and its
fairness nonce as functions, so nothing is shuffled unless a deal starts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .actions import Action
from .cards import Card
from .events import ActionTaken, DealStarted, Event
from .game import apply, start_deal
from .state import GameState


@dataclass(frozen=True, slots=True)
class Decision:
    """The events to append for one action, and the state they lead to."""

    state: GameState
    events: tuple[Event, ...]


def decide(
    state: GameState,
    seat: int,
    action: Action,
    next_deck: Callable[[int], Sequence[Card]],
    nonce: Callable[[], str | None] = lambda: None,
) -> Decision:
    """``seat`` takes ``action``; raises ``IllegalActionError`` (with its rule) if it may not.

    ``next_deck(number)`` gives the deck of deal ``number`` and ``nonce()`` its
    commitment's nonce; both are called only when the action ends a deal and
    the game goes on.
    """
    after = apply(state, action, seat)
    events: list[Event] = [ActionTaken(seat, action)]
    if after.awaiting_deal:
        after = start_deal(after, next_deck(len(after.results) + 1))
        deal = after.deal
        assert deal is not None
        events.append(DealStarted(deal.number, deal.dealer, deal.deck, nonce()))
    return Decision(after, tuple(events))
