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
from service.store.archive_interface import ArchiveRecord
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


class StoredRecord(ArchiveRecord):
    """A record as a row gives it back. A digest the row does not keep is derived from
    the game's bytes when it is first asked for, not when the row is read: deriving
    decodes the game (milliseconds), and a listing reads only ids and times.

    It equals an ``ArchiveRecord`` of the same values, digest included, and
    ``dataclasses.replace`` makes another of its kind.
    """

    __slots__ = ("_kept", "_derived")

    def __init__(
        self,
        game_id: str,
        client_id: str | None,
        variant: str,
        status: str,
        created_ms: int,
        ended_ms: int,
        data: bytes,
        digest: bytes | None = None,
    ) -> None:
        for name, value in (
            ("game_id", game_id),
            ("client_id", client_id),
            ("variant", variant),
            ("status", status),
            ("created_ms", created_ms),
            ("ended_ms", ended_ms),
            ("data", data),
            ("_kept", digest),
            ("_derived", None),
        ):
            object.__setattr__(self, name, value)

    @property  # type: ignore[override]
    def digest(self) -> bytes:
        if self._kept is not None:
            return self._kept
        if self._derived is None:
            object.__setattr__(self, "_derived", row_digest(self.data, None))
        return self._derived

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ArchiveRecord):
            return NotImplemented
        return _values(self) == _values(other)

    def __hash__(self) -> int:
        return hash(_values(self))


def _values(record: ArchiveRecord) -> tuple[Any, ...]:
    return (
        record.game_id,
        record.client_id,
        record.variant,
        record.status,
        record.created_ms,
        record.ended_ms,
        record.data,
        record.digest,
    )


def record_of(row: tuple[Any, ...]) -> ArchiveRecord:
    game_id, client_id, variant, status, created_ms, ended_ms, data, kept = row
    return StoredRecord(
        game_id_of(game_id),
        client_id_of(client_id),
        variant_of(variant),
        status_of(status),
        int(created_ms),
        int(ended_ms),
        bytes(data),
        None if kept is None else bytes(kept),
    )
