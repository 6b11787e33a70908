"""Hidden information in what the service sends: the cards a viewer may not know (R11)."""

from __future__ import annotations

import json
import re
from typing import Any

from service.engine import GameState

#: A card code standing on its own in a body's text (JSON, SSE).
CARD_CODE = re.compile(r"(?<![A-Za-z0-9])[ATKQJ][CDHS](?![A-Za-z0-9])")


def hidden_cards(state: GameState, viewer: int | None) -> set[str]:
    """The cards ``viewer`` may not know now (R11b, R11c): empty once no deal runs."""
    deal = state.deal
    if deal is None or deal.result is not None:
        return set()
    hidden = set(deal.talon)
    for seat in (0, 1) if viewer is None else (1 - viewer,):
        hidden |= set(deal.hands[seat]) - set(deal.public_cards_in_hand(seat))
    return {card.value for card in hidden}


def cards_in(text_or_data: Any) -> set[str]:
    text = text_or_data if isinstance(text_or_data, str) else json.dumps(text_or_data)
    return set(CARD_CODE.findall(text))


def assert_hides(data: Any, hidden: set[str], where: str) -> None:
    leaked = cards_in(data) & hidden
    assert not leaked, f"{where} shows hidden cards {sorted(leaked)}: {data!r:.2000}"


def hands_in(data: Any) -> list[Any]:
    """Every value of a 'hand' member anywhere in JSON-like data."""
    found: list[Any] = []
    if isinstance(data, dict):
        for key, value in data.items():
            if key == "hand":
                found.append(value)
            found.extend(hands_in(value))
    elif isinstance(data, list):
        for item in data:
            found.extend(hands_in(item))
    return found
