"""One game played out to its winner at a table of two players who decide in turn.

The loop every self-play shares: benchmarks/tournament.py's duplicate matches,
benchmarks/positions.py's and benchmarks/decisions.py's recordings, and the
random positions of the benchmarks and tests. Both seats are taken, the first
dealer is drawn from ``decks``, and each deal is dealt from a fresh shuffle of the
deck by ``decks``, drawn when the deal starts: the same generator in the same
state gives the same games whatever else draws from it in between (random play
may share it: its draws interleave the same way every run).

Through the engine's public face only (``new_game``, ``take_seat``,
``start_deal``, ``apply``), as a game of the service is played::

    game = SelfPlay.seated(Variant.HEAD, random.Random(seed))
    for turn in game.turns():
        game.play(choose(seat_view(turn.state, turn.seat)))
    winner = game.state.winner
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from service.engine import (
    DECK,
    Action,
    DealState,
    GameState,
    Variant,
    apply,
    new_game,
    start_deal,
    take_seat,
)


class TurnNotPlayedError(RuntimeError):
    """``turns`` was asked for the next turn before this one's action was played."""


@dataclass(frozen=True, slots=True)
class Turn:
    """A position in which a deal runs and ``seat`` is to move."""

    state: GameState
    deal: DealState
    seat: int


@dataclass(slots=True)
class SelfPlay:
    """A game between two players at one table, and the generator that shuffles its decks."""

    state: GameState
    decks: random.Random

    @classmethod
    def seated(cls, variant: Variant, decks: random.Random) -> SelfPlay:
        """A new game with both seats taken, its first dealer drawn from ``decks``."""
        return cls(take_seat(take_seat(new_game(variant, decks.randrange(2)), 0), 1), decks)

    def turns(self) -> Iterator[Turn]:
        """Every turn until the game has a winner, each deal dealt as it is due.

        Each turn must be answered by ``play`` before the next is asked for; a caller
        may stop early (the game then stays as it is).
        """
        while self.state.winner is None:
            if self.state.awaiting_deal:
                deck = list(DECK)
                self.decks.shuffle(deck)
                self.state = start_deal(self.state, deck)
                continue
            deal = self.state.deal
            seat = None if deal is None else deal.to_move
            assert deal is not None and seat is not None  # no deal due and no winner: one runs
            turn = Turn(self.state, deal, seat)
            yield turn
            if self.state is turn.state:
                raise TurnNotPlayedError(f"seat {seat}'s turn was not played")

    def play(self, action: Action) -> GameState:
        """The state after the seat to move takes ``action`` (the game goes on from it)."""
        self.state = apply(self.state, action)
        return self.state
