"""The client apps in the archive's SQLite file (``service.store.app_records``).

The file is the archive's, already in WAL mode with its schema applied; this
connection is the process's own, one statement at a time, as the archive's is.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

from service.store.app_records import StoredApp
from service.store.archive_sqlite import LOCK_TIMEOUT
from service.store.clients import ClientApp

_COLUMNS = "client_id, name, key_sha256, created, revoked_at"


class SqliteAppRecords:
    """``service.store.app_records.AppRecords`` in a SQLite file."""

    def __init__(self, path: str | Path):
        self._lock = threading.Lock()
        self._db = sqlite3.connect(
            Path(path), timeout=LOCK_TIMEOUT, check_same_thread=False, isolation_level=None
        )
        self._db.execute("PRAGMA synchronous=FULL")

    def add(self, stored: StoredApp) -> None:
        app = stored.app
        with self._lock:
            self._db.execute(
                f"INSERT INTO client_apps ({_COLUMNS}) VALUES (?, ?, ?, ?, NULL)",
                (app.id, app.name, stored.fingerprint, app.created),
            )

    def by_fingerprint(self, fingerprint: str) -> StoredApp | None:
        return self._one("key_sha256 = ?", fingerprint)

    def by_id(self, client_id: str) -> StoredApp | None:
        return self._one("client_id = ?", client_id)

    def revoke(self, client_id: str, at: float) -> StoredApp | None:
        with self._lock:
            self._db.execute(
                "UPDATE client_apps SET revoked_at = ? WHERE client_id = ? AND revoked_at IS NULL",
                (at, client_id),
            )
        return self.by_id(client_id)

    def every(self) -> list[StoredApp]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM client_apps ORDER BY created, client_id"
            ).fetchall()
        return [_stored(row) for row in rows]

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _one(self, where: str, value: str) -> StoredApp | None:
        with self._lock:
            row = self._db.execute(
                f"SELECT {_COLUMNS} FROM client_apps WHERE {where}", (value,)
            ).fetchone()
        return None if row is None else _stored(row)


def _stored(row: tuple[Any, ...]) -> StoredApp:
    client_id, name, fingerprint, created, revoked_at = row
    return StoredApp(
        ClientApp(client_id, name, float(created), revoked_at is not None), fingerprint
    )
