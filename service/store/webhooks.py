"""Webhook endpoints of client apps, their deliveries and each endpoint's delivery log.

Every key carries the app's hash tag (``{client:<app>}``): one app's
endpoints and deliveries live in one Redis Cluster slot.

- ``sch:{client:<app>}:webhooks``                hash: endpoint id -> its record (JSON)
- ``sch:{client:<app>}:delivery:<id>``           hash: one delivery: the endpoint, the
  notice, its body, its attempts and their outcome; kept ``DELIVERY_SECONDS``
- ``sch:{client:<app>}:deliveries:<endpoint>``   sorted set: the endpoint's deliveries by
  creation time, the newest ``LOG_CAP`` kept

A delivery's id derives from its endpoint and its notice, so a notice made
twice (a listener told twice) is one delivery. An attempt's outcome, and a new
round, are written with the body the delivery holds at that moment, not the one
the attempt read and sent: a player's erasure that anonymised the body while the
attempt was in flight stands. The signing secret is kept
as it is (a signature needs it), shown to the app on registration and on each
rotation only.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import redis

from service.game.notices import Notice
from service.store.scripts import Script, lua_script

#: Deliveries an endpoint's log keeps (the newest), and how long a delivery is kept.
LOG_CAP = 1000
DELIVERY_SECONDS = 3 * 24 * 3600


class UnknownEndpoint(LookupError):
    """The app has no endpoint with this id."""


class TooManyEndpoints(Exception):
    """The app has as many endpoints as it may."""


class UnknownDelivery(LookupError):
    """The endpoint has no delivery with this id (or it was forgotten)."""


@dataclass(frozen=True, slots=True)
class Endpoint:
    """A registered endpoint of an app."""

    id: str
    url: str
    kinds: tuple[str, ...]
    secret: str
    created: float
    description: str = ""
    disabled: bool = False
    #: Why and when it was disabled (the service's notice), or "".
    notice: str = ""
    #: Deliveries that failed for good in a row (every retry spent); a success resets it.
    failures: int = 0

    def to_json(self) -> str:
        data = asdict(self)
        data["kinds"] = list(self.kinds)
        return json.dumps(data, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: bytes | str) -> Endpoint:
        data = json.loads(text)
        data["kinds"] = tuple(data["kinds"])
        return cls(**data)


@dataclass(frozen=True, slots=True)
class Delivery:
    """One notice to one endpoint, and how its attempts went."""

    id: str
    endpoint: str
    event_id: str
    kind: str
    game_id: str
    version: int
    body: str
    created: int
    state: str = "pending"  # pending, delivered, failed
    attempts: int = 0
    last_status: int | None = None
    last_latency_ms: float | None = None
    last_error: str | None = None
    last_attempt: int | None = None
    history: list[dict[str, Any]] = field(default_factory=list)
    #: How often the app asked for it again, and the retries spent since the last time:
    #: a retry due for an earlier round is dropped (``workers.jobs.webhook_due``).
    round: int = 0
    retries: int = 0

    @classmethod
    def of(cls, endpoint_id: str, notice: Notice, body: str, created: int) -> Delivery:
        """A new delivery of ``notice`` (its JSON ``body``) to an endpoint."""
        return cls(
            id=delivery_id(endpoint_id, notice.event_id),
            endpoint=endpoint_id,
            event_id=notice.event_id,
            kind=notice.kind.value,
            game_id=notice.game_id,
            version=notice.version,
            body=body,
            created=created,
        )

    def summary(self) -> dict[str, Any]:
        """The delivery as the log shows it (its body too: the app may read what it sent)."""
        data = asdict(self)
        data["body"] = json.loads(self.body)
        return data


#: Where a record's body goes, in a record written with the body its delivery holds now.
_BODY_MARK = "\u0000body\u0000"


def _around_body(delivery: Delivery) -> tuple[str, str]:
    """The delivery's record (JSON) before and after its body, for
    ``delivery_keep_body.lua`` to put the body the store holds between them."""
    text = json.dumps(asdict(replace(delivery, body=_BODY_MARK)), separators=(",", ":"))
    before, after = text.split(json.dumps(_BODY_MARK), 1)
    return before, after


def _unnamed(body: str, player_id: str) -> str:
    """The JSON ``body`` with every value that is the player's id made null."""

    def walk(value: Any) -> Any:
        if value == player_id:
            return None
        if isinstance(value, dict):
            return {key: walk(item) for key, item in value.items()}
        if isinstance(value, list):
            return [walk(item) for item in value]
        return value

    return json.dumps(walk(json.loads(body)), separators=(",", ":"))


