"""The client apps and their keys in the database: the store of record, Redis a cache.

An app is what a business builds on: losing it with Redis would turn every
key its backends hold into a 401. So where the service has a database (the
archive's, ``SCHNAPSEN_ARCHIVE_URL``; the run command always has its SQLite
file) the apps live there, in the ``client_apps`` table the archive's
migrations make, and ``service.store.clients.ClientRegistry`` keeps Redis as
a cache of them. Two back ends keep the same rows behind one interface
(``AppRecords``): SQLite (``app_records_sqlite``) and PostgreSQL
(``app_records_postgres``); ``open_app_records(url)`` picks one by the
URL's scheme, as ``open_archive`` does.

A key is never stored: a row holds its SHA-256 (``key_sha256``), so a copy
of the database opens no app's account.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from service.store.archive import open_archive

if TYPE_CHECKING:
    from service.store.clients import ClientApp


@dataclass(frozen=True, slots=True)
class StoredApp:
    """An app as the database keeps it: the app, and the SHA-256 of its key."""

    app: ClientApp
    fingerprint: str


class AppRecords(Protocol):
    """The client apps, kept for good."""

    def add(self, stored: StoredApp) -> None:
        """Keep a new app (its id and its key's hash are new)."""
        ...

    def by_fingerprint(self, fingerprint: str) -> StoredApp | None:
        """The app whose key has this SHA-256 (revoked ones too); None if none."""
        ...

    def by_id(self, client_id: str) -> StoredApp | None:
        """The app with this id (revoked ones too); None if none."""
        ...

    def revoke(self, client_id: str, at: float) -> StoredApp | None:
        """Mark the app revoked (once: a second revocation keeps the first time);
        the app as it is now, or None when there is no such app."""
        ...

    def every(self) -> list[StoredApp]:
        """Every app, oldest first."""
        ...

    def close(self) -> None:
        """Let go of connections and files."""
        ...


def open_app_records(url: str) -> AppRecords:
    """The apps of the database at ``url`` (``postgresql://...`` or ``sqlite:///<path>``).

    The archive is opened first, and closed: opening it applies every migration of
    the schema, ``client_apps`` among them, once however many processes open it.
    """
    open_archive(url).close()
    if url.startswith(("postgresql://", "postgres://")):
        from service.store.app_records_postgres import PostgresAppRecords

        return PostgresAppRecords(url)
    from service.store.app_records_sqlite import SqliteAppRecords

    return SqliteAppRecords(url.removeprefix("sqlite:///"))


__all__ = ["AppRecords", "StoredApp", "open_app_records"]
