"""How a deal ends, on plain ints: R7c, R8a and R9, written once.

The engine's immutable face (``scoring``) and the search core (``core``)
both ask these two functions who won a finished deal, how many game points
and why; neither keeps its own copy of R9.
"""

from __future__ import annotations

from enum import Enum

from .points import LAST_TRICK_GAME_POINTS, WINNING_POINTS, by_opponent, penalty


class DealEndReason(Enum):
    """Why a deal ended; decides its game points by R8 and R9."""

    WENT_OUT = "went_out"  # R9a: a claim with 66 or more, nobody closed
    FALSE_CLAIM = "false_claim"  # R9c / R9d: a claim without 66
    LAST_TRICK = "last_trick"  # R8a: cards ran out, unclosed: 1 to the last trick's winner
    CLOSER_WENT_OUT = "closer_went_out"  # R9b: judged by the opponent at the close
    CLOSER_FALSE_CLAIM = "closer_false_claim"  # R9b: the closer claimed without 66
    CLOSER_RAN_OUT = "closer_ran_out"  # R9b: the cards ran out before the closer went out
    CLOSER_OPPONENT_WENT_OUT = "closer_opponent_went_out"  # R9b: the opponent went out first

    __hash__ = object.__hash__


#: (winner, game points 1-3, reason)
Outcome = tuple[int, int, DealEndReason]


def claim_outcome(
    claimant: int,
    points: int,
    opponent_points: int,
    opponent_tricks: int,
    closer: int,
    at_close: tuple[int, int] | None,
) -> Outcome:
    """``claimant`` goes out with ``points`` card points, by a claim or automatically (R7c, R9).

    ``closer`` is the seat that closed the talon, -1 if nobody did; ``at_close``
    the closer's opponent's (card points, tricks) frozen at the close (R9b).
    """
    opponent = 1 - claimant
    if points >= WINNING_POINTS:
        if closer < 0:
            return claimant, by_opponent(opponent_points, opponent_tricks), DealEndReason.WENT_OUT
        assert at_close is not None
        if closer == claimant:
            # R9b: judged by the opponent's state frozen at the close.
            return claimant, by_opponent(*at_close), DealEndReason.CLOSER_WENT_OUT
        return claimant, penalty(at_close[1]), DealEndReason.CLOSER_OPPONENT_WENT_OUT
    if closer == claimant:
        assert at_close is not None
        return opponent, penalty(at_close[1]), DealEndReason.CLOSER_FALSE_CLAIM
    # R9c (and R9d for the closer's opponent): 2, or 3 if the claimant's opponent is trickless.
    return opponent, penalty(opponent_tricks), DealEndReason.FALSE_CLAIM


def ran_out_outcome(last_winner: int, closer: int, at_close: tuple[int, int] | None) -> Outcome:
    """The cards ran out and nobody went out (R8a); a closer broke its promise (R9b)."""
    if closer >= 0:
        assert at_close is not None
        return 1 - closer, penalty(at_close[1]), DealEndReason.CLOSER_RAN_OUT
    return last_winner, LAST_TRICK_GAME_POINTS, DealEndReason.LAST_TRICK
