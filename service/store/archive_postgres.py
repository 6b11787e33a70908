"""The archive on PostgreSQL: the production store of finished games.

One table, ``games``, partitioned by month of creation (the schema and why:
``migrations/postgres/0001_games.sql``). The schema's migrations are applied
when an archive opens, each in one transaction under an advisory lock, so
processes opening at once apply each migration once; a month's partition is
made by the first ``put`` of a game of that month, under the same lock.

A partitioned table's unique keys must hold the partition key, so the table
alone would take one game twice under two creation times. ``put`` keeps a
game once itself: in one transaction it takes an advisory lock on the game's
id, looks for the id in every month, and writes only when it is not there.

Connections come from a small pool (``psycopg_pool``), shared by the threads
of a process; each statement may run ``STATEMENT_TIMEOUT_MS`` at most, and a
caller waits ``pool_timeout`` seconds at most for a connection.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import psycopg
from psycopg import sql
from psycopg_pool import ConnectionPool

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
#: The advisory lock (one bigint key) of changes to the schema: migrations and new
#: partitions. Its own number, so it meets no other use of advisory locks.
SCHEMA_LOCK = 0x5343_4841_5243_0001
#: The first key of the advisory locks (two int keys: a space apart from SCHEMA_LOCK's)
#: on one game's id while ``put`` writes it; the second is ``hashtext(game_id)``.
GAME_LOCK = 0x5343_4731
#: The most one statement may run, except a migration's (a lock wait included).
STATEMENT_TIMEOUT_MS = 30_000


class MonthDetached(Exception):
    """A game's month has a partition, detached from ``games``: its games are kept
    apart (to be dumped, moved or dropped), so a game of that month is not written
    until the partition is attached again."""

    def __init__(self, game_id: str, partition: str):
        super().__init__(
            f"game {game_id} belongs to {partition}, which is detached from games: "
            "attach it again to archive games of its month"
        )
        self.game_id = game_id
        self.partition = partition


class PostgresArchive:
    """``service.store.archive.Archive`` in a PostgreSQL database.

    ``url``: a libpq connection URI (``postgresql://user@host/db``) or
    key=value string. ``pool_size``: the most connections this process opens;
    ``pool_timeout``: the most seconds a caller waits for one, and the opening
    for the first.
    """

    def __init__(self, url: str, *, pool_size: int = 4, pool_timeout: float = 10.0):
        self._pool = ConnectionPool(
            url,
            min_size=1,
            max_size=pool_size,
            timeout=pool_timeout,
            max_idle=300,
            kwargs={"autocommit": True, "connect_timeout": max(1, round(pool_timeout))},
            configure=_configure,
            check=ConnectionPool.check_connection,
            name="archive",
            open=False,
        )
        #: Months whose partition this process made or saw made.
        self._months: set[tuple[int, int]] = set()
        self._months_lock = threading.Lock()
        try:
            self._pool.open(wait=True, timeout=pool_timeout)
            self._migrate()
        except BaseException:
            self._pool.close()
            raise

    # -- the schema ---------------------------------------------------------------------

    def _migrate(self) -> None:
        """Apply the migrations not yet applied, one transaction each, under the schema
        lock: a process that waited for another's finds them applied and applies none.
        When every one is applied already, nothing is written: an archive opens on a
        read replica (a hot standby takes no write)."""
        if not pending("postgres", self._applied()):
            return
        while True:
            with self._pool.connection() as conn, conn.transaction():
                conn.execute("SET LOCAL statement_timeout = 0")
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
                conn.execute(
                    "CREATE TABLE IF NOT EXISTS schema_migrations ("
                    " number integer PRIMARY KEY,"
                    " name text NOT NULL,"
                    " applied_at timestamptz NOT NULL DEFAULT now())"
                )
                applied = {n for (n,) in conn.execute("SELECT number FROM schema_migrations")}
                todo = pending("postgres", applied)
                if not todo:
                    return
                migration = todo[0]
                # A file of several statements: sent whole, with no parameters.
                conn.execute(migration.sql.encode())
                conn.execute(
                    "INSERT INTO schema_migrations (number, name) VALUES (%s, %s)",
                    (migration.number, migration.name),
                )

    def _applied(self) -> set[int]:
        """The migrations the database records (none before the first)."""
        with self._pool.connection() as conn:
            if conn.execute("SELECT to_regclass('schema_migrations')").fetchone() == (None,):
                return set()
            return {n for (n,) in conn.execute("SELECT number FROM schema_migrations")}

    def _make_partition(self, month: tuple[int, int]) -> None:
        """Make the partition of ``month`` unless it is there. Whether it is there is
        asked first, with no lock, so processes new to a month do not queue for the
        schema lock; the lock keeps two processes from making it at once."""
        start, end = _month_bounds(month)
        name = _partition(month)
        with self._pool.connection() as conn:
            there = conn.execute("SELECT to_regclass(%s)", (name,)).fetchone() != (None,)
        if not there:
            self._create_partition(name, start, end)
        with self._months_lock:
            self._months.add(month)

    def _create_partition(self, name: str, start: int, end: int) -> None:
        """Make ``name`` the partition of [start, end), under the schema lock: a process
        that waited for another's finds it made (IF NOT EXISTS) and makes none."""
        with self._pool.connection() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
            conn.execute(
                sql.SQL(
                    "CREATE TABLE IF NOT EXISTS {} PARTITION OF games FOR VALUES FROM ({}) TO ({})"
                ).format(sql.Identifier(name), sql.Literal(start), sql.Literal(end))
            )

    # -- the archive --------------------------------------------------------------------

    def put(self, record: ArchiveRecord) -> bool:
        month = _month(record.created_ms)
        with self._months_lock:
            known = month in self._months
        if not known:
            self._make_partition(month)
        try:
            return self._put(record)
        except psycopg.errors.CheckViolation:
            # No partition holds the row: its month was detached (or dropped) since this
            # process made or saw it. Make it again, unless a table of its name is there:
            # then the month is detached, and stays so.
            with self._months_lock:
                self._months.discard(month)
            self._make_partition(month)
            try:
                return self._put(record)
            except psycopg.errors.CheckViolation:
                raise MonthDetached(record.game_id, _partition(month)) from None

    def _put(self, record: ArchiveRecord) -> bool:
        values = row_values(record)
        key = values[0]
        with self._pool.connection() as conn, conn.transaction():
            conn.execute(
                "SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (GAME_LOCK, record.game_id)
            )
            found = conn.execute(
                "SELECT data, digest FROM games WHERE game_id = %s LIMIT 1", (key,)
            ).fetchone()
            if found is None:
                # No unique key stops a second row (migration 0002): the lock and the
                # look above are what keep a game once.
                conn.execute(
                    f"INSERT INTO games ({_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                    values,
                )
                return True
        data, kept = found
        if bytes(data) != record.data and row_digest(data, kept) != record.digest:
            raise ArchiveConflict(record.game_id)
        return False

    def rewrite(self, record: ArchiveRecord) -> bool:
        kept = None if derived_digest(record.data) == record.digest else record.digest
        with self._pool.connection() as conn, conn.transaction():
            conn.execute(
                "SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (GAME_LOCK, record.game_id)
            )
            return bool(
                conn.execute(
                    "UPDATE games SET data = %s, digest = %s WHERE game_id = %s",
                    (record.data, kept, game_key(record.game_id)),
                ).rowcount
            )

    def get(self, game_id: str) -> ArchiveRecord | None:
        try:
            key = game_key(game_id)
        except ArchiveKeyError:
            return None
        with self._pool.connection() as conn:
            row = conn.execute(
                f"SELECT {_COLUMNS} FROM games WHERE game_id = %s LIMIT 1", (key,)
            ).fetchone()
        return None if row is None else record_of(row)

    def page(
        self, query: ArchiveQuery, after: ArchiveKey | None, count: int
    ) -> list[ArchiveRecord]:
        where = ["client_id = %s"]
        args: list[Any] = [client_key(query.client_id)]
        if query.status is not None:
            if query.status not in STATUS_CODES:
                return []
            where.append("status = %s")
            args.append(STATUS_CODES[query.status])
        if query.variant is not None:
            if query.variant not in VARIANT_CODES:
                return []
            where.append("variant = %s")
            args.append(VARIANT_CODES[query.variant])
        if query.since_ms is not None:
            where.append("created_ms >= %s")
            args.append(query.since_ms)
        if query.until_ms is not None:
            where.append("created_ms < %s")
            args.append(query.until_ms)
        if after is not None:
            # A row comparison: the index (client_id, created_ms, game_id), walked
            # backwards, is entered at the cursor, not walked to it.
            where.append("(created_ms, game_id) < (%s, %s)")
            args += [after.created_ms, cursor_key(after.game_id)]
        statement = (
            f"SELECT {_COLUMNS} FROM games WHERE {' AND '.join(where)} "
            "ORDER BY created_ms DESC, game_id DESC LIMIT %s"
        )
        with self._pool.connection() as conn:
            rows = conn.execute(statement, (*args, count)).fetchall()
        return [record_of(row) for row in rows]

    def scan(self, query: ArchiveQuery, limit: int | None = None) -> Iterator[ArchiveRecord]:
        after: ArchiveKey | None = None
        left = limit
        while left is None or left > 0:
            size = SCAN_PAGE if left is None else min(SCAN_PAGE, left)
            rows = self.page(query, after, size)
            yield from rows
            if len(rows) < size:
                return
            if left is not None:
                left -= len(rows)
            after = ArchiveKey(rows[-1].created_ms, rows[-1].game_id)

    def count(self) -> int:
        with self._pool.connection() as conn:
            row = conn.execute("SELECT count(*) FROM games").fetchone()
        return int(row[0]) if row else 0

    def close(self) -> None:
        self._pool.close()


def _configure(conn: psycopg.Connection[Any]) -> None:
    """Each new connection: no statement runs for ever (a migration lifts it)."""
    conn.execute(f"SET statement_timeout = {STATEMENT_TIMEOUT_MS}")


def _month(created_ms: int) -> tuple[int, int]:
    """The (year, month), UTC, of a time in ms since the epoch."""
    moment = datetime.fromtimestamp(created_ms // 1000, UTC)
    return moment.year, moment.month


def _partition(month: tuple[int, int]) -> str:
    """The name of ``month``'s partition: games_y2024m01."""
    return f"games_y{month[0]:04d}m{month[1]:02d}"


def _month_bounds(month: tuple[int, int]) -> tuple[int, int]:
    """The first ms of ``month`` and of the month after it."""
    year, number = month
    following = (year + 1, 1) if number == 12 else (year, number + 1)
    start = datetime(year, number, 1, tzinfo=UTC)
    end = datetime(*following, 1, tzinfo=UTC)
    return int(start.timestamp()) * 1000, int(end.timestamp()) * 1000