def _tag(app: str) -> str:
    return f"sch:{{client:{app}}}"


def delivery_id(endpoint_id: str, event_id: str) -> str:
    """One delivery per endpoint and notice."""
    digest = hashlib.sha256(f"{endpoint_id}|{event_id}".encode()).hexdigest()[:24]
    return "dlv_" + digest


class WebhookStore:
    """The endpoints of every app, and their deliveries."""

    def __init__(self, client: redis.Redis, *, endpoints_per_client: int = 10):
        self.redis = client
        self.endpoints_per_client = endpoints_per_client
        self._keep_body_script = Script(client, lua_script("delivery_keep_body"))

    # -- endpoints --------------------------------------------------------------------
    def create(
        self,
        app: str,
        url: str,
        kinds: Sequence[str],
        secret: str,
        description: str = "",
    ) -> Endpoint:
        """A new endpoint, with a random id."""
        key = f"{_tag(app)}:webhooks"
        if self.redis.hlen(key) >= self.endpoints_per_client:
            raise TooManyEndpoints(app)
        endpoint = Endpoint(
            id="wh_" + secrets.token_hex(8),
            url=url,
            kinds=tuple(kinds),
            secret=secret,
            created=round(time.time(), 3),
            description=description,
        )
        self.redis.hset(key, endpoint.id, endpoint.to_json())
        return endpoint

    def get(self, app: str, endpoint_id: str) -> Endpoint:
        found = self.redis.hget(f"{_tag(app)}:webhooks", endpoint_id)
        if found is None:
            raise UnknownEndpoint(endpoint_id)
        return Endpoint.from_json(found)

    def all(self, app: str) -> list[Endpoint]:
        found = self.redis.hgetall(f"{_tag(app)}:webhooks")
        return sorted((Endpoint.from_json(v) for v in found.values()), key=lambda e: e.created)

    def save(self, app: str, endpoint: Endpoint) -> Endpoint:
        """Write an endpoint's record again (updated, rotated, disabled), if it still exists."""
        key = f"{_tag(app)}:webhooks"
        if not self.redis.hexists(key, endpoint.id):
            raise UnknownEndpoint(endpoint.id)
        self.redis.hset(key, endpoint.id, endpoint.to_json())
        return endpoint

    def delete(self, app: str, endpoint_id: str) -> None:
        if not self.redis.hdel(f"{_tag(app)}:webhooks", endpoint_id):
            raise UnknownEndpoint(endpoint_id)
        self.redis.delete(f"{_tag(app)}:deliveries:{endpoint_id}")

    def failed_for_good(self, app: str, endpoint_id: str, disable_after: int) -> Endpoint | None:
        """Count a delivery whose retries are spent; disable the endpoint, with a notice, after
        ``disable_after`` in a row. None when the endpoint is gone."""
        try:
            endpoint = self.get(app, endpoint_id)
        except UnknownEndpoint:
            return None
        failures = endpoint.failures + 1
        endpoint = replace(endpoint, failures=failures)
        if failures >= disable_after and not endpoint.disabled:
            stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            endpoint = replace(
                endpoint,
                disabled=True,
                notice=f"disabled at {stamp} after {failures} deliveries in a row failed "
                "every retry; fix the endpoint, then enable it again (PATCH enabled: true)",
            )
        try:
            return self.save(app, endpoint)
        except UnknownEndpoint:
            return None

    def delivered(self, app: str, endpoint_id: str) -> None:
        """A delivery succeeded: the run of failures is over."""
        try:
            endpoint = self.get(app, endpoint_id)
        except UnknownEndpoint:
            return
        if endpoint.failures:
            self.save(app, replace(endpoint, failures=0))

    # -- deliveries ---------------------------------------------------------------------
    def add_delivery(self, app: str, delivery: Delivery) -> bool:
        """Keep a new delivery and log it; False when it exists already (the same notice)."""
        key = f"{_tag(app)}:delivery:{delivery.id}"
        fields = {"record": json.dumps(asdict(delivery), separators=(",", ":"))}
        if not self.redis.hsetnx(key, "record", fields["record"]):
            return False
        log = f"{_tag(app)}:deliveries:{delivery.endpoint}"
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.expire(key, DELIVERY_SECONDS)
            pipe.zadd(log, {delivery.id: delivery.created})
            pipe.zremrangebyrank(log, 0, -LOG_CAP - 1)
            pipe.expire(log, DELIVERY_SECONDS)
            pipe.execute()
        return True

    def delivery(self, app: str, delivery_id_: str) -> Delivery:
        found = self.redis.hget(f"{_tag(app)}:delivery:{delivery_id_}", "record")
        if found is None:
            raise UnknownDelivery(delivery_id_)
        return Delivery(**json.loads(found))

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
        now = int(time.time() * 1000)
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
        self._keep_body(app, updated)
        return updated

    def record_again(self, app: str, delivery: Delivery) -> Delivery:
        """A delivery asked for again by its app: pending once more, in a new round of
        retries, its history kept."""
        updated = replace(delivery, state="pending", round=delivery.round + 1, retries=0)
        self._keep_body(app, updated)
        self.redis.expire(f"{_tag(app)}:delivery:{delivery.id}", DELIVERY_SECONDS)
        return updated

    def _keep_body(self, app: str, updated: Delivery) -> None:
        """Write ``updated`` with the body the delivery holds now (see the module)."""
        self._keep_body_script(
            keys=[f"{_tag(app)}:delivery:{updated.id}"], args=_around_body(updated)
        )

    # -- a player's erasure -----------------------------------------------------------
    def naming(self, app: str, player_id: str) -> list[Delivery]:
        """The app's kept deliveries whose body names the player: every endpoint's log
        (``LOG_CAP`` each, ``DELIVERY_SECONDS`` at most), newest first per endpoint."""
        return [
            delivery
            for endpoint in self.all(app)
            for delivery in self.log(app, endpoint.id, LOG_CAP)
            if player_id in delivery.body
        ]

    def anonymise(self, app: str, player_id: str) -> int:
        """Every kept delivery's body stops naming the erased player (its ``player_id``
        becomes null; a redelivery sends that body): how many were rewritten."""
        found = self.naming(app, player_id)
        for delivery in found:
            self._rewrite(app, replace(delivery, body=_unnamed(delivery.body, player_id)))
        return len(found)

    def _rewrite(self, app: str, delivery: Delivery) -> None:
        """Keep ``delivery`` as it is now (its expiry stays as it was)."""
        self.redis.hset(
            f"{_tag(app)}:delivery:{delivery.id}",
            "record",
            json.dumps(asdict(delivery), separators=(",", ":")),
        )

    def log(self, app: str, endpoint_id: str, count: int) -> list[Delivery]:
        """The endpoint's deliveries, newest first."""
        ids = self.redis.zrevrange(f"{_tag(app)}:deliveries:{endpoint_id}", 0, count - 1)
        with self.redis.pipeline(transaction=False) as pipe:
            for found in ids:
                pipe.hget(f"{_tag(app)}:delivery:{found.decode()}", "record")
            records = pipe.execute()
        return [Delivery(**json.loads(record)) for record in records if record]
