"""A game's time control, and what happens when a person's clock runs out.

A game may be created with a clock: every move of a person must come within
``seconds_per_move`` of the turn's start (the log's last append). The server
keeps it; nobody claims anything. When the time is up, either a bot of
``bot_level`` plays the seat's move (``on_timeout`` "bot"), recorded as a
``ClockMoved`` event, or the seat loses the game at once ("lose"), recorded as
the engine's timed-out ending (``TimeoutClaimed`` by the waiting seat, scored
as RX3). After ``bot_moves_limit`` moves in a row played for one seat, its
next timeout loses the game too: a player who has walked away does not let
a bot finish the game in their name.

In a rated game (RX5) the clock is no autopilot: its bot plays at
``RATED_BOT_LEVEL``, whatever level the game was created with, and
``bot_moves_limit`` counts every move a bot played for the seat in the
whole game, so a move of one's own now and then does not buy the bot's
play for the rest of it (``in_force``, ``bot_moves``).

The time control lives in the seats record (one text field, ``clock``), so
it travels with the game into replays and the archive. Whatever the clock
decides is decided here from the log alone (``verdict``): the run of moves
played for a seat is counted from its events, so a replay, an export and
the archive all show why a game ended as it did.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from service.engine import ActionTaken, ClockMoved, Event, GameStatus, SeatTaken, replay

#: The bounds of a move's time (seconds): shorter than a request's round trip and a
#: scheduler's poll is no clock; longer than an hour is a casual game (RX3's claim).
MIN_SECONDS_PER_MOVE = 5
MAX_SECONDS_PER_MOVE = 3600
#: The bounds of the moves in a row a bot may play for one seat.
MIN_BOT_MOVES_LIMIT = 1
MAX_BOT_MOVES_LIMIT = 20
DEFAULT_BOT_MOVES_LIMIT = 3
DEFAULT_BOT_LEVEL = "heuristic"
#: The level of a rated game's clock moves (RX5): the weakest, which picks among the legal
#: moves at random, so a player who lets the clock play does worse than by playing.
RATED_BOT_LEVEL = "random"


class OnTimeout(StrEnum):
    """What a timeout does: a bot plays the seat's move, or the seat loses the game."""

    BOT = "bot"
    LOSE = "lose"


class InvalidTimeControl(ValueError):
    """A time control out of its bounds (a stored record, or a caller past the schema)."""


@dataclass(frozen=True, slots=True)
class TimeControl:
    """A game's clock, as chosen at its creation."""

    seconds_per_move: int
    on_timeout: OnTimeout = OnTimeout.BOT
    bot_level: str = DEFAULT_BOT_LEVEL
    bot_moves_limit: int = DEFAULT_BOT_MOVES_LIMIT

    def __post_init__(self) -> None:
        if not MIN_SECONDS_PER_MOVE <= self.seconds_per_move <= MAX_SECONDS_PER_MOVE:
            raise InvalidTimeControl(
                f"seconds_per_move {self.seconds_per_move} is not within "
                f"{MIN_SECONDS_PER_MOVE}..{MAX_SECONDS_PER_MOVE}"
            )
        if not MIN_BOT_MOVES_LIMIT <= self.bot_moves_limit <= MAX_BOT_MOVES_LIMIT:
            raise InvalidTimeControl(
                f"bot_moves_limit {self.bot_moves_limit} is not within "
                f"{MIN_BOT_MOVES_LIMIT}..{MAX_BOT_MOVES_LIMIT}"
            )

    @property
    def ms_per_move(self) -> int:
        return self.seconds_per_move * 1000

    def to_dict(self) -> dict[str, Any]:
        """The time control as requests take it and answers show it."""
        return {
            "seconds_per_move": self.seconds_per_move,
            "on_timeout": self.on_timeout.value,
            "bot_level": self.bot_level,
            "bot_moves_limit": self.bot_moves_limit,
        }

    def encode(self) -> str:
        """The seats record's ``clock`` field: compact JSON, keys sorted (one form)."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def decode(cls, text: str) -> TimeControl:
        try:
            data = json.loads(text)
            return cls(
                int(data["seconds_per_move"]),
                OnTimeout(data["on_timeout"]),
                str(data["bot_level"]),
                int(data["bot_moves_limit"]),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise InvalidTimeControl(f"not a time control: {text!r} ({error})") from None


@dataclass(frozen=True, slots=True)
class BotPlays:
    """The seat's time is up: a bot of ``level`` plays its move."""

    seat: int
    level: str


