"""One way to run SQL on the database of record, SQLite or PostgreSQL alike.

The stores of what must last (``service.store.player_records``) write their
statements once, with ``?`` for each value, and run them through a
``RecordsDatabase``: ``read()`` for statements that change nothing, ``write()``
for one transaction (all or nothing). On SQLite a write transaction is
``BEGIN IMMEDIATE``: one writer at a time across every process sharing the
file. On PostgreSQL a transaction takes ``lock(key)`` (an advisory lock held
to its end) where two writers of one thing must take turns; each statement is
bounded as the archive's are. A unique key a write meets raises ``Duplicate``
on both. The schema is the archive's: ``open_records_database`` opens the
archive first, which applies every migration.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from service.store.archive import open_archive
from service.store.archive_postgres import STATEMENT_TIMEOUT_MS
from service.store.archive_sqlite import LOCK_TIMEOUT

#: Runs one statement (``?`` for each value) and answers its rows.
Run = Callable[[str, Sequence[Any]], "Rows"]
#: The first key of PostgreSQL advisory locks taken by ``Transaction.lock`` (a space of
#: its own, apart from the archive's); the second is ``hashtext`` of the locked thing.
RECORDS_LOCK = 0x5343_5243


class Duplicate(Exception):
    """A write met a unique key: the row is there already."""


class RecordsUnavailable(Exception):
    """The database did not answer (gone, no free connection in time, a statement past
    its bound, a file locked past ``LOCK_TIMEOUT``): nothing of the request was kept."""


class Rows(Protocol):
    rowcount: int

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...


class Transaction(Protocol):
    def __call__(self, sql: str, args: Sequence[Any] = ()) -> Rows: ...

    def lock(self, key: str) -> None:
        """Hold writers of ``key`` apart until this transaction ends."""
        ...


class RecordsDatabase(Protocol):
    def read(self) -> contextlib.AbstractContextManager[Transaction]: ...

    def write(self) -> contextlib.AbstractContextManager[Transaction]: ...

    def close(self) -> None: ...


class _SqliteRun:
    def __init__(self, db: sqlite3.Connection):
        self._db = db

    def __call__(self, sql: str, args: Sequence[Any] = ()) -> Rows:
        try:
            return self._db.execute(sql, tuple(args))
        except sqlite3.IntegrityError as error:
            if "UNIQUE" in str(error) or "PRIMARY KEY" in str(error):
                raise Duplicate(str(error)) from error
            raise

    def lock(self, key: str) -> None:
        """Nothing to take: a write transaction holds the whole file."""


class SqliteRecords:
    """The records in the archive's SQLite file (WAL mode: readers never wait)."""

    def __init__(self, path: str | Path):
        self._lock = threading.Lock()
        self._db = sqlite3.connect(
            Path(path), timeout=LOCK_TIMEOUT, check_same_thread=False, isolation_level=None
        )
        self._db.execute("PRAGMA synchronous=FULL")
        self._run = _SqliteRun(self._db)

    @contextlib.contextmanager
    def read(self) -> Iterator[Transaction]:
        with self._lock, _unavailable(sqlite3.OperationalError):
            yield self._run

    @contextlib.contextmanager
    def write(self) -> Iterator[Transaction]:
        with self._lock, _unavailable(sqlite3.OperationalError):
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._run
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            self._db.close()


class _PostgresRun:
    def __init__(self, conn: psycopg.Connection[Any]):
        self._conn = conn

    def __call__(self, sql: str, args: Sequence[Any] = ()) -> Rows:
        try:
            return self._conn.execute(sql.replace("?", "%s"), tuple(args))  # type: ignore[arg-type]
        except psycopg.errors.UniqueViolation as error:
            raise Duplicate(str(error)) from error

    def lock(self, key: str) -> None:
        self._conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (RECORDS_LOCK, key))


class PostgresRecords:
    """The records in the archive's PostgreSQL database, through a small pool."""

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
            name="records",
            open=False,
        )
        self._pool.open(wait=True, timeout=pool_timeout)

    @contextlib.contextmanager
    def read(self) -> Iterator[Transaction]:
        with _unavailable(psycopg.OperationalError, PoolTimeout), self._pool.connection() as conn:
            yield _PostgresRun(conn)

    @contextlib.contextmanager
    def write(self) -> Iterator[Transaction]:
        with (
            _unavailable(psycopg.OperationalError, PoolTimeout),
            self._pool.connection() as conn,
            conn.transaction(),
        ):
            yield _PostgresRun(conn)

    def close(self) -> None:
        self._pool.close()


@contextlib.contextmanager
def _unavailable(*errors: type[Exception]) -> Iterator[None]:
    """The back end's errors of a database that does not answer, as ``RecordsUnavailable``."""
    try:
        yield
    except errors as error:
        raise RecordsUnavailable(str(error)) from error


def _configure(conn: psycopg.Connection[Any]) -> None:
    """Each new connection: no statement runs for ever."""
    conn.execute(f"SET statement_timeout = {STATEMENT_TIMEOUT_MS}")


def open_records_database(url: str) -> RecordsDatabase:
    """The database of record at ``url`` (``postgresql://...`` or ``sqlite:///<path>``),
    its schema applied (by opening the archive, whose migrations hold every table)."""
    open_archive(url).close()
    if url.startswith(("postgresql://", "postgres://")):
        return PostgresRecords(url)
    return SqliteRecords(url.removeprefix("sqlite:///"))


__all__ = [
    "Duplicate",
    "RecordsDatabase",
    "RecordsUnavailable",
    "Transaction",
    "open_records_database",
]
