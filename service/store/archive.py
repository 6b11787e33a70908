"""The archive of finished games: one row per game, its bytes in ``archive_codec``'s format.

Redis holds the games being played and the last hour or so; a finished or
aborted game then moves here, and Redis forgets it. Two back ends keep the
same rows behind one interface (``Archive``, ``service.store.archive_interface``):

- PostgreSQL, the production store (``service.store.archive_postgres``);
- SQLite in the data folder, the embedded default of the run command, so a
  fresh machine serves replays with no database installed
  (``service.store.archive_sqlite``).

``open_archive(url)`` picks one by the URL's scheme. A row is written once:
``put`` of a game already archived writes nothing and says so, and a second
``put`` with other bytes for the same game is refused (``ArchiveConflict``), so
an archiving job killed at any point and run again never doubles a game.

Listing reads rows of one client app, newest first, by keyset: the last row
of a page (``created_ms``, ``game_id``) is where the next starts, so a page
costs the same however deep it is and a game archived meanwhile neither
repeats nor hides another.
"""

from __future__ import annotations

from service.store.archive_interface import (
    Archive,
    ArchiveConflict,
    ArchiveKey,
    ArchiveQuery,
    ArchiveRecord,
)


def open_archive(url: str) -> Archive:
    """The archive at ``url``: ``postgresql://...`` or ``sqlite:///<path>``."""
    if url.startswith(("postgresql://", "postgres://")):
        from service.store.archive_postgres import PostgresArchive

        return PostgresArchive(url)
    if url.startswith("sqlite:///"):
        from service.store.archive_sqlite import SqliteArchive

        return SqliteArchive(url.removeprefix("sqlite:///"))
    raise ValueError(f"not an archive URL (postgresql://... or sqlite:///path): {url!r}")


__all__ = [
    "Archive",
    "ArchiveConflict",
    "ArchiveKey",
    "ArchiveQuery",
    "ArchiveRecord",
    "open_archive",
]
