"""Copies of the SQLite archive an operator keeps, and how one is put back.

The archive runs in WAL mode: a commit goes to ``archive.sqlite3-wal`` first and
reaches the file itself only at the next checkpoint, so a copy of the file alone
(``cp``) misses every game archived since, and its ``integrity_check`` still says
ok. A backup is made with SQLite's online backup API instead, which reads the
file and its log as one snapshot while the service goes on writing (readers
never wait in WAL mode, and the one step holds a single read transaction); it is
written beside its destination first and renamed into place once whole, in
rollback-journal mode, so the copy is one self-contained file. Then the log is
checkpointed into the file and truncated.

A restore writes a copy into the archive's file with the same API, as one
transaction. It refuses a file another process has open: a running service's
Redis has forgotten the games it archived after the copy was made, so replacing
its archive under it loses them; ``force`` restores regardless.

PostgreSQL is backed up with its own ``pg_dump`` (``pg_dump_command``).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit, urlunsplit

from service.store.archive_sqlite import LOCK_TIMEOUT

#: Milliseconds the checkpoint after a backup waits for readers of an older snapshot
#: before it leaves the log to the service's own checkpoints.
CHECKPOINT_WAIT_MS = 5000
#: The tables every archive file holds (its migrations create them).
ARCHIVE_TABLES = frozenset({"games", "schema_migrations"})


class BackupRefused(Exception):
    """A copy the operator asked for cannot be made as asked; nothing was written."""


class ArchiveInUse(BackupRefused):
    """Another process (a running service) has the archive's file open."""

    def __init__(self, path: Path):
        super().__init__(
            f"{path} is in use by another process (a running service?): stop the service "
            "first, or pass --force to restore into it anyway"
        )
        self.path = path


class NotAnArchive(BackupRefused):
    """The file is no whole SQLite archive: not SQLite, damaged, or without its tables."""


@dataclass(frozen=True, slots=True)
class SqliteCopy:
    """A whole archive file written: where, how many games it holds, and whether the
    source's log was checkpointed and truncated after it (False: a reader held it; the
    service's own checkpoints fold it in later)."""

    path: Path
    games: int
    log_truncated: bool = False


def sqlite_path(url: str) -> Path | None:
    """The file of a ``sqlite:///<path>`` archive URL; None for any other URL."""
    return Path(url.removeprefix("sqlite:///")) if url.startswith("sqlite:///") else None


def back_up_sqlite(source: Path, destination: Path) -> SqliteCopy:
    """A consistent copy of the archive at ``source`` in ``destination``, taken while the
    service reads and writes it."""
    if not source.is_file():
        raise BackupRefused(f"there is no archive at {source}")
    if destination.exists():
        raise BackupRefused(f"{destination} exists already: remove it or name another file")
    destination.parent.mkdir(parents=True, exist_ok=True)
    partial = destination.with_name(f"{destination.name}.partial")
    partial.unlink(missing_ok=True)
    try:
        with _connection(source, uri_mode="rw") as live, _connection(partial) as copy:
            live.backup(copy)
            copy.execute("PRAGMA journal_mode=DELETE")
            games = _whole_archive(copy, destination)
        _sync(partial)
        os.replace(partial, destination)
    finally:
        partial.unlink(missing_ok=True)
    with _connection(source, uri_mode="rw") as live:
        live.execute(f"PRAGMA busy_timeout={CHECKPOINT_WAIT_MS}")
        busy, _, _ = live.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    return SqliteCopy(destination, games, log_truncated=not busy)


def restore_sqlite(copy: Path, target: Path, *, force: bool = False) -> SqliteCopy:
    """The archive at ``target`` made the one in ``copy``: every game of ``copy``, and only
    those. Refuses when another process has ``target`` open, unless ``force``."""
    if not copy.is_file():
        raise BackupRefused(f"there is no backup at {copy}")
    if target.exists() and copy.resolve() == target.resolve():
        raise BackupRefused(f"{copy} is the archive itself")
    with _connection(copy, uri_mode="ro") as source:
        _whole_archive(source, copy)
        target.parent.mkdir(parents=True, exist_ok=True)
        with _connection(target) as archive:
            if not force:
                _hold_alone(archive, target)
            source.backup(archive)
            archive.execute("PRAGMA journal_mode=WAL")
            games = _whole_archive(archive, target)
    return SqliteCopy(target, games)


def _hold_alone(archive: sqlite3.Connection, path: Path) -> None:
    """Take the file for this connection alone until it closes, or refuse at once when
    another connection has it open (in WAL mode every open connection holds a shared
    lock on the log's index, which an exclusive lock cannot take)."""
    archive.execute("PRAGMA busy_timeout=0")
    archive.execute("PRAGMA locking_mode=EXCLUSIVE")
    try:
        archive.execute("BEGIN EXCLUSIVE")
        archive.execute("COMMIT")
    except sqlite3.OperationalError as error:
        if "locked" in str(error) or "busy" in str(error):
            raise ArchiveInUse(path) from None
        raise


def _whole_archive(db: sqlite3.Connection, path: Path) -> int:
    """How many games ``db`` holds, once ``integrity_check`` says it is whole and its
    tables are an archive's; else ``NotAnArchive``."""
    try:
        checked = [line for (line,) in db.execute("PRAGMA integrity_check")]
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
    except sqlite3.DatabaseError as error:
        raise NotAnArchive(f"{path} is not a SQLite archive: {error}") from None
    if checked != ["ok"]:
        raise NotAnArchive(f"{path} is damaged: {'; '.join(checked[:5])}")
    if not tables >= ARCHIVE_TABLES:
        raise NotAnArchive(f"{path} holds no archive (no {', '.join(sorted(ARCHIVE_TABLES))})")
    (games,) = db.execute("SELECT count(*) FROM games").fetchone()
    return int(games)


@contextlib.contextmanager
def _connection(path: Path, uri_mode: str = "rwc") -> Iterator[sqlite3.Connection]:
    """A connection to ``path`` (``ro``, ``rw``: the file must exist), closed after."""
    db = sqlite3.connect(
        f"file:{quote(str(path.resolve()))}?mode={uri_mode}",
        uri=True,
        timeout=LOCK_TIMEOUT,
        isolation_level=None,
    )
    try:
        yield db
    finally:
        db.close()


def _sync(path: Path) -> None:
    """The file's bytes on disk before it is renamed into place."""
    with open(path, "rb+") as written:
        os.fsync(written.fileno())


def pg_dump_command(url: str, destination: Path) -> list[str]:
    """The ``pg_dump`` that backs up the PostgreSQL archive at ``url`` into ``destination``
    (its custom format, for ``pg_restore``). The password is left out of the URL: a
    command line is visible to every user of the machine; ``PGPASSWORD`` or
    ``~/.pgpass`` gives it."""
    return [
        "pg_dump",
        "--format=custom",
        "--file",
        str(destination),
        "--dbname",
        without_password(url),
    ]


def without_password(url: str) -> str:
    """``url`` with no password in it (the user, host, database and options kept)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}@{host}" if user else host))


def password(url: str) -> str | None:
    """The password ``url`` holds, if any, decoded (``%40`` is ``@``)."""
    secret = urlsplit(url).password
    return None if secret is None else unquote(secret)


__all__ = [
    "ArchiveInUse",
    "BackupRefused",
    "NotAnArchive",
    "SqliteCopy",
    "back_up_sqlite",
    "password",
    "pg_dump_command",
    "restore_sqlite",
    "sqlite_path",
    "without_password",
]
