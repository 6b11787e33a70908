"""The HTTP view and the event filter, rendered from the observer's result (R11).

``observer.observe`` decides what a viewer (seat 0, seat 1, or ``None`` for a
spectator) may know of a state; the functions here only turn that
``Observation`` into the contract's JSON: ``render_view`` the game view (also
the body of webhook notices), ``render_event`` one event of the log as the
viewer may see it. They read nothing else of a state, so nothing the observer
withheld can appear. ``observe`` and ``observe_event`` are the two steps in one
call, for callers that hold states.
"""

from __future__ import annotations

from typing import Any

from .cards import SUITS, format_cards
from .events import (
    ActionTaken,
    ClockMoved,
    DealStarted,
    Event,
    GameCreated,
    SeatTaken,
    TimeoutClaimed,
)
from .observer import DealObservation, Observation, Viewer
from .observer import observe as see
from .points import marriage_points
from .state import DealResult, GameState, Trick


def observe(state: GameState, viewer: Viewer) -> dict[str, Any]:
    """The game as ``viewer`` sees it now: the body of the contract's view."""
    return render_view(see(state, viewer))


def render_view(seen: Observation) -> dict[str, Any]:
    """The contract's view of what one viewer knows."""
    deal = seen.deal
    return {
        "status": seen.status.value,
        "variant": seen.variant.value,
        "dealing": seen.dealing.value,
        "seat": seen.viewer,
        "game_points": list(seen.game_points),
        "winner": seen.winner,
        "to_move": seen.to_move,
        "ending": ending_to_dict(seen),
        "deal": None if deal is None else _render_deal(seen, deal),
        "deals": [result_to_dict(result) for result in seen.results],
    }


def ending_to_dict(seen: GameState | Observation) -> dict[str, Any] | None:
    """How the game ended (public): by play, or by a seat (RX1-RX3); None while it runs."""
    if seen.ending is not None:
        return {"reason": seen.ending.reason.value, "seat": seen.ending.seat}
    if seen.over:
        return {"reason": "played", "seat": None}
    return None


def _own_hand(seen: Observation, deal: DealObservation) -> list[str]:
    """The viewer's own hand as codes; a spectator has none."""
    if seen.viewer is None:
        return []
    return format_cards(deal.visible_hands[seen.viewer] or ())


def _render_deal(seen: Observation, deal: DealObservation) -> dict[str, Any]:
    """The current deal as the viewer knows it (R11a-c)."""
    opponent = 1 if seen.viewer is None else 1 - seen.viewer
    return {
        "number": deal.number,
        "dealer": deal.dealer,
        "trump_suit": deal.trump.value,
        "trump_card": _code(deal.trump_card),
        # The face-up card, public all deal long (R11a, R11b: once drawn, everyone saw
        # who took it); after an exchange the trump jack. A bot Position needs it.
        "turn_up": deal.turn_up.value,
        "talon_size": deal.talon_size,
        "closed_by": deal.closed_by,
        "hand": _own_hand(seen, deal),
        "opponent_hand_size": deal.hand_sizes[opponent],
        "hand_sizes": list(deal.hand_sizes),
        "revealed_cards": [format_cards(deal.revealed_cards(seat)) for seat in (0, 1)],
        "current_trick": (
            [] if deal.lead_card is None else [{"seat": deal.leader, "card": deal.lead_card.value}]
        ),
        "tricks": [trick_to_dict(trick) for trick in deal.tricks],
        "tricks_won": [deal.tricks_won(0), deal.tricks_won(1)],
        "marriages": [
            {"seat": m.seat, "suit": m.suit.value, "points": m.points} for m in deal.marriages
        ],
        # R6c: what a marriage in each suit is worth in this deal, so that no
        # client needs to know that trumps count double.
        "marriage_points": {suit.value: marriage_points(suit is deal.trump) for suit in SUITS},
        "declared_marriage": _code(deal.declared),
        "exchange": (
            None
            if deal.exchanged_by is None
            else {"seat": deal.exchanged_by, "took": _code(deal.exchanged_card)}
        ),
        "card_points": None if deal.card_points is None else list(deal.card_points),
        "to_move": seen.to_move,
        "legal_actions": [action.to_dict() for action in deal.legal_actions],
        "result": None if deal.result is None else result_to_dict(deal.result),
    }


