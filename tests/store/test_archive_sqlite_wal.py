"""The SQLite archive's write-ahead log does not keep the size it once grew to.

SQLite checkpoints the log into the file every 4 MiB of pages on its own, but it only
ever writes the log again from its start: a log that grew large while a long read
held checkpoints back stays that large on disk. The archive sets
``journal_size_limit`` (``WAL_SIZE_LIMIT``), so the first write after a checkpoint
has caught up cuts the log back to it (docs/deployment.md, Backup and restore).
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

from service.store.archive_sqlite import WAL_SIZE_LIMIT, SqliteArchive
from tests.support.archive_records import month_ms, record

#: Writes after the long read ends within which the log must be back at its limit.
WRITES_AFTER = 20


def test_a_log_grown_past_its_limit_behind_a_long_read_is_cut_back_once_the_read_ends(
    tmp_path: Path,
):
    path = tmp_path / "archive.sqlite3"
    wal = Path(f"{path}-wal")
    archive = SqliteArchive(path)
    written = 0

    def put() -> None:
        nonlocal written
        assert archive.put(record(f"{written:016x}", month_ms(2026, 1, 1, written)))
        written += 1

    try:
        with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as reader:
            reader.execute("BEGIN")
            reader.execute("SELECT count(*) FROM games").fetchone()  # holds its snapshot
            while wal.stat().st_size <= 2 * WAL_SIZE_LIMIT:
                put()
            grown = wal.stat().st_size
            reader.execute("COMMIT")
        sizes = []
        for _ in range(WRITES_AFTER):
            put()
            sizes.append(wal.stat().st_size)
        assert min(sizes) <= WAL_SIZE_LIMIT, (
            f"the log grew to {grown} bytes behind the read and is still {sizes[-1]} bytes "
            f"{WRITES_AFTER} writes after it ended (limit {WAL_SIZE_LIMIT})"
        )
        assert sizes[-1] <= WAL_SIZE_LIMIT
        assert archive.count() == written
    finally:
        archive.close()
