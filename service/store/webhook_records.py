"""Webhook endpoints of client apps in the database of record; their deliveries in Redis.

An endpoint is what an app set up once and builds on: with a database
(``SCHNAPSEN_ARCHIVE_URL``; the run command always has its SQLite file) it
is a row of ``webhook_endpoints`` (``migrations/<dialect>/0005_...``), the
endpoint's record as JSON, its signing secret in it as it is (a signature
needs the secret itself). Its deliveries and their log stay in Redis as
``WebhookStore`` keeps them, each bounded by age (``DELIVERY_SECONDS``): a
log of what was sent lately, not a record to keep.

Creating is one transaction under the app's lock, so the app's cap of
endpoints holds however many processes create at once.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Sequence

import redis

from service.store.records_db import RecordsDatabase
from service.store.webhooks import Endpoint, TooManyEndpoints, UnknownEndpoint, WebhookStore


class WebhookRecords(WebhookStore):
    """``WebhookStore`` whose endpoints live in the database."""

    def __init__(self, client: redis.Redis, db: RecordsDatabase, *, endpoints_per_client: int = 10):
        super().__init__(client, endpoints_per_client=endpoints_per_client)
        self.db = db

    def create(
        self,
        app: str,
        url: str,
        kinds: Sequence[str],
        secret: str,
        description: str = "",
    ) -> Endpoint:
        """A new endpoint, with a random id."""
        endpoint = Endpoint(
            id="wh_" + secrets.token_hex(8),
            url=url,
            kinds=tuple(kinds),
            secret=secret,
            created=round(time.time(), 3),
            description=description,
        )
        with self.db.write() as run:
            run.lock(f"webhooks:{app}")
            (count,) = run(
                "SELECT count(*) FROM webhook_endpoints WHERE app = ?", (app,)
            ).fetchone()
            if count >= self.endpoints_per_client:
                raise TooManyEndpoints(app)
            run(
                "INSERT INTO webhook_endpoints (endpoint_id, app, created, record) "
                "VALUES (?, ?, ?, ?)",
                (endpoint.id, app, endpoint.created, endpoint.to_json()),
            )
        return endpoint

    def get(self, app: str, endpoint_id: str) -> Endpoint:
        with self.db.read() as run:
            row = run(
                "SELECT record FROM webhook_endpoints WHERE endpoint_id = ? AND app = ?",
                (endpoint_id, app),
            ).fetchone()
        if row is None:
            raise UnknownEndpoint(endpoint_id)
        return Endpoint.from_json(row[0])

    def all(self, app: str) -> list[Endpoint]:
        with self.db.read() as run:
            rows = run(
                "SELECT record FROM webhook_endpoints WHERE app = ? ORDER BY created, endpoint_id",
                (app,),
            ).fetchall()
        return [Endpoint.from_json(record) for (record,) in rows]

    def save(self, app: str, endpoint: Endpoint) -> Endpoint:
        """Write an endpoint's record again (updated, rotated, disabled), if it still exists."""
        with self.db.write() as run:
            changed = run(
                "UPDATE webhook_endpoints SET record = ? WHERE endpoint_id = ? AND app = ?",
                (endpoint.to_json(), endpoint.id, app),
            ).rowcount
        if changed != 1:
            raise UnknownEndpoint(endpoint.id)
        return endpoint

    def delete(self, app: str, endpoint_id: str) -> None:
        with self.db.write() as run:
            gone = run(
                "DELETE FROM webhook_endpoints WHERE endpoint_id = ? AND app = ?",
                (endpoint_id, app),
            ).rowcount
        if gone != 1:
            raise UnknownEndpoint(endpoint_id)
        self.redis.delete(f"sch:{{client:{app}}}:deliveries:{endpoint_id}")
