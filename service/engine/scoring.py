"""Scoring a finished deal in game points (RULES.md R8 and R9)."""

from __future__ import annotations

from .points import LAST_TRICK_GAME_POINTS, WINNING_POINTS, by_opponent, penalty
from .state import DealEndReason, DealResult, DealState


def claim_result(deal: DealState, claimant: int) -> DealResult:
    """The result of ``claimant`` going out, by a claim or automatically (R7c, R9)."""
    opponent = 1 - claimant
    closer = deal.closed_by
    if deal.card_points(claimant) >= WINNING_POINTS:
        if closer is None:
            points = by_opponent(deal.card_points(opponent), deal.tricks_won(opponent))
            return _result(deal, claimant, points, DealEndReason.WENT_OUT, claimant)
        if closer == claimant:
            # R9b: judged by the opponent's state frozen at the close.
            assert deal.at_close is not None
            points = by_opponent(*deal.at_close)
            return _result(deal, claimant, points, DealEndReason.CLOSER_WENT_OUT, claimant)
        return _result(
            deal, claimant, _closer_penalty(deal), DealEndReason.CLOSER_OPPONENT_WENT_OUT, claimant
        )
    if closer == claimant:
        return _result(
            deal, opponent, _closer_penalty(deal), DealEndReason.CLOSER_FALSE_CLAIM, claimant
        )
    # R9c (and R9d for the closer's opponent): 2, or 3 if the claimant's opponent is trickless.
    points = penalty(deal.tricks_won(opponent))
    return _result(deal, opponent, points, DealEndReason.FALSE_CLAIM, claimant)


def last_trick_result(deal: DealState) -> DealResult:
    """The cards ran out and nobody went out (R8a): accept the last trick."""
    if deal.closed_by is not None:
        # R9b: the closer never went out; the opponent wins 2 or 3.
        return _result(
            deal, 1 - deal.closed_by, _closer_penalty(deal), DealEndReason.CLOSER_RAN_OUT
        )
    last_winner = deal.tricks[-1].winner
    return _result(deal, last_winner, LAST_TRICK_GAME_POINTS, DealEndReason.LAST_TRICK)


def _closer_penalty(deal: DealState) -> int:
    """R9b: 2 to the closer's opponent, or 3 if it had no trick at the close."""
    assert deal.at_close is not None
    return penalty(deal.at_close[1])


def _result(
    deal: DealState,
    winner: int,
    game_points: int,
    reason: DealEndReason,
    claimed_by: int | None = None,
) -> DealResult:
    return DealResult(
        number=deal.number,
        dealer=deal.dealer,
        winner=winner,
        game_points=game_points,
        reason=reason,
        card_points=(deal.card_points(0), deal.card_points(1)),
        tricks_won=(deal.tricks_won(0), deal.tricks_won(1)),
        claimed_by=claimed_by,
    )
