"""Rows for the archive's tests: archived games with the times and owners a test chooses.

``record`` makes a row whose bytes stand for a game (every byte value, a
zero among them, so a back end that treats them as text shows it) and whose
digest is theirs; ``played_record`` a row of a real game, encoded by
``archive_codec`` as the archiving job encodes it.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from datetime import UTC, datetime

from service.store.archive import ArchiveKey, ArchiveQuery, ArchiveRecord
from service.store.archive_codec import ArchivedGame, digest, encode

#: A game's length, creation to end, in the rows made here.
GAME_MS = 600_000


def month_ms(year: int, month: int, day: int = 1, ms: int = 0) -> int:
    """Ms since the epoch of ``day`` of ``month``, UTC, plus ``ms``."""
    return int(datetime(year, month, day, tzinfo=UTC).timestamp() * 1000) + ms


def record(
    game_id: str,
    created_ms: int,
    *,
    client_id: str | None = "client-a",
    variant: str = "head",
    status: str = "finished",
    salt: bytes = b"",
) -> ArchiveRecord:
    """A row for ``game_id``; another ``salt`` gives other bytes (and another digest)."""
    seed = hashlib.sha256(game_id.encode() + b"\0" + salt).digest()
    data = seed + bytes(range(256)) + seed
    return ArchiveRecord(
        game_id=game_id,
        client_id=client_id,
        variant=variant,
        status=status,
        created_ms=created_ms,
        ended_ms=created_ms + GAME_MS,
        data=data,
        digest=hashlib.sha256(data).digest(),
    )


def with_other_bytes(row: ArchiveRecord) -> ArchiveRecord:
    """The same game's row with other contents: what a second archiving must not write."""
    data = row.data + b"\x01"
    return replace(row, data=data, digest=hashlib.sha256(data).digest())


def played_record(game: ArchivedGame, created_ms: int, client_id: str | None) -> ArchiveRecord:
    """A real game's row: its ``archive_codec`` bytes and its digest."""
    return ArchiveRecord(
        game_id=game.game_id,
        client_id=client_id,
        variant="head",
        status="finished",
        created_ms=created_ms,
        ended_ms=created_ms + GAME_MS,
        data=encode(game),
        digest=digest(game),
    )


def key(row: ArchiveRecord) -> ArchiveKey:
    """Where a listing that ended on ``row`` goes on from."""
    return ArchiveKey(row.created_ms, row.game_id)


def newest_first(rows: list[ArchiveRecord]) -> list[ArchiveRecord]:
    """``rows`` in the archive's listing order: created_ms, then game_id, both descending
    (game ids compared by their bytes, as both back ends do)."""
    return sorted(rows, key=lambda r: (r.created_ms, r.game_id.encode()), reverse=True)


def matches(query: ArchiveQuery, row: ArchiveRecord, after: ArchiveKey | None = None) -> bool:
    """Whether a listing of ``query`` after ``after`` holds ``row``: what the archive is
    checked against."""
    if row.client_id != query.client_id:
        return False
    if query.status is not None and row.status != query.status:
        return False
    if query.variant is not None and row.variant != query.variant:
        return False
    if query.since_ms is not None and row.created_ms < query.since_ms:
        return False
    if query.until_ms is not None and row.created_ms >= query.until_ms:
        return False
    if after is not None:
        mine = (row.created_ms, row.game_id.encode())
        return mine < (after.created_ms, after.game_id.encode())
    return True
