"""A game's record as the archive's row, and back: what both back ends write and read.

The row holds the keys as numbers (``archive_keys``) and the digest only when
the game's bytes do not give it. The digest is SHA-256 of the game as the log
held it (``archive_codec.digest``); the codec's bytes are canonical, so bytes
that decode give that digest back exactly, and keeping it beside them would
spend 33 bytes a row on what the row holds already. A row whose bytes are no
game the codec reads (none that the archiving job writes) keeps its digest.
"""

from __future__ import annotations

from typing import Any

from service.store import archive_codec
from service.store.archive import ArchiveRecord
from service.store.archive_keys import (
    client_id_of,
    client_key,
    game_id_of,
    game_key,
    status_code,
    status_of,
    variant_code,
    variant_of,
)

#: The columns, in the order ``row_values`` gives and ``record_of`` reads them.
COLUMNS = "game_id, client_id, variant, status, created_ms, ended_ms, data, digest"


def derived_digest(data: bytes) -> bytes | None:
    """The digest of the game ``data`` decodes to, or None when it is no game."""
    try:
        return archive_codec.digest(archive_codec.decode(data))
    except archive_codec.ArchiveDecodeError:
        return None


def row_values(record: ArchiveRecord) -> tuple[Any, ...]:
    """The row of ``record``, in ``COLUMNS`` order; ``ArchiveKeyError`` when its keys do
    not fit the columns."""
    kept = None if derived_digest(record.data) == record.digest else record.digest
    return (
        game_key(record.game_id),
        client_key(record.client_id),
        variant_code(record.variant),
        status_code(record.status),
        record.created_ms,
        record.ended_ms,
        record.data,
        kept,
    )


def row_digest(data: bytes, kept: bytes | None) -> bytes:
    """A row's digest: the one it keeps, else the one its bytes give."""
    if kept is not None:
        return bytes(kept)
    found = derived_digest(bytes(data))
    if found is None:
        raise archive_codec.ArchiveDecodeError("a row without a digest holds no game")
    return found


def record_of(row: tuple[Any, ...]) -> ArchiveRecord:
    game_id, client_id, variant, status, created_ms, ended_ms, data, kept = row
    return ArchiveRecord(
        game_id_of(game_id),
        client_id_of(client_id),
        variant_of(variant),
        status_of(status),
        int(created_ms),
        int(ended_ms),
        bytes(data),
        row_digest(data, kept),
    )
