"""Scoring a finished deal in game points (docs/rules.md, R8 and R9), for the immutable face.

The rules themselves are ``outcomes.claim_outcome`` and ``outcomes.ran_out_outcome``
(shared with the search core); this module reads a ``DealState`` into them and
builds the ``DealResult`` that events and views carry.
"""

from __future__ import annotations

from .outcomes import DealEndReason, claim_outcome, ran_out_outcome
from .state import DealResult, DealState


def claim_result(deal: DealState, claimant: int) -> DealResult:
    """The result of ``claimant`` going out, by a claim or automatically (R7c, R9)."""
    opponent = 1 - claimant
    winner, points, reason = claim_outcome(
        claimant,
        deal.card_points(claimant),
        deal.card_points(opponent),
        deal.tricks_won(opponent),
        -1 if deal.closed_by is None else deal.closed_by,
        deal.at_close,
    )
    return deal_result(deal, winner, points, reason, claimant)


def last_trick_result(deal: DealState) -> DealResult:
    """The cards ran out and nobody went out (R8a): accept the last trick."""
    winner, points, reason = ran_out_outcome(
        deal.tricks[-1].winner, -1 if deal.closed_by is None else deal.closed_by, deal.at_close
    )
    return deal_result(deal, winner, points, reason)


def deal_result(
    deal: DealState,
    winner: int,
    game_points: int,
    reason: DealEndReason,
    claimed_by: int | None = None,
) -> DealResult:
    """The ``DealResult`` of ``deal`` ended so (the search core's results too)."""
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
