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

from dataclasses import dataclass

from .actions import Action
from .cards import Card, Suit
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


@dataclass(frozen=True, slots=True)
class DealObservation:
    """The running (or just finished) deal as one viewer may know it."""

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
    #: The cards of each hand that both seats have seen (R11a, R11b).
    revealed_cards: tuple[tuple[Card, ...], tuple[Card, ...]]
    #: Each seat's card points where they are shown (R7d, R7e), else None.
    card_points: tuple[int, int] | None
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


@dataclass(frozen=True, slots=True)
class Observation:
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
    seen = None
    if deal is not None:
        over = deal.result is not None
        hands = deal.hands
        to_move = state.to_move
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
            revealed_cards=(
                tuple(deal.public_cards_in_hand(0)),
                tuple(deal.public_cards_in_hand(1)),
            ),
            card_points=(
                (deal.card_points(0), deal.card_points(1))
                if over or state.variant is Variant.TRACKED  # R7d, R7e
                else None
            ),
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
        to_move=state.to_move,
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
