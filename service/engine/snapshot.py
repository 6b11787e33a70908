"""A game state as plain JSON and back, for the store's snapshot cache.

A snapshot is only a cache of the fold over the log: it carries
``ENGINE_VERSION`` and a reader treats any other version as missing, so a
change to the state's shape just means snapshots are rebuilt from the log.
"""

from __future__ import annotations

from typing import Any

from . import state as model  # every type of the state is written and read here
from .cards import Card, Suit, format_cards, parse_cards

#: Bump whenever the shape or meaning of a serialized state changes.
ENGINE_VERSION = 3  # 3: GameState.ending (resign, abort, timeout)


class StaleSnapshotError(ValueError):
    """The snapshot was written by another engine version; rebuild from the log."""


def state_to_dict(state: model.GameState) -> dict[str, Any]:
    return {
        "engine": ENGINE_VERSION,
        "variant": state.variant.value,
        "first_dealer": state.first_dealer,
        "dealing": state.dealing.value,
        "seated": list(state.seated),
        "game_points": list(state.game_points),
        "results": [_result_to_list(result) for result in state.results],
        "deal": None if state.deal is None else _deal_to_dict(state.deal),
        "ending": None if state.ending is None else [state.ending.reason.value, state.ending.seat],
    }


def state_from_dict(data: dict[str, Any]) -> model.GameState:
    if data.get("engine") != ENGINE_VERSION:
        raise StaleSnapshotError(f"snapshot of engine {data.get('engine')}, not {ENGINE_VERSION}")
    return model.GameState(
        variant=model.Variant(data["variant"]),
        first_dealer=data["first_dealer"],
        seated=(bool(data["seated"][0]), bool(data["seated"][1])),
        game_points=(data["game_points"][0], data["game_points"][1]),
        results=tuple(_result_from_list(item) for item in data["results"]),
        deal=None if data["deal"] is None else _deal_from_dict(data["deal"]),
        dealing=model.Dealing(data["dealing"]),
        ending=None
        if data["ending"] is None
        else model.GameEnd(model.GameEndReason(data["ending"][0]), data["ending"][1]),
    )


def _deal_to_dict(deal: model.DealState) -> dict[str, Any]:
    return {
        "number": deal.number,
        "dealer": deal.dealer,
        "deck": format_cards(deal.deck),
        "trump": deal.trump.value,
        "hands": [format_cards(deal.hands[0]), format_cards(deal.hands[1])],
        "talon": format_cards(deal.talon),
        "turn_up": deal.turn_up.value,
        "turn_up_drawn_by": deal.turn_up_drawn_by,
        "leader": deal.leader,
        "lead_card": _code(deal.lead_card),
        "tricks": [[t.leader, t.lead.value, t.follow.value, t.winner] for t in deal.tricks],
        "trick_points": list(deal.trick_points),
        "marriages": [[m.seat, m.suit.value, m.points] for m in deal.marriages],
        "declared": _code(deal.declared),
        "closed_by": deal.closed_by,
        "at_close": None if deal.at_close is None else list(deal.at_close),
        "exchanged_by": deal.exchanged_by,
        "exchanged_card": _code(deal.exchanged_card),
        "result": None if deal.result is None else _result_to_list(deal.result),
    }


def _deal_from_dict(data: dict[str, Any]) -> model.DealState:
    hands = data["hands"]
    at_close = data["at_close"]
    return model.DealState(
        number=data["number"],
        dealer=data["dealer"],
        deck=parse_cards(data["deck"]),
        trump=Suit(data["trump"]),
        hands=(parse_cards(hands[0]), parse_cards(hands[1])),
        talon=parse_cards(data["talon"]),
        turn_up=Card.parse(data["turn_up"]),
        turn_up_drawn_by=data["turn_up_drawn_by"],
        leader=data["leader"],
        lead_card=_card(data["lead_card"]),
        tricks=tuple(
            model.Trick(leader, Card.parse(lead), Card.parse(follow), winner)
            for leader, lead, follow, winner in data["tricks"]
        ),
        trick_points=(data["trick_points"][0], data["trick_points"][1]),
        marriages=tuple(
            model.Marriage(seat, Suit(suit), points) for seat, suit, points in data["marriages"]
        ),
        declared=None if data["declared"] is None else Suit(data["declared"]),
        closed_by=data["closed_by"],
        at_close=None if at_close is None else (at_close[0], at_close[1]),
        exchanged_by=data["exchanged_by"],
        exchanged_card=_card(data["exchanged_card"]),
        result=None if data["result"] is None else _result_from_list(data["result"]),
    )


def _result_to_list(result: model.DealResult) -> list[Any]:
    return [
        result.number,
        result.dealer,
        result.winner,
        result.game_points,
        result.reason.value,
        list(result.card_points),
        list(result.tricks_won),
        result.claimed_by,
    ]


def _result_from_list(item: list[Any]) -> model.DealResult:
    number, dealer, winner, game_points, reason, card_points, tricks_won, claimed_by = item
    return model.DealResult(
        number=number,
        dealer=dealer,
        winner=winner,
        game_points=game_points,
        reason=model.DealEndReason(reason),
        card_points=(card_points[0], card_points[1]),
        tricks_won=(tricks_won[0], tricks_won[1]),
        claimed_by=claimed_by,
    )


def _code(value: Card | Suit | None) -> str | None:
    return None if value is None else value.value


def _card(code: str | None) -> Card | None:
    return None if code is None else Card.parse(code)
