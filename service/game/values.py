"""The values the commands take and answer: a new game's options, a game at a version,
a seat taken, an action taken. Frozen: a command never changes what it was given.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from service.engine import Card, Dealing, GameState, Variant
from service.game.clock import TimeControl
from service.game.log import Listed
from service.game.seats import Seats


@dataclass(frozen=True, slots=True)
class Opponent:
    """Who sits at seat 1: a person who joins with the invite, or a bot of a level."""

    kind: str = "human"
    level: str | None = None


@dataclass(frozen=True, slots=True)
class NewGame:
    """The options of ``POST /v1/games``; all optional."""

    variant: Variant = Variant.HEAD
    opponent: Opponent = field(default_factory=Opponent)
    seed: int | None = None
    deck: tuple[Card, ...] | None = None
    first_dealer: int | None = None
    #: Whether its end changes the players' ratings: players only (``service.game.ratings``).
    rated: bool = False
    #: The time control the server keeps (None: no clock).
    clock: TimeControl | None = None

    @property
    def dealing(self) -> Dealing:
        """Who chooses the decks: a given deck fixes deal 1, a seed every deal."""
        if self.deck is not None:
            return Dealing.FIXED
        return Dealing.SEEDED if self.seed is not None else Dealing.RANDOM


@dataclass(frozen=True, slots=True)
class Current:
    """A game's state at a version, with its seats record (token hashes, players)."""

    game_id: str
    version: int
    state: GameState
    seats: Seats

    @property
    def players(self) -> list[dict[str, Any]]:
        """Who sits where: a person or a bot of some level, and whether seat 1 is taken."""
        return self.seats.players


@dataclass(frozen=True, slots=True)
class Seated:
    """The answer to create and join: the seat, its token, and the game."""

    current: Current
    seat: int
    token: str
    invite: str | None
    replayed: bool = False


@dataclass(frozen=True, slots=True)
class Acted:
    """The answer to an action: the acting seat and the game after it."""

    current: Current
    seat: int
    replayed: bool = False


@dataclass(frozen=True, slots=True)
class GamePage:
    """One page of a client's games: each with its creation time, and where to go on."""

    games: list[tuple[Listed, Current]]
    #: The last game shown, where the next page starts (None: no more games).
    next_cursor: Listed | None
