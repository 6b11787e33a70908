"""What an append tells a client app's backend: the notices its webhooks deliver.

Pure: from a game after an append (``Current``) and the events appended, the
notices that append makes, each about one seat of a person, and the body a
delivery carries. A body holds what that seat's player may see and nothing
more: the game as ``observe`` shows it to the seat (RULES R11), never a card
the seat cannot know, and only the player id of the app's own player there.

Kinds (docs/webhooks.md):

- ``game.started``: both seats are taken, the first deal is dealt (a notice
  for each person's seat);
- ``game.turn``: a person's seat is to move (after every append that leaves
  it so: a new trick's lead by the same seat is a new turn);
- ``game.finished``: the game ended (played out, resigned, aborted, timed
  out; a notice for each person's seat);
- ``seek.paired``, ``challenge.accepted``: the game of a pairing or an
  accepted challenge was made (a notice for each seat);
- ``rematch.offered``: a seat offered a rematch (a notice for the other seat;
  made by the offer, not by an append: ``rematch_offered``);
- ``tournament.started``, ``tournament.round_paired``, ``tournament.finished``:
  about a tournament, not a seat (``service.game.tournament_notices``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from service.engine import Event, GameCreated, SeatTaken, observe
from service.game.values import Current


class NoticeKind(StrEnum):
    GAME_STARTED = "game.started"
    GAME_TURN = "game.turn"
    GAME_FINISHED = "game.finished"
    SEEK_PAIRED = "seek.paired"
    CHALLENGE_ACCEPTED = "challenge.accepted"
    REMATCH_OFFERED = "rematch.offered"
    #: A tournament's own notices, to its app (``service.game.tournament_notices``).
    TOURNAMENT_STARTED = "tournament.started"
    TOURNAMENT_ROUND_PAIRED = "tournament.round_paired"
    TOURNAMENT_FINISHED = "tournament.finished"


#: How each way a game was made is told (``Seats.via``).
_MADE_BY = {"seek": NoticeKind.SEEK_PAIRED, "challenge": NoticeKind.CHALLENGE_ACCEPTED}


@dataclass(frozen=True, slots=True)
class Notice:
    """One notice: a kind, about one seat of a game at a version."""

    kind: NoticeKind
    game_id: str
    version: int
    seat: int
    #: A rematch offer's number (``Offer.number``): a finished game's version stays, so
    #: an offer made again after a decline is told apart by it. None for other kinds.
    offer: int | None = None

    @property
    def event_id(self) -> str:
        """The notice's id, the same however often it is made: receivers deduplicate by it."""
        text = f"{self.kind}|{self.game_id}|{self.version}|{self.seat}"
        if self.offer is not None:
            text += f"|offer:{self.offer}"
        return "evt_" + hashlib.sha256(text.encode()).hexdigest()[:24]


def notices(current: Current, events: Sequence[Event]) -> list[Notice]:
    """The notices of one append, about the seats of people (bots are told nothing)."""
    state, seats = current.state, current.seats
    people = [seat for seat in (0, 1) if not seats[seat].bot]
    found: list[tuple[NoticeKind, int]] = []
    if any(isinstance(event, GameCreated) for event in events) and seats.via in _MADE_BY:
        found += [(_MADE_BY[seats.via], seat) for seat in people]
    seated_now = any(isinstance(event, SeatTaken) for event in events)
    if seated_now and all(state.seated) and not state.over:
        found += [(NoticeKind.GAME_STARTED, seat) for seat in people]
    if state.over:
        found += [(NoticeKind.GAME_FINISHED, seat) for seat in people]
    elif state.to_move in people and all(state.seated):
        found.append((NoticeKind.GAME_TURN, state.to_move))
    return [Notice(kind, current.game_id, current.version, seat) for kind, seat in found]


def rematch_offered(current: Current, offered_by: int, number: int = 1) -> Notice | None:
    """The notice of a game's ``number``-th rematch offer, for the other seat (None when a
    bot sits there): each offer a notice of its own, a retried offer the same one."""
    other = 1 - offered_by
    if current.seats[other].bot:
        return None
    return Notice(NoticeKind.REMATCH_OFFERED, current.game_id, current.version, other, number)


def body(current: Current, notice: Notice, app: str, created_ms: int) -> dict[str, Any]:
    """A delivery's JSON body: the notice and the game as its seat sees it."""
    seat = current.seats[notice.seat]
    return {
        "id": notice.event_id,
        "type": notice.kind.value,
        "created": created_ms,
        "app": app,
        "data": {
            "game_id": current.game_id,
            "version": current.version,
            "seat": notice.seat,
            "player_id": seat.player,
            "game": observe(current.state, notice.seat),
        },
    }
