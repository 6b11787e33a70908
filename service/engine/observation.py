"""What each viewer may see (docs/rules.md, R11): the only door out of the truth.

Every read path of the service (the view, the event feed, SSE, replays,
exports, and what a bot is given) is built from these functions. They take
the whole state and a viewer (seat 0, seat 1, or ``None`` for a spectator)
and return plain JSON-ready data. Deny by default: a field appears only if
R11a makes it public or it belongs to the viewer.
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
from .game import legal_actions
from .points import marriage_points
from .state import DealResult, DealState, GameState, Trick, Variant

Viewer = int | None


def observe(state: GameState, viewer: Viewer) -> dict[str, Any]:
    """The game as ``viewer`` sees it now: the body of the contract's view."""
    deal = state.deal
    return {
        "status": state.status.value,
        "variant": state.variant.value,
        "dealing": state.dealing.value,
        "seat": viewer,
        "game_points": list(state.game_points),
        "winner": state.winner,
        "to_move": state.to_move,
        "ending": ending_to_dict(state),
        "deal": None if deal is None else observe_deal(state, deal, viewer),
        "deals": [result_to_dict(result) for result in state.results],
    }


def ending_to_dict(state: GameState) -> dict[str, Any] | None:
    """How the game ended (public): by play, or by a seat (RX1-RX3); None while it runs."""
    if state.ending is not None:
        return {"reason": state.ending.reason.value, "seat": state.ending.seat}
    if state.over:
        return {"reason": "played", "seat": None}
    return None


def observe_deal(state: GameState, deal: DealState, viewer: Viewer) -> dict[str, Any]:
    """The current deal as ``viewer`` sees it (R11a-c)."""
    over = deal.result is not None
    shows_points = over or state.variant is Variant.TRACKED  # R7d, R7e
    opponent = 1 if viewer is None else 1 - viewer
    to_move = state.to_move
    legal = legal_actions(state) if viewer is not None and viewer == to_move else []
    return {
        "number": deal.number,
        "dealer": deal.dealer,
        "trump_suit": deal.trump.value,
        "trump_card": _code(deal.trump_card),
        # The face-up card, public all deal long (R11a, R11b: once drawn, everyone saw
        # who took it); after an exchange the trump jack. A bot Position needs it.
        "turn_up": deal.turn_up.value,
        "talon_size": len(deal.talon),
        "closed_by": deal.closed_by,
        "hand": [] if viewer is None else format_cards(deal.hands[viewer]),
        "opponent_hand_size": len(deal.hands[opponent]),
        "hand_sizes": [len(deal.hands[0]), len(deal.hands[1])],
        "revealed_cards": [format_cards(deal.public_cards_in_hand(seat)) for seat in (0, 1)],
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
        "card_points": [deal.card_points(0), deal.card_points(1)] if shows_points else None,
        "to_move": to_move,
        "legal_actions": [action.to_dict() for action in legal],
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


def deck_revealed(latest: GameState, deal_number: int, viewer: Viewer) -> bool:
    """Whether a deal's deck (and its fairness nonce) may be shown: once the game is over.

    R11d allows showing a finished deal's record to both players at once;
    the service waits for the end of the game, for everyone, because its
    fair-deal promise is that no deck leaves the server before then.
    """
    return latest.over


def observe_event(
    event: Event,
    before: GameState | None,
    after: GameState,
    viewer: Viewer,
    *,
    reveal_deck: bool = False,
) -> dict[str, Any]:
    """One event of the log as ``viewer`` may see it, with the public facts it caused.

    ``before`` and ``after`` are the states around the event. A dealt deck is
    shown only when ``reveal_deck`` (see ``deck_revealed``); otherwise the
    viewer gets the trump card and their own hand. An action that completes
    a trick adds the trick, and the viewer's own drawn card; one that ends a
    deal adds its result.
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
            "hand": [] if viewer is None else format_cards(deal.hands[viewer]),
        }
        if event.nonce is not None:
            data["commitment"] = event.commitment
        if reveal_deck:
            data["deck"] = format_cards(event.deck)
            if event.nonce is not None:
                data["nonce"] = event.nonce
        return data
    if isinstance(event, ActionTaken):
        assert before is not None
        return _observe_action(event, before, after, viewer)
    # A seat ended the game (RX1-RX3): public, like every fact of how a game ends.
    data = {"type": event.type, "seat": event.seat, "game_winner": after.winner}
    if isinstance(event, TimeoutClaimed):
        data["waited_ms"] = event.waited_ms
    return data


def _observe_action(
    event: ActionTaken, before: GameState, after: GameState, viewer: Viewer
) -> dict[str, Any]:
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
        if viewer is not None:
            drawn = set(new.hands[viewer]) - set(old.hands[viewer])
            data["drew"] = format_cards(card for card in new.hands[viewer] if card in drawn)
    if new.result is not None and old.result is None:
        data["deal_result"] = result_to_dict(new.result)
        if after.winner is not None:
            data["game_winner"] = after.winner
    return data


def _code(value: Any) -> str | None:
    return None if value is None else value.value
