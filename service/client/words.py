"""The words a game is told in, shared by the text export and the terminal client.

Tricks numbered within their deal, a trick's cards after their seats'
names, and what each action is called in a sentence. How seats and cards
are written is the caller's choice (``seat 0`` and ``KH`` in the export,
``You`` and ``K♥`` on a terminal).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

Words = Callable[[str], str]

#: Per action type: its verb (third person, second person) and, where fixed, its object.
ACTION_WORDS: dict[str, tuple[str, str, str | None]] = {
    "play": ("plays", "play", None),
    "exchange_trump_jack": ("exchanges", "exchange", "the trump jack"),
    "close_talon": ("closes", "close", "the talon"),
    "declare_marriage": ("declares", "declare", None),
    "claim": ("claims", "claim", "66"),
    "accept_last_trick": ("accepts", "accept", "the last trick"),
}


def as_is(code: str) -> str:
    return code


#: The event types of a seat's action: its own, and one a bot played on its clock.
ACTION_EVENTS = frozenset({"action_taken", "clock_moved"})


def numbered_tricks(events: Iterable[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], int]]:
    """Each event of a replay record with the number in its deal of the trick it ends (0: none)."""
    trick_number = 0
    for event in events:
        if event["type"] == "deal_started":
            trick_number = 0
        elif event["type"] in ACTION_EVENTS and "trick" in event:
            trick_number += 1
            yield event, trick_number
            continue
        yield event, 0


def trick_cards(trick: dict[str, Any], name: Callable[[int], str], card: Words = as_is) -> str:
    """A trick's cards in the order played, each after the name of its seat."""
    return ", ".join(f"{name(c['seat'])} {card(c['card'])}" for c in trick["cards"])


def action_phrase(
    action: dict[str, Any], *, you: bool = False, card: Words = as_is, suit: Words = as_is
) -> str:
    """What a seat does, as a verb and its object: "closes the talon", "play K♥"."""
    kind = action["type"]
    if kind not in ACTION_WORDS:
        return kind
    third, second, thing = ACTION_WORDS[kind]
    if kind == "play":
        thing = card(action["card"])
    elif kind == "declare_marriage":
        thing = f"the marriage in {suit(action['suit'])}"
    return f"{second if you else third} {thing}"


__all__ = [
    "ACTION_EVENTS",
    "ACTION_WORDS",
    "action_phrase",
    "as_is",
    "numbered_tricks",
    "trick_cards",
]