@dataclass(frozen=True, slots=True)
class LosesOnTime:
    """The seat's time is up and it loses the game; ``winner`` is the seat that waited."""

    seat: int

    @property
    def winner(self) -> int:
        return 1 - self.seat


#: What a clock that ran out decides; None: nothing is due (over, a bot's turn, waiting).
Verdict = BotPlays | LosesOnTime | None


def people(events: Sequence[Event]) -> tuple[bool, bool]:
    """Per seat, whether a person sits there (a clock times people only, never a bot)."""
    seated = [True, True]
    for event in events:
        if isinstance(event, SeatTaken):
            seated[event.seat] = event.player != "bot"
    return seated[0], seated[1]


def in_force(control: TimeControl, rated: bool) -> TimeControl:
    """The time control as the clock applies it: a rated game's bot plays at
    ``RATED_BOT_LEVEL`` (RX5), whatever level its creator named."""
    if rated and control.bot_level != RATED_BOT_LEVEL:
        return replace(control, bot_level=RATED_BOT_LEVEL)
    return control


def bot_moves(events: Sequence[Event], *, rated: bool = False) -> tuple[int, int]:
    """Per seat, the moves a bot has played for it: in a row since its own last move, or,
    in a rated game (RX5), in the whole game."""
    counts = [0, 0]
    for event in events:
        if isinstance(event, ClockMoved):
            counts[event.seat] += 1
        elif isinstance(event, ActionTaken) and not rated:
            counts[event.seat] = 0
    return counts[0], counts[1]


def person_to_move(events: Sequence[Event]) -> int | None:
    """The seat of the person the game waits for, or None (over, waiting, a bot's turn)."""
    state = replay(events)
    seat = state.to_move
    if state.status is not GameStatus.ACTIVE or seat is None or not people(events)[seat]:
        return None
    return seat


def verdict(events: Sequence[Event], control: TimeControl, *, rated: bool = False) -> Verdict:
    """What the clock decides when the turn after ``events`` has run out of time."""
    seat = person_to_move(events)
    if seat is None:
        return None
    control = in_force(control, rated)
    played = bot_moves(events, rated=rated)[seat]
    if control.on_timeout is OnTimeout.LOSE or played >= control.bot_moves_limit:
        return LosesOnTime(seat)
    return BotPlays(seat, control.bot_level)


@dataclass(frozen=True, slots=True)
class ClockReading:
    """A clocked game's clock now, as a view shows it."""

    control: TimeControl
    #: When the person to move runs out of time (ms since the epoch); None when no
    #: person is to move.
    deadline_ms: int | None
    bot_moves: tuple[int, int]

    def to_dict(self) -> dict[str, object]:
        return {
            **self.control.to_dict(),
            "deadline": self.deadline_ms,
            "bot_moves": list(self.bot_moves),
        }


def reading(
    control: TimeControl,
    events: Sequence[Event],
    turn_started_ms: int | None,
    *,
    rated: bool = False,
) -> ClockReading:
    """The clock after ``events``, whose last was appended at ``turn_started_ms``."""
    control = in_force(control, rated)
    waiting_for = person_to_move(events)
    deadline = (
        None
        if waiting_for is None or turn_started_ms is None
        else turn_started_ms + control.ms_per_move
    )
    return ClockReading(control, deadline, bot_moves(events, rated=rated))
