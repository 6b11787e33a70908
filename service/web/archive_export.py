"""A client app's finished games, read from the archive, as NDJSON: one game a line.

``GET /v1/games/export`` may hold a hundred thousand games, so nothing here
holds more than one page of rows: ``Archive.scan`` reads the archive a page
at a time by keyset (newest first), and each row becomes its line as the
answer is written, decoded (``archive_codec``) and replayed for a
spectator with the same builder as ``GET /v1/games/{id}/replay``
(``render.replay_body``) and dumped by the same schema, so a line's replay
is that answer exactly. Games enter the export once archived, shortly after
they end; a game still being played is in no archive.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from schemas.games import ReplaySchema
from service.game.seats import Seats
from service.store.archive import ArchiveQuery, ArchiveRecord
from service.store.archive_codec import decode
from service.web.render import replay_body, utc_time

#: The one schema every replay answer is dumped by (flask-smorest's for /replay).
_REPLAY = ReplaySchema()
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MS = timedelta(milliseconds=1)


def created_ms(moment: datetime) -> int:
    """The first whole ms since the epoch at or after ``moment`` (an aware time).

    A game's creation time is kept in whole ms, so ``created_ms >= since``
    and ``created_ms < until`` compare to this exactly, where rounding down
    would let a game of the ms before ``since`` in.
    """
    return -((_EPOCH - moment) // _MS)


def archive_query(client_id: str, query: dict[str, Any]) -> ArchiveQuery:
    """The archive's query for an export's parameters (``GameExportQuerySchema``)."""
    since, until = query.get("since"), query.get("until")
    return ArchiveQuery(
        client_id,
        status=query.get("status"),
        variant=query.get("variant"),
        since_ms=None if since is None else created_ms(since),
        until_ms=None if until is None else created_ms(until),
    )


def game_line(record: ArchiveRecord) -> dict[str, Any]:
    """One archived game as its export line: what listing filters on, and its replay."""
    game = decode(record.data)
    players = Seats.decode(game.seat_fields).players
    replay = replay_body(record.game_id, game.events, players, None)
    return {
        "game_id": record.game_id,
        "created_at": utc_time(record.created_ms),
        "ended_at": utc_time(record.ended_ms),
        "variant": record.variant,
        "status": record.status,
        "replay": _REPLAY.dump(replay),
    }


def export_lines(records: Iterable[ArchiveRecord]) -> Iterator[str]:
    """Each record as one line of JSON, built when the answer asks for it.

    A line costs a few ms of CPU (decoding replays the game's actions, then
    the replay's frames are built), and an export may run to many thousands:
    under gunicorn's gevent worker a greenlet runs until it yields, so after
    each line this one yields (``time.sleep(0)``, gevent's once patched) and
    the process's other requests, its waiting clients above all, go on.
    """
    for record in records:
        yield json.dumps(game_line(record), separators=(",", ":")) + "\n"
        time.sleep(0)


__all__ = ["archive_query", "created_ms", "export_lines", "game_line"]
