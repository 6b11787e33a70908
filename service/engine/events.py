"""The facts a game is rebuilt from, and the fold that rebuilds it.

The event log stores only facts: the game was created (variant, first
dealer), a seat was taken, a deal was dealt from this deck, a seat took this
action. Everything else (tricks, draws, scores) is derived by folding the
engine over them, so a stored log replays the same forever.

Each event is a frozen dataclass with a stable ``type`` string (never an
import path) and serializes to plain JSON with ``"v": EVENT_SCHEMA``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from .actions import Action
from .cards import Card, format_cards, parse_cards
from .endings import abort, resign, timed_out
from .errors import EngineError, InvalidEventError
from .fairness import commitment
from .game import apply, new_game, start_deal, take_seat
from .state import Dealing, GameState, Variant

#: Version of the serialized form of events; bump only with a migration.
EVENT_SCHEMA = 1


@dataclass(frozen=True, slots=True)
class GameCreated:
    """A game was created: its variant, the first dealer (R1c), and who chose the decks.

    ``dealing`` is absent from logs written before it existed; those read as random.
    """

    type: ClassVar[str] = "game_created"
    variant: Variant
    first_dealer: int
    dealing: Dealing = Dealing.RANDOM


@dataclass(frozen=True, slots=True)
class SeatTaken:
    """A seat was taken, by a person or by a bot of some level."""

    type: ClassVar[str] = "seat_taken"
    seat: int
    player: str = "human"  # "human" or "bot"
    level: str | None = None


@dataclass(frozen=True, slots=True)
class DealStarted:
    """A deal was dealt from this deck order (R1a)."""

    type: ClassVar[str] = "deal_started"
    number: int
    dealer: int
    deck: tuple[Card, ...]
    #: 32 random bytes (hex) for the published commitment (see ``fairness``).
    nonce: str | None = None

    @property
    def commitment(self) -> str | None:
        """The SHA-256 published when the deal starts; None for a deal without a nonce."""
        return None if self.nonce is None else commitment(self.nonce, self.deck)


@dataclass(frozen=True, slots=True)
class ActionTaken:
    """A seat took one of the six player actions."""

    type: ClassVar[str] = "action_taken"
    seat: int
    action: Action


@dataclass(frozen=True, slots=True)
class ClockMoved(ActionTaken):
    """A seat's clock ran out and a bot of ``level`` took the action for it.

    An action of the seat in every way the game counts (it is an ``ActionTaken``,
    folded the same), with its own ``type`` so that a log, a replay and an
    export tell it from the person's own moves, and the run of moves played for
    a seat is read from the log alone.
    """

    type: ClassVar[str] = "clock_moved"
    level: str


@dataclass(frozen=True, slots=True)
class Resigned:
    """A seat resigned the game (RX1)."""

    type: ClassVar[str] = "resigned"
    seat: int


@dataclass(frozen=True, slots=True)
class Aborted:
    """A seat called the game off before its first action (RX2)."""

    type: ClassVar[str] = "aborted"
    seat: int


@dataclass(frozen=True, slots=True)
class TimeoutClaimed:
    """The waiting seat claimed the game after the turn timeout (RX3).

    ``waited_ms`` is the time the turn had waited when claimed, for the record;
    a replay never checks it again.
    """

    type: ClassVar[str] = "timeout_claimed"
    seat: int
    waited_ms: int


#: Events a seat uses to end the game (RX1-RX3); added after schema 1's first four
#: types, which are unchanged, so older logs read and replay as before. ``ClockMoved``
#: came later the same way: a new type, no old event's form changed, so no new schema.
GameEnded = Resigned | Aborted | TimeoutClaimed
Event = (
    GameCreated
    | SeatTaken
    | DealStarted
    | ActionTaken
    | ClockMoved
    | Resigned
    | Aborted
    | TimeoutClaimed
)
_ENDINGS = {Resigned: resign, Aborted: abort, TimeoutClaimed: timed_out}


def apply_event(state: GameState | None, event: Event) -> GameState:
    """The state after one event; raises ``InvalidEventError`` if it does not fit."""
    try:
        return fold(state, event)
    except InvalidEventError:
        raise
    except EngineError as error:
        raise InvalidEventError(f"stored {event.type} does not apply: {error}") from None


def fold(state: GameState | None, event: Event) -> GameState:
    """The state after one event: the only way a game's state changes.

    A rule the event breaks is raised as the rules word it (``IllegalActionError``
    with its rule), so a decision folds what it decides and learns its refusal from
    the same call; a stored event that breaks one is ``apply_event``'s to reword.
    """
    if isinstance(event, ActionTaken):
        if state is None:
            raise InvalidEventError("an action before the game was created")
        return apply(state, event.action, event.seat)
    if isinstance(event, GameCreated):
        if state is not None:
            raise InvalidEventError("a game is created only once")
        return new_game(event.variant, event.first_dealer, event.dealing)
    if state is None:
        raise InvalidEventError(f"a {event.type} event before the game was created")
    ending = _ENDINGS.get(type(event))
    if ending is not None:
        return ending(state, event.seat)  # type: ignore[union-attr]
    if isinstance(event, SeatTaken):
        if state.seated[event.seat]:
            raise InvalidEventError(f"seat {event.seat} is taken twice")
        return take_seat(state, event.seat)
    if isinstance(event, DealStarted):
        if event.number != len(state.results) + 1 or event.dealer != state.next_dealer:
            raise InvalidEventError(
                f"deal {event.number} with dealer {event.dealer} does not follow "
                f"(expected deal {len(state.results) + 1}, dealer {state.next_dealer})"
            )
        return start_deal(state, event.deck)
    raise InvalidEventError(f"not an event: {event!r}")


def replay(events: Iterable[Event], state: GameState | None = None) -> GameState:
    """Fold events into the state they lead to, starting from ``state`` (a snapshot)."""
    for event in events:
        state = apply_event(state, event)
    if state is None:
        raise InvalidEventError("no events: a game starts with game_created")
    return state


def event_to_dict(event: Event) -> dict[str, Any]:
    """Plain JSON of an event, the form kept in the log."""
    data: dict[str, Any] = {"type": event.type, "v": EVENT_SCHEMA}
    if isinstance(event, GameCreated):
        data.update(
            variant=event.variant.value,
            first_dealer=event.first_dealer,
            dealing=event.dealing.value,
        )
    elif isinstance(event, SeatTaken):
        data.update(seat=event.seat, player=event.player)
        if event.level is not None:
            data["level"] = event.level
    elif isinstance(event, DealStarted):
        data.update(number=event.number, dealer=event.dealer, deck=format_cards(event.deck))
        if event.nonce is not None:
            data["nonce"] = event.nonce
    elif isinstance(event, ActionTaken):
        data.update(seat=event.seat, action=event.action.to_dict())
        if isinstance(event, ClockMoved):
            data["level"] = event.level
    elif isinstance(event, TimeoutClaimed):
        data.update(seat=event.seat, waited_ms=event.waited_ms)
    else:
        data.update(seat=event.seat)
    return data


def event_from_dict(data: Mapping[str, Any]) -> Event:
    """Parse the log's JSON form; raises ``InvalidEventError`` on anything unknown."""
    try:
        if data.get("v") != EVENT_SCHEMA:
            raise ValueError(f"unknown event schema {data.get('v')!r}")
        kind = data["type"]
        if kind == GameCreated.type:
            return GameCreated(
                Variant(data["variant"]),
                _seat(data["first_dealer"]),
                Dealing(data.get("dealing", Dealing.RANDOM.value)),
            )
        if kind == SeatTaken.type:
            return SeatTaken(_seat(data["seat"]), data.get("player", "human"), data.get("level"))
        if kind == DealStarted.type:
            nonce = data.get("nonce")
            if nonce is not None and (not isinstance(nonce, str) or len(nonce) != 64):
                raise ValueError(f"not a nonce: {nonce!r}")
            return DealStarted(
                _count(data["number"]), _seat(data["dealer"]), parse_cards(data["deck"]), nonce
            )
        if kind == ActionTaken.type:
            return ActionTaken(_seat(data["seat"]), Action.from_dict(data["action"]))
        if kind == ClockMoved.type:
            level = data["level"]
            if not isinstance(level, str) or not level:
                raise ValueError(f"not a bot level: {level!r}")
            return ClockMoved(_seat(data["seat"]), Action.from_dict(data["action"]), level)
        if kind == Resigned.type:
            return Resigned(_seat(data["seat"]))
        if kind == Aborted.type:
            return Aborted(_seat(data["seat"]))
        if kind == TimeoutClaimed.type:
            waited = data["waited_ms"]
            if type(waited) is not int or waited < 0:
                raise ValueError(f"not a time in ms: {waited!r}")
            return TimeoutClaimed(_seat(data["seat"]), waited)
        raise ValueError(f"unknown event type {kind!r}")
    except (KeyError, TypeError, ValueError) as error:
        raise InvalidEventError(f"bad event {dict(data)!r}: {error}") from None


def _count(value: Any) -> int:
    if type(value) is not int or value < 1:
        raise ValueError(f"not a deal number: {value!r}")
    return value


def _seat(value: Any) -> int:
    if type(value) is not int or value not in (0, 1):
        raise ValueError(f"not a seat: {value!r}")
    return value
