"""The client apps in the archive's PostgreSQL database (``service.store.app_records``).

The schema is the archive's (applied when it opens). Connections come from a
small pool of this process's own, each statement bounded as the archive's are.
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from service.store.app_records import StoredApp
from service.store.archive_postgres import STATEMENT_TIMEOUT_MS
from service.store.clients import ClientApp

_COLUMNS = "client_id, name, key_sha256, created, revoked_at"


class PostgresAppRecords:
    """``service.store.app_records.AppRecords`` in a PostgreSQL database."""

    def __init__(self, url: str, *, pool_size: int = 2, pool_timeout: float = 10.0):
        self._pool = ConnectionPool(
            url,
            min_size=1,
            max_size=pool_size,
            timeout=pool_timeout,
            max_idle=300,
            kwargs={"autocommit": True, "connect_timeout": max(1, round(pool_timeout))},
            configure=_configure,
            check=ConnectionPool.check_connection,
            name="client_apps",
            open=False,
        )
        self._pool.open(wait=True, timeout=pool_timeout)

    def add(self, stored: StoredApp) -> None:
        app = stored.app
        with self._pool.connection() as conn:
            conn.execute(
                f"INSERT INTO client_apps ({_COLUMNS}) VALUES (%s, %s, %s, %s, NULL)",
                (app.id, app.name, stored.fingerprint, app.created),
            )

    def by_fingerprint(self, fingerprint: str) -> StoredApp | None:
        return self._one("key_sha256 = %s", fingerprint)

    def by_id(self, client_id: str) -> StoredApp | None:
        return self._one("client_id = %s", client_id)

    def revoke(self, client_id: str, at: float) -> StoredApp | None:
        with self._pool.connection() as conn:
            conn.execute(
                "UPDATE client_apps SET revoked_at = %s "
                "WHERE client_id = %s AND revoked_at IS NULL",
                (at, client_id),
            )
        return self.by_id(client_id)

    def every(self) -> list[StoredApp]:
        with self._pool.connection() as conn:
            rows = conn.execute(
                f"SELECT {_COLUMNS} FROM client_apps ORDER BY created, client_id"
            ).fetchall()
        return [_stored(row) for row in rows]

    def close(self) -> None:
        self._pool.close()

    def _one(self, where: str, value: str) -> StoredApp | None:
        with self._pool.connection() as conn:
            row = conn.execute(
                f"SELECT {_COLUMNS} FROM client_apps WHERE {where}", (value,)
            ).fetchone()
        return None if row is None else _stored(row)


def _configure(conn: psycopg.Connection[Any]) -> None:
    """Each new connection: no statement runs for ever."""
    conn.execute(f"SET statement_timeout = {STATEMENT_TIMEOUT_MS}")


def _stored(row: tuple[Any, ...]) -> StoredApp:
    client_id, name, fingerprint, created, revoked_at = row
    return StoredApp(
        ClientApp(client_id, name, float(created), revoked_at is not None), fingerprint
    )
