"""A tournament's notices to its app: its start, each round's pairing (an arena's each
pairing), its end.

Unlike a game's notices (``service.game.notices``) these are about no seat: the body
names the tournament, its round, its players by their ids and its games by theirs,
never a token and never a card. A notice's id is a function of the tournament, the kind
and the round, so a job that tells it again (a retried pairing) makes the same notice,
and a delivery log keeps it once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from service.game.notices import NoticeKind


@dataclass(frozen=True, slots=True)
class NoticeBoard:
    board: int
    game_id: str
    dealer: str
    forehand: str


@dataclass(frozen=True, slots=True)
class TournamentNotice:
    """One notice about a tournament at a round. ``game_id`` and ``version`` are what a
    delivery's log lists for it: the tournament's id and the round."""

    kind: NoticeKind
    tournament_id: str
    round: int
    status: str
    bye: str | None = None
    boards: tuple[NoticeBoard, ...] = ()

    @property
    def game_id(self) -> str:
        return self.tournament_id

    @property
    def version(self) -> int:
        return self.round

    @property
    def event_id(self) -> str:
        text = f"{self.kind}|{self.tournament_id}|{self.round}"
        return "evt_" + hashlib.sha256(text.encode()).hexdigest()[:24]

    def body(self, app: str, created_ms: int) -> dict[str, Any]:
        return {
            "id": self.event_id,
            "type": self.kind.value,
            "created": created_ms,
            "app": app,
            "data": {
                "tournament_id": self.tournament_id,
                "round": self.round,
                "status": self.status,
                "bye": self.bye,
                "boards": [
                    {"board": b.board, "game_id": b.game_id, "dealer": b.dealer,
                     "forehand": b.forehand}
                    for b in self.boards
                ],
            },
        }  # fmt: skip


def started_notice(tournament_id: str, number: int = 1) -> TournamentNotice:
    """The start: a Swiss's with its first round (1), an arena's at its start time (0)."""
    return TournamentNotice(NoticeKind.TOURNAMENT_STARTED, tournament_id, number, "started")


def paired_notice(
    tournament_id: str, number: int, bye: str | None, boards: Sequence[NoticeBoard]
) -> TournamentNotice:
    """A round's pairing (in an arena, each pairing of the players waiting is a round)."""
    return TournamentNotice(
        NoticeKind.TOURNAMENT_ROUND_PAIRED, tournament_id, number, "started", bye, tuple(boards)
    )


def round_notices(
    tournament_id: str, number: int, bye: str | None, boards: Sequence[NoticeBoard]
) -> list[TournamentNotice]:
    """The notices of round ``number``'s pairing: the first also starts the tournament."""
    paired = paired_notice(tournament_id, number, bye, boards)
    return [paired] if number != 1 else [started_notice(tournament_id), paired]


def finished_notice(tournament_id: str, last_round: int) -> TournamentNotice:
    return TournamentNotice(NoticeKind.TOURNAMENT_FINISHED, tournament_id, last_round, "finished")


__all__ = [
    "NoticeBoard",
    "TournamentNotice",
    "finished_notice",
    "paired_notice",
    "round_notices",
    "started_notice",
]
