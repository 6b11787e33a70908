"""Rating pools: a player has one rating per variant and speed, as chess servers keep one
per variant and time control.

A rating says how strong a player is at one kind of game: a fast game and a slow
one, or the head variant and the tracked one (where nobody has to count card
points), ask different skills. So a player's rating lives in a pool, the pair of
its game's variant and its speed, and a rated game moves only its pool's
ratings (docs/rules.md, "Rating pools").

The speed is read from the game's clock, ``seconds_per_move``:

- ``blitz``: at most ``BLITZ_SECONDS`` a move;
- ``rapid``: at most ``RAPID_SECONDS`` a move;
- ``classical``: longer;
- ``untimed``: no clock.

A rating is provisional while its deviation is above ``PROVISIONAL_DEVIATION``
(as lichess's): the leaderboards leave provisional players out.

The default pool (``head-untimed``, the pool of a game made with no variant and
no clock) holds every rating kept before pools: the one rating a player had
then moved in games of every kind, and the default game is the most common.
Calls that name no pool read it, as before.

Pure: names and rules, no store.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from service.engine import Variant
from service.game.clock import TimeControl

#: A clock of at most this many seconds a move is blitz.
BLITZ_SECONDS = 15
#: A clock of at most this many seconds a move (and more than blitz) is rapid.
RAPID_SECONDS = 60
#: A rating is provisional while its deviation is above this (lichess's threshold).
PROVISIONAL_DEVIATION = 110.0


class Speed(StrEnum):
    """How fast a game is, by its clock."""

    BLITZ = "blitz"
    RAPID = "rapid"
    CLASSICAL = "classical"
    UNTIMED = "untimed"


class UnknownPool(ValueError):
    """A pool name that is not ``<variant>-<speed>`` of a known variant and speed."""


def speed_of(clock: TimeControl | None) -> Speed:
    """The speed of a game with this clock (None: no clock)."""
    if clock is None:
        return Speed.UNTIMED
    if clock.seconds_per_move <= BLITZ_SECONDS:
        return Speed.BLITZ
    if clock.seconds_per_move <= RAPID_SECONDS:
        return Speed.RAPID
    return Speed.CLASSICAL


@dataclass(frozen=True, slots=True)
class Pool:
    """A rating pool: one variant at one speed. Its name is ``<variant>-<speed>``."""

    variant: Variant
    speed: Speed

    @property
    def name(self) -> str:
        return f"{self.variant.value}-{self.speed.value}"

    @classmethod
    def parse(cls, name: str) -> Pool:
        """The pool of a name; ``UnknownPool`` for any other text."""
        variant, _, speed = name.partition("-")
        try:
            return cls(Variant(variant), Speed(speed))
        except ValueError:
            raise UnknownPool(f"no rating pool is named {name!r}") from None

    def __str__(self) -> str:
        return self.name


def pool_of(variant: Variant, clock: TimeControl | None) -> Pool:
    """The pool of a game of this variant and clock."""
    return Pool(variant, speed_of(clock))


#: Every pool, in the order listings show them: by variant, then fastest first.
POOLS: tuple[Pool, ...] = tuple(Pool(v, s) for v in Variant for s in Speed)
#: Every pool's name.
POOL_NAMES: tuple[str, ...] = tuple(pool.name for pool in POOLS)
#: The pool of a game made with no variant and no clock, which holds the ratings kept
#: before pools; a call that names no pool reads it.
DEFAULT_POOL = Pool(Variant.HEAD, Speed.UNTIMED)


def provisional(deviation: float) -> bool:
    """Whether a rating of this deviation is provisional (not yet on a leaderboard)."""
    return deviation > PROVISIONAL_DEVIATION


__all__ = [
    "BLITZ_SECONDS",
    "DEFAULT_POOL",
    "POOLS",
    "POOL_NAMES",
    "PROVISIONAL_DEVIATION",
    "RAPID_SECONDS",
    "Pool",
    "Speed",
    "UnknownPool",
    "pool_of",
    "provisional",
    "speed_of",
]
