"""The archive in one SQLite file: the run command's default, with no database to install.

Several processes share the file (the API's workers read, the RQ workers
write): it runs in WAL mode, so readers never wait for the writer, and each
write is one short transaction. Within a process one connection serves every
thread, one statement at a time.

The log is checkpointed into the file by SQLite itself every ``WAL_SIZE_LIMIT``
of pages (its ``wal_autocheckpoint``: 256 of a new file's 16 KiB, 1000 of an
older file's 4 KiB), on the commit that crosses them, and cut back to
``WAL_SIZE_LIMIT`` by the first write after a checkpoint has caught up
(``journal_size_limit``), so it never keeps the size a long read let it grow
to; no timer and no process of its own are needed. A copy of the file alone
misses what the log holds: ``service.store.archive_backup`` copies it whole.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from service.store.archive_interface import ArchiveConflict, ArchiveKey, ArchiveQuery, ArchiveRecord
from service.store.archive_keys import (
    STATUS_CODES,
    VARIANT_CODES,
    ArchiveKeyError,
    client_key,
    cursor_key,
    game_key,
)
from service.store.archive_rows import COLUMNS as _COLUMNS
from service.store.archive_rows import derived_digest, record_of, row_digest, row_values
from service.store.migrations import pending

#: Rows one page of ``scan`` reads.
SCAN_PAGE = 200
#: Seconds a statement waits for another process's lock on the file.
LOCK_TIMEOUT = 30.0
#: The page size of a new file. A row (a game) is about 500 bytes: SQLite's default
#: pages of 4 KiB fit seven and leave the rest of the page unused, a tenth of the file;
#: pages of 16 KiB leave a fortieth. A file made before keeps its pages.
PAGE_SIZE = 16_384
#: Bytes the write-ahead log is cut back to once a checkpoint has caught up with it
#: (``journal_size_limit``), and about how far it grows before SQLite's own checkpoint
#: (``wal_autocheckpoint``, counted in pages: this many bytes of the file's pages).
WAL_SIZE_LIMIT = 4 * 1024 * 1024


class SqliteArchive:
    """``service.store.archive.Archive`` in a SQLite file."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(
            self.path, timeout=LOCK_TIMEOUT, check_same_thread=False, isolation_level=None
        )
        self._db.execute(f"PRAGMA page_size={PAGE_SIZE}")  # a new file's only
        self._wal()
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute(f"PRAGMA journal_size_limit={WAL_SIZE_LIMIT}")
        (page_size,) = self._db.execute("PRAGMA page_size").fetchone()
        self._db.execute(f"PRAGMA wal_autocheckpoint={WAL_SIZE_LIMIT // int(page_size)}")
        _add_migration_functions(self._db)
        self._migrate()

    def _wal(self) -> None:
        """Put the file in WAL mode (it stays so). Processes that open a new file at the
        same instant race for the switch, and SQLite refuses the losers at once as
        locked, without waiting as it does for other statements: the switch is
        asked again for as long as the connection waits for a lock."""
        deadline = time.monotonic() + LOCK_TIMEOUT
        while True:
            try:
                self._db.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as error:
                if "locked" not in str(error) or time.monotonic() > deadline:
                    raise
                time.sleep(0.005)

    def _migrate(self) -> None:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute(
                    "CREATE TABLE IF NOT EXISTS schema_migrations (number INTEGER PRIMARY KEY)"
                )
                applied = {n for (n,) in self._db.execute("SELECT number FROM schema_migrations")}
                for migration in pending("sqlite", applied):
                    for statement in _statements(migration.sql):
                        self._db.execute(statement)
                    self._db.execute(
                        "INSERT INTO schema_migrations (number) VALUES (?)", (migration.number,)
                    )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def put(self, record: ArchiveRecord) -> bool:
        values = row_values(record)
        with self._lock:
            written = self._db.execute(
                f"INSERT INTO games ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (game_id) DO NOTHING",
                values,
            ).rowcount
            if written:
                return True
            data, kept = self._db.execute(
                "SELECT data, digest FROM games WHERE game_id = ?", (values[0],)
            ).fetchone()
        if bytes(data) != record.data and row_digest(data, kept) != record.digest:
            raise ArchiveConflict(record.game_id)
        return False

    def rewrite(self, record: ArchiveRecord) -> bool:
        kept = None if derived_digest(record.data) == record.digest else record.digest
        with self._lock:
            return bool(
                self._db.execute(
                    "UPDATE games SET data = ?, digest = ? WHERE game_id = ?",
                    (record.data, kept, _old_row_key(record.game_id)),
                ).rowcount
            )

    def get(self, game_id: str) -> ArchiveRecord | None:
        key = _old_row_key(game_id)
        with self._lock:
            row = self._db.execute(
                f"SELECT {_COLUMNS} FROM games WHERE game_id = ?", (key,)
            ).fetchone()
        return None if row is None else record_of(row)

    def page(
        self, query: ArchiveQuery, after: ArchiveKey | None, count: int
    ) -> list[ArchiveRecord]:
        where = ["client_id = ?"]
        args: list[Any] = [client_key(query.client_id)]
        if query.status is not None:
            if query.status not in STATUS_CODES:
                return []
            where.append("status = ?")
            args.append(STATUS_CODES[query.status])
        if query.variant is not None:
            if query.variant not in VARIANT_CODES:
                return []
            where.append("variant = ?")
            args.append(VARIANT_CODES[query.variant])
        if query.since_ms is not None:
            where.append("created_ms >= ?")
            args.append(query.since_ms)
        if query.until_ms is not None:
            where.append("created_ms < ?")
            args.append(query.until_ms)
        if after is not None:
            where.append("(created_ms < ? OR (created_ms = ? AND game_id < ?))")
            args += [after.created_ms, after.created_ms, cursor_key(after.game_id)]
        sql = (
            f"SELECT {_COLUMNS} FROM games WHERE {' AND '.join(where)} "
            "ORDER BY created_ms DESC, game_id DESC LIMIT ?"
        )
        with self._lock:
            rows = self._db.execute(sql, (*args, count)).fetchall()
        return [record_of(row) for row in rows]

    def scan(self, query: ArchiveQuery, limit: int | None = None) -> Iterator[ArchiveRecord]:
        after: ArchiveKey | None = None
        left = limit
        while left is None or left > 0:
            rows = self.page(query, after, SCAN_PAGE if left is None else min(SCAN_PAGE, left))
            yield from rows
            if len(rows) < SCAN_PAGE:
                return
            if left is not None:
                left -= len(rows)
            after = ArchiveKey(rows[-1].created_ms, rows[-1].game_id)

    def count(self) -> int:
        with self._lock:
            (n,) = self._db.execute("SELECT count(*) FROM games").fetchone()
        return int(n)

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _old_row_key(game_id: str) -> int | bytes:
    """The column value of ``game_id``, an id that is no hex too: a row of such an id,
    written before ids were numbers, is kept under its UTF-8 bytes, and found by them."""
    try:
        return game_key(game_id)
    except ArchiveKeyError:
        return game_id.encode()


def _add_migration_functions(db: sqlite3.Connection) -> None:
    """The functions migration 0002 converts the old rows' words with (SQLite has no
    hex digits to integer of its own). A word the tables do not know is kept as it was:
    an id as its bytes, a variant or status as its word, and each still reads back."""

    def variant(word: str) -> int | str:
        return VARIANT_CODES.get(word, word)

    def status(word: str) -> int | str:
        return STATUS_CODES.get(word, word)

    db.create_function("archive_game_key", 1, _old_row_key, deterministic=True)
    db.create_function("archive_client_key", 1, client_key, deterministic=True)
    db.create_function("archive_variant_code", 1, variant, deterministic=True)
    db.create_function("archive_status_code", 1, status, deterministic=True)


def _statements(sql: str) -> list[str]:
    """The statements of a migration file (they hold no ``;`` inside a literal)."""
    lines = [line for line in sql.splitlines() if not line.lstrip().startswith("--")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]
