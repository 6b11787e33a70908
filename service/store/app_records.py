"""The client apps and their keys in the database: the store of record, Redis a cache.

An app is what a business builds on: losing it with Redis would turn every
key its backends hold into a 401. So where the service has a database (the
archive's, ``SCHNAPSEN_ARCHIVE_URL``; the run command always has its SQLite
file) the apps live there, in the ``client_apps`` table
(``migrations/<dialect>/0003_client_apps.sql``), one SQL text for SQLite and
PostgreSQL (``service.store.records_db``), and
``service.store.clients.ClientRegistry`` keeps Redis as a cache of them.

A key is never stored: a row holds its SHA-256 (``key_sha256``), so a copy
of the database opens no app's account.
"""

from __future__ import annotations

from typing import Any

from service.store.client_apps import ClientApp, StoredApp
from service.store.records_db import RecordsDatabase, open_records_database

_COLUMNS = "client_id, name, key_sha256, created, revoked_at"


class AppRecords:
    """The client apps, kept for good."""

    def __init__(self, db: RecordsDatabase):
        self.db = db

    def add(self, stored: StoredApp) -> None:
        """Keep a new app (its id and its key's hash are new)."""
        app = stored.app
        with self.db.write() as run:
            run(
                f"INSERT INTO client_apps ({_COLUMNS}) VALUES (?, ?, ?, ?, NULL)",
                (app.id, app.name, stored.fingerprint, app.created),
            )

    def by_fingerprint(self, fingerprint: str) -> StoredApp | None:
        """The app whose key has this SHA-256 (revoked ones too); None if none."""
        return self._one("key_sha256", fingerprint)

    def by_id(self, client_id: str) -> StoredApp | None:
        """The app with this id (revoked ones too); None if none."""
        return self._one("client_id", client_id)

    def revoke(self, client_id: str, at: float) -> StoredApp | None:
        """Mark the app revoked (once: a second revocation keeps the first time);
        the app as it is now, or None when there is no such app."""
        with self.db.write() as run:
            run(
                "UPDATE client_apps SET revoked_at = ? WHERE client_id = ? AND revoked_at IS NULL",
                (at, client_id),
            )
        return self.by_id(client_id)

    def every(self) -> list[StoredApp]:
        """Every app, oldest first."""
        with self.db.read() as run:
            rows = run(
                f"SELECT {_COLUMNS} FROM client_apps ORDER BY created, client_id", ()
            ).fetchall()
        return [_stored(row) for row in rows]

    def close(self) -> None:
        """Let go of connections and files."""
        self.db.close()

    def _one(self, column: str, value: str) -> StoredApp | None:
        with self.db.read() as run:
            row = run(f"SELECT {_COLUMNS} FROM client_apps WHERE {column} = ?", (value,)).fetchone()
        return None if row is None else _stored(row)


def _stored(row: tuple[Any, ...]) -> StoredApp:
    client_id, name, fingerprint, created, revoked_at = row
    app = ClientApp(client_id, name, float(created), revoked_at is not None)
    return StoredApp(app, fingerprint)


def open_app_records(url: str) -> AppRecords:
    """The apps of the database at ``url`` (``postgresql://...`` or ``sqlite:///<path>``),
    its schema applied."""
    return AppRecords(open_records_database(url))


__all__ = ["AppRecords", "StoredApp", "open_app_records"]
