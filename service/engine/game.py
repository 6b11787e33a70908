"""A game of Schnapsen: a match of deals from 7 game points down to 0 (R10).

The public face of the engine:

- ``new_game`` / ``take_seat`` / ``start_deal`` build a game from its facts;
- ``legal_actions(state)`` lists what the seat to move may do;
- ``apply(state, action, seat)`` returns the next state or raises
  ``IllegalActionError``; the given state never changes.

A deal that ends updates the game points; the game then waits for the next
deck (``state.awaiting_deal``), which the caller deals with ``start_deal``:
the shuffle is a recorded fact, so replaying a game draws no random numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .actions import Action
from .cards import Card, check_deck, sort_cards
from .errors import ErrorCode, IllegalActionError, InvalidDeckError
from .rules import deal_legal_actions, play_action
from .state import (
    HAND_SIZE,
    START_GAME_POINTS,
    Dealing,
    DealResult,
    DealState,
    GameState,
    Variant,
)


def new_game(
    variant: Variant = Variant.HEAD, first_dealer: int = 0, dealing: Dealing = Dealing.RANDOM
) -> GameState:
    """A game with no seat taken and no deal dealt yet."""
    if first_dealer not in (0, 1):
        raise ValueError(f"first_dealer must be seat 0 or 1, not {first_dealer!r}")
    return GameState(
        variant=variant,
        first_dealer=first_dealer,
        seated=(False, False),
        game_points=(START_GAME_POINTS, START_GAME_POINTS),
        results=(),
        deal=None,
        dealing=dealing,
    )


def take_seat(state: GameState, seat: int) -> GameState:
    """The game with ``seat`` taken; play starts once both seats are."""
    if seat not in (0, 1):
        raise ValueError(f"seat must be 0 or 1, not {seat!r}")
    seated = (True, state.seated[1]) if seat == 0 else (state.seated[0], True)
    return _replace(state, seated=seated)


def start_deal(state: GameState, deck: Sequence[Card]) -> GameState:
    """Deal the next deal from ``deck`` (R1): the recorded shuffle of R1a.

    Positions 0-4 are the non-dealer's hand, 5-9 the dealer's, 10 the trump
    card, 11-19 the talon (11 drawn first).
    """
    if not state.awaiting_deal:
        raise IllegalActionError(
            "a new deal starts only after the previous one ended, while nobody has reached 0",
            code=ErrorCode.GAME_OVER if state.over else ErrorCode.NO_DEAL,
            rule="R10b",
        )
    try:
        cards = check_deck(deck)
    except ValueError as error:
        raise InvalidDeckError(str(error)) from None
    dealer = state.next_dealer
    hands: list[tuple[Card, ...]] = [(), ()]
    hands[1 - dealer] = tuple(sort_cards(cards[:HAND_SIZE]))
    hands[dealer] = tuple(sort_cards(cards[HAND_SIZE : 2 * HAND_SIZE]))
    turn_up = cards[2 * HAND_SIZE]
    deal = DealState(
        number=len(state.results) + 1,
        dealer=dealer,
        deck=cards,
        trump=turn_up.suit,
        hands=(hands[0], hands[1]),
        talon=cards[2 * HAND_SIZE + 1 :],
        turn_up=turn_up,
        turn_up_drawn_by=None,
        leader=1 - dealer,  # R1c: the non-dealer leads the first trick
    )
    return _replace(state, deal=deal)


def legal_actions(state: GameState) -> list[Action]:
    """The legal actions of the seat to move (``state.to_move``); [] when nobody is."""
    deal = state.deal
    # A finished deal or an ended game first: both are plain fields, and
    # ``over`` (a property over ``winner``) adds nothing once they are clear,
    # since game points only reach 0 when a deal finishes.
    if deal is None or deal.result is not None or state.ending is not None:
        return []
    if not (state.seated[0] and state.seated[1]):
        return []
    return deal_legal_actions(deal, state.variant)


def apply(state: GameState, action: Action, seat: int | None = None) -> GameState:
    """The state after ``action`` by the seat to move.

    ``seat``, when given, must be the seat to move (a request acts for a seat).
    Raises ``IllegalActionError`` with a stable code and the rule's id.
    """
    deal = state.deal
    if (
        deal is None
        or deal.result is not None
        or state.ending is not None
        or not (state.seated[0] and state.seated[1])
    ):
        raise _no_running_deal(state)
    to_move = deal.to_move
    if seat is not None and seat != to_move:
        raise IllegalActionError(
            f"it is seat {to_move}'s turn, not seat {seat}'s",
            code=ErrorCode.NOT_YOUR_TURN,
            rule="R2c" if deal.lead_card is None else "R2a",
            seat=seat,
        )
    deal = play_action(deal, state.variant, action)
    if deal.result is None:
        # Positional: the hot path of every action (faster than _replace).
        return GameState(
            state.variant,
            state.first_dealer,
            state.seated,
            state.game_points,
            state.results,
            deal,
            state.dealing,
        )
    return _finish_deal(state, deal, deal.result)


def _no_running_deal(state: GameState) -> IllegalActionError:
    """Why no action can be taken now: the game is over, waiting, or between deals."""
    if state.over:
        return game_over(state)
    if not (state.seated[0] and state.seated[1]):
        return IllegalActionError(
            "the game waits for its second player", code=ErrorCode.GAME_WAITING, rule="R10a"
        )
    return IllegalActionError(
        "no deal is running: the next deal has not been dealt", code=ErrorCode.NO_DEAL, rule="R1a"
    )


def game_over(state: GameState) -> IllegalActionError:
    """The refusal of anything but reading once the game is over, saying how it ended."""
    if state.ending is not None and state.winner is None:
        return IllegalActionError(
            f"the game is over: seat {state.ending.seat} aborted it",
            code=ErrorCode.GAME_OVER,
            rule="RX2",
        )
    return IllegalActionError(
        f"the game is over: seat {state.winner} won", code=ErrorCode.GAME_OVER, rule="R10b"
    )


def _finish_deal(state: GameState, deal: DealState, result: DealResult) -> GameState:
    """R10a: the deal's winner subtracts its game points, never below 0."""
    points = list(state.game_points)
    points[result.winner] = max(0, points[result.winner] - result.game_points)
    return _replace(
        state,
        deal=deal,
        game_points=(points[0], points[1]),
        results=state.results + (result,),
    )


def _replace(state: GameState, **changes: Any) -> GameState:
    return state._replace(**changes)