def trick_to_dict(trick: Trick) -> dict[str, Any]:
    """A completed trick: public (R11a), in the same shape on every read path."""
    return {
        "leader": trick.leader,
        "cards": [
            {"seat": trick.leader, "card": trick.lead.value},
            {"seat": 1 - trick.leader, "card": trick.follow.value},
        ],
        "winner": trick.winner,
    }


def result_to_dict(result: DealResult) -> dict[str, Any]:
    """A finished deal; public once the deal is over (R11d)."""
    return {
        "number": result.number,
        "dealer": result.dealer,
        "winner": result.winner,
        "game_points": result.game_points,
        "reason": result.reason.value,
        "card_points": list(result.card_points),
        "tricks_won": list(result.tricks_won),
        "claimed_by": result.claimed_by,
    }


def observe_event(
    event: Event,
    before: GameState | None,
    after: GameState,
    viewer: Viewer,
    *,
    reveal_deck: bool = False,
) -> dict[str, Any]:
    """One event of the log as ``viewer`` may see it: ``render_event`` of the observations
    of the states around it; ``reveal_deck`` when the game is over (``observer.deck_revealed``)."""
    return render_event(
        event,
        None if before is None else see(before, viewer, revealed=reveal_deck),
        see(after, viewer, revealed=reveal_deck),
    )


def render_event(event: Event, before: Observation | None, after: Observation) -> dict[str, Any]:
    """One event of the log as the viewer may see it, with the public facts it caused.

    ``before`` and ``after`` are the viewer's observations of the states around
    the event. A dealt deck (and its nonce) is shown only when the observation
    holds it (once the game is over); otherwise the viewer gets the trump card
    and their own hand. An action that completes a trick adds the trick, and
    the viewer's own drawn card; one that ends a deal adds its result.
    """
    if isinstance(event, GameCreated):
        return {
            "type": event.type,
            "variant": event.variant.value,
            "first_dealer": event.first_dealer,
            "dealing": event.dealing.value,
        }
    if isinstance(event, SeatTaken):
        data: dict[str, Any] = {"type": event.type, "seat": event.seat, "player": event.player}
        if event.level is not None:
            data["level"] = event.level
        return data
    if isinstance(event, DealStarted):
        deal = after.deal
        assert deal is not None
        data = {
            "type": event.type,
            "number": event.number,
            "dealer": event.dealer,
            "trump_card": deal.turn_up.value,
            "hand": _own_hand(after, deal),
        }
        if event.nonce is not None:
            data["commitment"] = event.commitment
        if deal.visible_deck is not None:
            data["deck"] = format_cards(deal.visible_deck)
            if event.nonce is not None:
                data["nonce"] = event.nonce
        return data
    if isinstance(event, ActionTaken):
        assert before is not None
        return _render_action(event, before, after)
    # A seat ended the game (RX1-RX3): public, like every fact of how a game ends.
    data = {"type": event.type, "seat": event.seat, "game_winner": after.winner}
    if isinstance(event, TimeoutClaimed):
        data["waited_ms"] = event.waited_ms
    return data


def _render_action(event: ActionTaken, before: Observation, after: Observation) -> dict[str, Any]:
    data: dict[str, Any] = {
        "type": event.type,
        "seat": event.seat,
        "action": event.action.to_dict(),
    }
    if isinstance(event, ClockMoved):  # the seat's clock ran out: public, as the move is
        data["level"] = event.level
    old, new = before.deal, after.deal
    assert old is not None and new is not None
    if len(new.marriages) > len(old.marriages):
        data["marriage_points"] = new.marriages[-1].points  # R6c, R6e: public
    if new.exchanged_by is not None and old.exchanged_by is None:
        data["took"] = _code(new.exchanged_card)  # R11a: the card the exchanger took
    if len(new.tricks) > len(old.tricks):
        data["trick"] = trick_to_dict(new.tricks[-1])
        if new.turn_up_drawn_by is not None and old.turn_up_drawn_by is None:
            # R11b: the last trump card drawn is public.
            data["turn_up_drawn"] = {"seat": new.turn_up_drawn_by, "card": new.turn_up.value}
        if after.viewer is not None:
            hand, held = (
                new.visible_hands[after.viewer] or (),
                old.visible_hands[after.viewer] or (),
            )
            drawn = set(hand) - set(held)
            data["drew"] = format_cards(card for card in hand if card in drawn)
    if new.result is not None and old.result is None:
        data["deal_result"] = result_to_dict(new.result)
        if after.winner is not None:
            data["game_winner"] = after.winner
    return data


def _code(value: Any) -> str | None:
    return None if value is None else value.value
