"""The things a player can do, as small immutable values.

An action is written in JSON exactly as the HTTP contract names it::

    {"type": "play", "card": "QH"}      {"type": "declare_marriage", "suit": "H"}
    {"type": "exchange_trump_jack"}     {"type": "close_talon"}
    {"type": "claim"}                   {"type": "accept_last_trick"}

``Action.from_dict`` and ``Action.to_dict`` round-trip that form.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .cards import Card, Suit
from .words import Word


class ActionType(Word):
    """The six player actions of docs/rules.md; the value is the contract's name."""

    PLAY = "play"
    EXCHANGE_TRUMP_JACK = "exchange_trump_jack"
    CLOSE_TALON = "close_talon"
    DECLARE_MARRIAGE = "declare_marriage"
    CLAIM = "claim"
    ACCEPT_LAST_TRICK = "accept_last_trick"


@dataclass(frozen=True, slots=True)
class Action:
    """One player action. ``card`` is set for ``play``, ``suit`` for ``declare_marriage``.

    Build them with the named constructors (``Action.play(Card.QH)``); they
    return shared instances, so comparing and hashing actions is cheap.
    """

    type: ActionType
    card: Card | None = None
    suit: Suit | None = None

    @staticmethod
    def play(card: Card) -> Action:
        return PLAY[card]

    @staticmethod
    def declare_marriage(suit: Suit) -> Action:
        return DECLARE_MARRIAGE[suit]

    def to_dict(self) -> dict[str, str]:
        """The contract's JSON form: ``{"type": "play", "card": "QH"}``."""
        data = {"type": self.type.value}
        if self.card is not None:
            data["card"] = self.card.value
        if self.suit is not None:
            data["suit"] = self.suit.value
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Action:
        """Parse the contract's JSON form; raises ``ValueError`` saying what is wrong."""
        try:
            kind = ActionType(data.get("type"))
        except ValueError:
            names = ", ".join(t.value for t in ActionType)
            raise ValueError(f"unknown action type {data.get('type')!r} (one of {names})") from None
        if kind is ActionType.PLAY:
            if "card" not in data:
                raise ValueError(
                    "a play needs a 'card', for example {'type': 'play', 'card': 'QH'}"
                )
            return PLAY[Card.parse(str(data["card"]))]
        if kind is ActionType.DECLARE_MARRIAGE:
            if "suit" not in data:
                raise ValueError("a marriage needs a 'suit': one of C, D, H, S")
            try:
                return DECLARE_MARRIAGE[Suit(data["suit"])]
            except ValueError:
                raise ValueError(f"not a suit: {data['suit']!r} (one of C, D, H, S)") from None
        return _SIMPLE[kind]

    def __str__(self) -> str:
        detail = self.card or self.suit
        return f"{self.type.value} {detail}" if detail else self.type.value


PLAY: dict[Card, Action] = {card: Action(ActionType.PLAY, card=card) for card in Card}
DECLARE_MARRIAGE: dict[Suit, Action] = {
    suit: Action(ActionType.DECLARE_MARRIAGE, suit=suit) for suit in Suit
}
EXCHANGE_TRUMP_JACK = Action(ActionType.EXCHANGE_TRUMP_JACK)
CLOSE_TALON = Action(ActionType.CLOSE_TALON)
CLAIM = Action(ActionType.CLAIM)
ACCEPT_LAST_TRICK = Action(ActionType.ACCEPT_LAST_TRICK)

_SIMPLE = {
    ActionType.EXCHANGE_TRUMP_JACK: EXCHANGE_TRUMP_JACK,
    ActionType.CLOSE_TALON: CLOSE_TALON,
    ActionType.CLAIM: CLAIM,
    ActionType.ACCEPT_LAST_TRICK: ACCEPT_LAST_TRICK,
}
