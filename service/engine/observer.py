"""The observer: what a viewer may know of a state (docs/rules.md, R11), decided once.

``observe(state, viewer)`` is the one place that reads the hidden parts of a
state (the hands, the talon's order, the deck) and decides what of them a
viewer may know: a seat (0 or 1; a bot in a seat is that seat) or a spectator
(``None``). Every view the service gives is rendered from its result, an
``Observation``: the HTTP view and the event filter (``observation``), replay
frames (``frames``), a bot's input (``knowledge.seat_view``), positions
(``position``) and webhook notices. A renderer reads the observation only, so
a view cannot show what the observer withheld.

Deny by default: a hand is in the observation only for its own seat, or for
everyone once the game it belongs to is over (``revealed``, R11d); the talon
only as its size; the deck only when revealed.
"""

from __future__ import annotations

from typing import NamedTuple

from .actions import Action
from .cards import Card, Suit, sort_cards
from .game import legal_actions
from .state import (
    Dealing,
    DealResult,
    GameEnd,
    GameState,
    GameStatus,
    Marriage,
    Trick,
    Variant,
)

#: Who looks: seat 0, seat 1, or ``None`` for a spectator.
Viewer = int | None


class DealObservation(NamedTuple):
    """The running (or just finished) deal as one viewer may know it.

    Immutable; a NamedTuple, as ``DealState`` is, because the event feed and
    the replay frames build one per event.
    """

    number: int
    dealer: int
    trump: Suit
    #: The face-up card (after an exchange: the trump jack); public even once drawn.
    turn_up: Card
    turn_up_drawn_by: int | None
    #: Face-down cards left in the talon: their number, never their order.
    talon_size: int
    leader: int
    lead_card: Card | None
    tricks: tuple[Trick, ...]
    marriages: tuple[Marriage, ...]
    declared: Suit | None
    closed_by: int | None
    #: The closer's opponent's (card points, tricks) at the close: follows from the tricks.
    at_close: tuple[int, int] | None
    exchanged_by: int | None
    exchanged_card: Card | None
    result: DealResult | None
    #: How many cards each seat holds (R11a).
    hand_sizes: tuple[int, int]
    #: Each seat's hand where the viewer may see it, else None.
    visible_hands: tuple[tuple[Card, ...] | None, tuple[Card, ...] | None]
    #: Whether the seats' card points are shown (R7d, R7e).
    points_shown: bool
    #: The deck the deal was dealt from, once it may be shown (R11d), else None.
    visible_deck: tuple[Card, ...] | None
    #: The viewer's legal actions when the viewer is to move, else empty.
    legal_actions: tuple[Action, ...]

    @property
    def trump_card(self) -> Card | None:
        """The trump card while it lies under the talon (R11a), else None."""
        return self.turn_up if self.turn_up_drawn_by is None else None

    def tricks_won(self, seat: int) -> int:
        return sum(1 for trick in self.tricks if trick.winner == seat)

    def revealed_cards(self, seat: int) -> list[Card]:
        """The cards of ``seat``'s hand that both seats have seen (R11a, R11b): shown
        marriage cards, the card taken by the exchange, the drawn turn-up, not yet played."""
        shown: set[Card] = set()
        for marriage in self.marriages:
            if marriage.seat == seat:
                shown.update(marriage.cards)
        if self.exchanged_by == seat and self.exchanged_card is not None:
            shown.add(self.exchanged_card)
        if self.turn_up_drawn_by == seat:
            shown.add(self.turn_up)
        if not shown:
            return []
        shown.difference_update(
            card for trick in self.tricks for card in (trick.lead, trick.follow)
        )
        if self.lead_card is not None:
            shown.discard(self.lead_card)
        return sort_cards(shown)

    @property
    def card_points(self) -> tuple[int, int] | None:
        """Each seat's card points (tricks, and its marriages once it won a trick: R7a,
        R6d) where they are shown, else None."""
        if not self.points_shown:
            return None
        points = [0, 0]
        for trick in self.tricks:
            points[trick.winner] += trick.points
        for seat in (0, 1):
            if self.marriages and self.tricks_won(seat):
                points[seat] += sum(m.points for m in self.marriages if m.seat == seat)
        return (points[0], points[1])


class Observation(NamedTuple):
    """A state as one viewer may know it: the only input of every view."""

    viewer: Viewer
    #: The game is over and every card of it may be shown (see ``observe``).
    revealed: bool
    status: GameStatus
    variant: Variant
    dealing: Dealing
    game_points: tuple[int, int]
    winner: int | None
    to_move: int | None
    over: bool
    ending: GameEnd | None
    results: tuple[DealResult, ...]
    deal: DealObservation | None


def observe(state: GameState, viewer: Viewer, *, revealed: bool = False) -> Observation:
    """What ``viewer`` may know of ``state``.

    ``revealed`` says that the game ``state`` belongs to is over, so its decks
    and every hand may be shown (R11d); a caller that shows an earlier step of
    a finished game passes it, since ``state`` alone cannot tell.
    """
    deal = state.deal
    to_move = state.to_move
    seen = None
    if deal is not None:
        over = deal.result is not None
        hands = deal.hands
        seen = DealObservation(
            number=deal.number,
            dealer=deal.dealer,
            trump=deal.trump,
            turn_up=deal.turn_up,
            turn_up_drawn_by=deal.turn_up_drawn_by,
            talon_size=len(deal.talon),
            leader=deal.leader,
            lead_card=deal.lead_card,
            tricks=deal.tricks,
            marriages=deal.marriages,
            declared=deal.declared,
            closed_by=deal.closed_by,
            at_close=deal.at_close,
            exchanged_by=deal.exchanged_by,
            exchanged_card=deal.exchanged_card,
            result=deal.result,
            hand_sizes=(len(hands[0]), len(hands[1])),
            visible_hands=(
                hands[0] if revealed or viewer == 0 else None,
                hands[1] if revealed or viewer == 1 else None,
            ),
            points_shown=over or state.variant is Variant.TRACKED,  # R7d, R7e
            visible_deck=deal.deck if revealed else None,
            legal_actions=(
                tuple(legal_actions(state)) if viewer is not None and viewer == to_move else ()
            ),
        )
    return Observation(
        viewer=viewer,
        revealed=revealed,
        status=state.status,
        variant=state.variant,
        dealing=state.dealing,
        game_points=state.game_points,
        winner=state.winner,
        to_move=to_move,
        over=state.over,
        ending=state.ending,
        results=state.results,
        deal=seen,
    )


def deck_revealed(latest: GameState) -> bool:
    """Whether the decks of a game (and their fairness nonces) may be shown: once it is over.

    R11d allows showing a finished deal's record to both players at once;
    the service waits for the end of the game, for everyone, because its
    fair-deal promise is that no deck leaves the server before then.
    """
    return latest.over


def hands_revealed(latest: GameState) -> bool:
    """Whether every hand of a game's steps may be shown: once a seat won it (R11d).

    A game a seat called off keeps its hands hidden in the replay's frames.
    """
    return latest.winner is not None
