"""What the archive's rows take where they are kept: bytes of its tables and indexes.

Measured from outside the archive's code, by each database's own account:
SQLite's ``dbstat`` (every page of the ``games`` table and of its indexes),
PostgreSQL's ``pg_total_relation_size`` of every partition of ``games`` (its
heap, TOAST and indexes). ``payload`` is the games' bytes alone
(``length(data)``), so a figure shows what the encoding takes and what the
row and its keys add.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import psycopg


@dataclass(frozen=True, slots=True)
class Footprint:
    """The archive's games, the bytes their table and indexes take, and their payload."""

    games: int
    stored_bytes: int
    payload_bytes: int
    #: Of ``stored_bytes``, what the indexes take.
    index_bytes: int = 0

    @property
    def per_game(self) -> float:
        return self.stored_bytes / self.games

    @property
    def payload_per_game(self) -> float:
        return self.payload_bytes / self.games


def footprint(url: str) -> Footprint:
    """The footprint of the archive at ``url`` (``sqlite:///...`` or ``postgresql://...``)."""
    if url.startswith("sqlite:///"):
        return _sqlite(url.removeprefix("sqlite:///"))
    return _postgres(url)


def _sqlite(path: str) -> Footprint:
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        names = [
            n for (n,) in db.execute("SELECT name FROM sqlite_schema WHERE tbl_name = 'games'")
        ]
        marks = ",".join("?" * len(names))
        (stored,) = db.execute(
            f"SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name IN ({marks})", names
        ).fetchone()
        indexes = [
            n
            for (n,) in db.execute(
                "SELECT name FROM sqlite_schema WHERE tbl_name = 'games' AND type = 'index'"
            )
        ]
        (indexed,) = db.execute(
            f"SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name IN ({','.join('?' * len(indexes))})",
            indexes,
        ).fetchone()
        games, payload = db.execute(
            "SELECT count(*), coalesce(sum(length(data)), 0) FROM games"
        ).fetchone()
    return Footprint(int(games), int(stored), int(payload), int(indexed))


def _postgres(url: str) -> Footprint:
    with psycopg.connect(url, autocommit=True) as db:
        stored, indexed = db.execute(
            "SELECT coalesce(sum(pg_total_relation_size(relid)), 0),"
            " coalesce(sum(pg_indexes_size(relid)), 0)"
            " FROM pg_partition_tree('games') WHERE isleaf"
        ).fetchone()
        games, payload = db.execute(
            "SELECT count(*), coalesce(sum(length(data)), 0) FROM games"
        ).fetchone()
    return Footprint(int(games), int(stored), int(payload), int(indexed))
