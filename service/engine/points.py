"""The numbers of the rules, each written once: going out, marriages, game points.

Plain ints and functions of ints, so that every user of the rules (the
engine's immutable face, the search core, the endgame solver, the bots'
heuristics) reads the same value from here and none keeps its own copy.
"""

from __future__ import annotations

#: Card points needed to go out (R7).
WINNING_POINTS = 66
#: R9a: an opponent with fewer card points than this (but a trick) loses 2, not 1.
HALF_POINTS = 33
#: A marriage in a plain suit, and in trumps (R6c).
MARRIAGE_POINTS = 20
TRUMP_MARRIAGE_POINTS = 40
#: Game points each seat starts with (R10a).
START_GAME_POINTS = 7
#: Game points of a deal won by taking the last trick, unclosed (R8a).
LAST_TRICK_GAME_POINTS = 1


def marriage_points(in_trumps: bool) -> int:
    """R6c: a declared King and Queen are worth 20, or 40 in trumps."""
    return TRUMP_MARRIAGE_POINTS if in_trumps else MARRIAGE_POINTS


def by_opponent(opponent_points: int, opponent_tricks: int) -> int:
    """R9a: 1 if the opponent has 33 or more, 2 if under 33 with a trick, 3 if trickless."""
    if opponent_tricks == 0:
        return 3
    return 1 if opponent_points >= HALF_POINTS else 2


def penalty(opponent_tricks: int) -> int:
    """R9b, R9c: a broken promise or a false claim gives the opponent 2, or 3 if it is trickless.

    For the closer's penalty (R9b) pass the opponent's tricks frozen at the close;
    for a false claim (R9c) the claimant's opponent's tricks now.
    """
    return 3 if opponent_tricks == 0 else 2
