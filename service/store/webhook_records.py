"""Webhook endpoints of client apps and their deliveries in the database of record.

An endpoint is what an app set up once and builds on: with a database
(``SCHNAPSEN_ARCHIVE_URL``; the run command always has its SQLite file) it
is a row of ``webhook_endpoints`` (``migrations/<dialect>/0005_...``), the
endpoint's record as JSON, its signing secret in it as it is (a signature
needs the secret itself). Creating is one transaction under the app's lock,
so the app's cap of endpoints holds however many processes create at once.

Its deliveries are rows of ``webhook_deliveries`` (``0006_...``), bounded by
age as in Redis: each is kept ``DELIVERY_SECONDS`` after it was made or last
asked for again, and making one deletes its endpoint's deliveries past that
(an endpoint's log also shows its newest ``LOG_CAP`` at most). A delivery's
record is written under its lock (``delivery:<id>``), an attempt's outcome with
the body the row holds then: a player's erasure in between stands.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Sequence
from dataclasses import asdict, replace

import redis

from service.store.records_db import RecordsDatabase, Transaction
from service.store.webhooks import (
    DELIVERY_SECONDS,
    LOG_CAP,
    Delivery,
    Endpoint,
    TooManyEndpoints,
    UnknownDelivery,
    UnknownEndpoint,
    WebhookStore,
)


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
            if gone == 1:
                run(
                    "DELETE FROM webhook_deliveries WHERE endpoint_id = ? AND app = ?",
                    (endpoint_id, app),
                )
        if gone != 1:
            raise UnknownEndpoint(endpoint_id)

    # -- deliveries ---------------------------------------------------------------------
    def add_delivery(self, app: str, delivery: Delivery) -> bool:
        """Keep a new delivery and log it; False when it exists already (the same notice).
        Its endpoint's deliveries past their age go."""
        now = _now_ms()
        with self.db.write() as run:
            run(
                "DELETE FROM webhook_deliveries WHERE endpoint_id = ? AND kept_until_ms < ?",
                (delivery.endpoint, now),
            )
            made = run(
                "INSERT INTO webhook_deliveries "
                "(delivery_id, app, endpoint_id, created_ms, kept_until_ms, record) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (delivery_id) DO NOTHING",
                (delivery.id, app, delivery.endpoint, delivery.created,
                 now + DELIVERY_SECONDS * 1000, _record(delivery)),
            ).rowcount  # fmt: skip
        return made == 1

    def delivery(self, app: str, delivery_id_: str) -> Delivery:
        with self.db.read() as run:
            row = run(
                "SELECT record FROM webhook_deliveries "
                "WHERE delivery_id = ? AND app = ? AND kept_until_ms >= ?",
                (delivery_id_, app, _now_ms()),
            ).fetchone()
        if row is None:
            raise UnknownDelivery(delivery_id_)
        return Delivery(**json.loads(row[0]))

    def record_attempt(
        self,
        app: str,
        delivery: Delivery,
        *,
        status: int | None,
        latency_ms: float,
        error: str | None,
        state: str,
        retries: int | None = None,
    ) -> Delivery:
        """One attempt's outcome, added to the delivery's history (the last 20 kept), and
        the retries spent in its round once a retry is scheduled."""
        now = _now_ms()
        attempt = {"at": now, "status": status, "latency_ms": round(latency_ms, 1), "error": error}
        updated = replace(
            delivery,
            state=state,
            attempts=delivery.attempts + 1,
            last_status=status,
            last_latency_ms=round(latency_ms, 1),
            last_error=error,
            last_attempt=now,
            history=[*delivery.history, attempt][-20:],
            retries=delivery.retries if retries is None else retries,
        )
        with self.db.write() as run:
            self._keep_body(run, app, updated, "")
        return updated

    def record_again(self, app: str, delivery: Delivery) -> Delivery:
        """A delivery asked for again by its app: pending once more, in a new round of
        retries, its history kept, and kept ``DELIVERY_SECONDS`` from now."""
        updated = replace(delivery, state="pending", round=delivery.round + 1, retries=0)
        with self.db.write() as run:
            self._keep_body(
                run, app, updated, ", kept_until_ms = ?", _now_ms() + DELIVERY_SECONDS * 1000
            )
        return updated

    @staticmethod
    def _keep_body(
        run: Transaction, app: str, updated: Delivery, also: str, *values: object
    ) -> None:
        """Write ``updated`` (and the ``also`` columns) with the body its row holds now."""
        run.lock(f"delivery:{updated.id}")
        row = run(
            "SELECT record FROM webhook_deliveries WHERE delivery_id = ? AND app = ?",
            (updated.id, app),
        ).fetchone()
        if row is None:
            return
        kept = replace(updated, body=json.loads(row[0])["body"])
        run(
            f"UPDATE webhook_deliveries SET record = ?{also} WHERE delivery_id = ? AND app = ?",
            (_record(kept), *values, updated.id, app),
        )

    def _rewrite(self, app: str, delivery: Delivery) -> None:
        with self.db.write() as run:
            run.lock(f"delivery:{delivery.id}")
            run(
                "UPDATE webhook_deliveries SET record = ? WHERE delivery_id = ? AND app = ?",
                (_record(delivery), delivery.id, app),
            )

    def log(self, app: str, endpoint_id: str, count: int) -> list[Delivery]:
        """The endpoint's deliveries, newest first (its newest ``LOG_CAP`` at most)."""
        with self.db.read() as run:
            rows = run(
                "SELECT record FROM webhook_deliveries "
                "WHERE endpoint_id = ? AND app = ? AND kept_until_ms >= ? "
                "ORDER BY created_ms DESC, delivery_id DESC LIMIT ?",
                (endpoint_id, app, _now_ms(), min(count, LOG_CAP)),
            ).fetchall()
        return [Delivery(**json.loads(record)) for (record,) in rows]


def _now_ms() -> int:
    return int(time.time() * 1000)


def _record(delivery: Delivery) -> str:
    return json.dumps(asdict(delivery), separators=(",", ":"))
