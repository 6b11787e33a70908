"""The records a tournament is made of: who plays, who meets whom, who won.

Players are named by their ids (strings) only: the competition core knows nothing of
accounts or ratings beyond the rating an entrant brings for ordering.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Entrant:
    """A player in the field of a round: their id and the rating that orders them inside a
    score group (the higher first; equal ratings by id, so the order never depends on the
    order the entrants were given in)."""

    player: str
    rating: float = 1500.0


@dataclass(frozen=True)
class Pairing:
    """One board of a round: ``dealer`` deals the game's first deal, ``forehand`` (the
    dealer's opponent) leads its first trick."""

    dealer: str
    forehand: str

    @property
    def players(self) -> frozenset[str]:
        return frozenset((self.dealer, self.forehand))


@dataclass(frozen=True)
class Result:
    """A finished tournament game: its round (Swiss) or its order (arena), who dealt first,
    who led, and who won. Schnapsen has no draw: every game has a winner."""

    round: int
    dealer: str
    forehand: str
    winner: str

    def __post_init__(self) -> None:
        if self.dealer == self.forehand:
            raise ValueError("a player cannot meet themselves")
        if self.winner not in (self.dealer, self.forehand):
            raise ValueError("the winner must be one of the game's two players")

    @property
    def loser(self) -> str:
        return self.forehand if self.winner == self.dealer else self.dealer

    @property
    def players(self) -> frozenset[str]:
        return frozenset((self.dealer, self.forehand))


@dataclass(frozen=True)
class Bye:
    """A round a player sat out because the field was odd: it scores ``BYE_POINTS``."""

    round: int
    player: str


@dataclass(frozen=True)
class Round:
    """A round's pairing: its boards, best-placed first, and the bye if the field was odd."""

    number: int
    pairings: tuple[Pairing, ...]
    bye: str | None = None
