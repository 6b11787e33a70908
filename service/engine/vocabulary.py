"""The words a game is told in, shared by the text export and the terminal client.

Tricks numbered within their deal, a trick's cards after their seats'
names, and what each action is called in a sentence, in English and in
German (Austria). How seats and cards are written is the caller's choice
(``seat 0`` and ``KH`` in the export, ``You`` and ``K♥`` on a terminal).
Below both: the export (``service.game.replay_export``) and the client
(``service.client.words``, which holds the terminal's other words) each
import it, and neither imports the other.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

#: How a card code, a suit code or a seat is written (``as_is``: as the API writes it).
Words = Callable[[str], str]
#: Per action type: its verb (third person, second person, imperative) and its object,
#: a template of ``{card}`` and ``{suit}`` ("the marriage in {suit}").
ActionWords = Mapping[str, tuple[str, str, str, str]]

ENGLISH_ACTIONS: ActionWords = {
    "play": ("plays", "play", "play", "{card}"),
    "exchange_trump_jack": ("exchanges", "exchange", "exchange", "the trump jack"),
    "close_talon": ("closes", "close", "close", "the talon"),
    "declare_marriage": ("declares", "declare", "declare", "the marriage in {suit}"),
    "claim": ("claims", "claim", "claim", "66"),
    "accept_last_trick": ("accepts", "accept", "accept", "the last trick"),
}

GERMAN_ACTIONS: ActionWords = {
    "play": ("spielt", "spielst", "spiel", "{card}"),
    "exchange_trump_jack": ("tauscht", "tauschst", "tausch", "den Trumpf-Unter"),
    "close_talon": ("dreht", "drehst", "dreh", "zu"),
    "declare_marriage": ("sagt", "sagst", "sag", "das Paar in {suit} an"),
    "claim": ("sagt", "sagst", "sag", "66 an"),
    "accept_last_trick": ("nimmt", "nimmst", "nimm", "den letzten Stich"),
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
    action: dict[str, Any],
    *,
    you: bool = False,
    command: bool = False,
    card: Words = as_is,
    suit: Words = as_is,
    actions: ActionWords = ENGLISH_ACTIONS,
) -> str:
    """What a seat does, as a verb and its object: "closes the talon", "play K♥".

    ``you``: said of the viewer ("Du spielst"); ``command``: a move to choose ("spiel");
    ``actions``: the words of a language (English unless the caller passes another).
    """
    kind = action["type"]
    if kind not in actions:
        return kind
    third, second, imperative, thing = actions[kind]
    values = {
        "card": card(action["card"]) if "card" in action else "",
        "suit": suit(action["suit"]) if "suit" in action else "",
    }
    verb = imperative if command else second if you else third
    return f"{verb} {thing.format(**values)}"


__all__ = [
    "ACTION_EVENTS",
    "ENGLISH_ACTIONS",
    "GERMAN_ACTIONS",
    "ActionWords",
    "Words",
    "action_phrase",
    "as_is",
    "numbered_tricks",
    "trick_cards",
]
