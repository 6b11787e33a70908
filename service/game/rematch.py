"""The rules of a rematch offer: who may offer, accept or decline, and what each leaves.

An offer is no event of the game: a finished game's log is closed (and moves
to the archive), so the offer is a small record beside it
(``RematchOffers``, kept by the store for a while) that these rules move from
one ``Offer`` to the next. Pure: the commands (``service.game.rematch_service``)
read the record, decide here, and write the result only if the record is
still what they read.

- Either seat of a finished game offers; the other seat accepts or declines.
- An offer to a seat that offered already is its acceptance (both want it).
- Against a bot the bot accepts at once: the offer is accepted as it is made.
- A declined offer is over: either seat may offer again.
- Once accepted it stays accepted: a game has one rematch (its id is derived
  from the game's own, ``auth.derive_rematch_id``).
- Repeating a move that is already in force (an offer, an accept, a decline)
  answers the record as it is, so every retry is safe.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from service.engine import GameState
from service.engine.state import GameEndReason
from service.game.problem_codes import ProblemCode
from service.game.problems import Conflict


class RematchStatus(StrEnum):
    """Where an offer stands: made and unanswered, accepted (the new game exists or is
    being made), or declined (over; a new offer may follow)."""

    OFFERED = "offered"
    ACCEPTED = "accepted"
    DECLINED = "declined"


class Move(StrEnum):
    """What a seat asks of the offer."""

    OFFER = "offer"
    ACCEPT = "accept"
    DECLINE = "decline"


@dataclass(frozen=True, slots=True)
class Offer:
    """A rematch offer of one game: the seat that made it, and where it stands.

    ``offered_by`` is None for an accepted offer whose record has expired while the
    game it made lives on (``RematchService``): who offered is no longer known.
    """

    offered_by: int | None
    status: RematchStatus
    #: Which offer of the game this is, 1 for the first: an offer made again after a
    #: decline is a new one, and its notice is a new notice (``notices.rematch_offered``).
    number: int = 1

    def encode(self) -> str:
        """As the store keeps it: ``<status>:<seat>:<number>``."""
        return f"{self.status.value}:{self.offered_by}:{self.number}"

    @classmethod
    def decode(cls, text: str | None) -> Offer | None:
        """The record, also as kept before offers were numbered (``<status>:<seat>``: the
        first offer)."""
        if not text:
            return None
        status, seat, *number = text.split(":")
        return cls(int(seat), RematchStatus(status), int(number[0]) if number else 1)


def has_rematch(state: GameState) -> bool:
    """A game that may have a rematch: over, and not aborted."""
    return state.over and not _aborted(state)


def _aborted(state: GameState) -> bool:
    return state.ending is not None and state.ending.reason is GameEndReason.ABORTED


def check_rematch_allowed(state: GameState) -> None:
    """A rematch is for a game that is over and was played: not for one still waiting or
    running, nor for one aborted before its first action (RX2)."""
    if not state.over:
        raise Conflict(
            "the game is not finished: a rematch is offered once it is over",
            code=ProblemCode.GAME_NOT_FINISHED,
        )
    if _aborted(state):
        raise Conflict(
            "the game was aborted before it was played: it has no rematch; create a new game",
            code=ProblemCode.REMATCH_NOT_ALLOWED,
        )


def decide(offer: Offer | None, seat: int, move: Move, *, against_bot: bool) -> Offer:
    """The offer after ``seat``'s ``move`` (the same offer when nothing changes), or a
    refusal (``Conflict``)."""
    other_offered = offer is not None and offer.offered_by != seat
    if move is Move.OFFER:
        if offer is None or offer.status is RematchStatus.DECLINED:
            status = RematchStatus.ACCEPTED if against_bot else RematchStatus.OFFERED
            return Offer(seat, status, 1 if offer is None else offer.number + 1)
        if offer.status is RematchStatus.OFFERED and other_offered:
            return replace(offer, status=RematchStatus.ACCEPTED)  # both want it
        return offer  # offered by this seat already, or accepted
    if offer is None or (offer.status is RematchStatus.DECLINED and move is Move.ACCEPT):
        raise Conflict(
            "there is no rematch offer to answer"
            + ("" if offer is None else ": the last one was declined; offer one yourself"),
            code=ProblemCode.NO_REMATCH_OFFER,
        )
    if not other_offered:
        raise Conflict(
            f"seat {seat} made this rematch offer; the other seat answers it",
            code=ProblemCode.OWN_REMATCH_OFFER,
        )
    if move is Move.ACCEPT:
        # Offered by the other seat: accepted now, or accepted already (a retry).
        return replace(offer, status=RematchStatus.ACCEPTED)
    if offer.status is RematchStatus.ACCEPTED:
        raise Conflict(
            "the rematch offer was accepted already: its game exists",
            code=ProblemCode.NO_REMATCH_OFFER,
        )
    return replace(offer, status=RematchStatus.DECLINED)  # declined now, or a retry


__all__ = ["Move", "Offer", "RematchStatus", "check_rematch_allowed", "decide", "has_rematch"]
