"""What every archive back end is: the ``Archive`` interface and the records it keeps.

Apart from ``service.store.archive`` (which opens a back end by its URL), so that
the back ends import what they implement without importing what opens them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol


class ArchiveConflict(Exception):
    """The game is archived already, with other bytes than the ones offered."""

    def __init__(self, game_id: str):
        super().__init__(f"game {game_id} is archived already with other contents")
        self.game_id = game_id


@dataclass(frozen=True, slots=True)
class ArchiveRecord:
    """One archived game: what listing filters on, and the game itself.

    ``data`` is ``archive_codec.encode`` of the game; ``digest`` the
    ``archive_codec.digest`` of the game as the log held it, checked against
    the decoded bytes before Redis lets the game go.
    """

    game_id: str
    client_id: str | None
    variant: str
    status: str
    created_ms: int
    ended_ms: int
    data: bytes
    digest: bytes


@dataclass(frozen=True, slots=True)
class ArchiveQuery:
    """Which of a client's archived games a listing or an export asks for.

    Times are ms since the epoch of the game's creation: ``since`` inclusive,
    ``until`` exclusive. None: any.
    """

    client_id: str
    status: str | None = None
    variant: str | None = None
    since_ms: int | None = None
    until_ms: int | None = None


@dataclass(frozen=True, slots=True)
class ArchiveKey:
    """Where a listing stopped: the last row it gave, newest-first order."""

    created_ms: int
    game_id: str


class Archive(Protocol):
    """Finished games, kept for good."""

    def put(self, record: ArchiveRecord) -> bool:
        """Keep ``record``: True when written now, False when the same game with the same
        digest was there already; ``ArchiveConflict`` when it was there with another."""
        ...

    def get(self, game_id: str) -> ArchiveRecord | None:
        """The archived game, or None when it is not archived."""
        ...

    def rewrite(self, record: ArchiveRecord) -> bool:
        """Replace a kept game's bytes and digest with ``record``'s (False: not kept).

        The one change a kept game takes: its app erased a player, whose seat is
        then anonymised (``service.store.player_erasure``); every other column stays.
        """
        ...

    def page(
        self, query: ArchiveQuery, after: ArchiveKey | None, count: int
    ) -> list[ArchiveRecord]:
        """Up to ``count`` of the query's games older than ``after`` (default: the
        newest), newest first by (created_ms, game_id)."""
        ...

    def scan(self, query: ArchiveQuery, limit: int | None = None) -> Iterator[ArchiveRecord]:
        """Every game of the query, newest first, read a page at a time (the export)."""
        ...

    def count(self) -> int:
        """How many games the archive holds."""
        ...

    def close(self) -> None:
        """Let go of connections and files."""
        ...


__all__ = ["Archive", "ArchiveConflict", "ArchiveKey", "ArchiveQuery", "ArchiveRecord"]
