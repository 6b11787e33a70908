"""Webhooks: the notices of every append become deliveries, each a job on its own queue.

After an append (``WebhookEvents``, an append listener), the notices it makes
(``service.game.notices``) go to every enabled endpoint of the game's client
app that asked for their kind: each becomes a delivery (its body built here,
once, from the game as the notice's seat sees it) and a job on the
``webhooks`` queue, after every bot move in priority. The job's id is the
delivery's, so a notice made twice is delivered once per endpoint; a failed
attempt is retried by RQ after the next pause of ``retry_seconds``
(exponential, about a day in all by default), and a job lost with a killed
worker is found and run again: at least once, and receivers deduplicate by
the notice's id.

An app's endpoints are read from Redis at most once every ``ENDPOINTS_SECONDS``
per process: most appends belong to apps without webhooks, and an action
should not pay a round trip for them.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import redis
from redis import Redis
from rq import Retry

from service.engine import Event
from service.game.notices import Notice, body, notices
from service.game.values import Current
from service.jobs.names import WEBHOOKS
from service.jobs.queues import FAILURE_TTL, queue

log = logging.getLogger(__name__)

#: How long a process trusts its read of an app's endpoints (s).
ENDPOINTS_SECONDS = 2.0
#: A delivery job's own bound: the request's timeout and the bookkeeping around it.
DELIVERY_TIMEOUT = 30
#: The pauses before each retry (s): 10 s doubling to 8 h, then 8 h: about a day in all.
RETRY_SECONDS = (10, 20, 40, 80, 160, 320, 640, 1280, 2560, 5120, 10240, 20480, 28800, 28800)


class EndpointLike(Protocol):
    id: str
    kinds: tuple[str, ...]
    disabled: bool


class Outbox(Protocol):
    """What the listener needs of the webhook store (``service.store.webhooks``)."""

    def all(self, app: str) -> Sequence[EndpointLike]: ...

    def add_delivery(self, app: str, delivery: Any) -> bool: ...


def enqueue_delivery(
    connection: Redis,
    app: str,
    delivery_id: str,
    retry_seconds: Sequence[int] = RETRY_SECONDS,
    *,
    job_id: str | None = None,
) -> str:
    """Ask a worker to deliver ``delivery_id`` (``workers.jobs.deliver_webhook``), retried
    after each of ``retry_seconds``; a job of that id (the delivery's, unless a manual
    redelivery names another) that exists is left alone."""
    job_id = job_id or delivery_id
    if connection.exists(f"rq:job:{job_id}"):
        return job_id
    queue(WEBHOOKS, connection).enqueue(
        "workers.jobs.deliver_webhook",
        app,
        delivery_id,
        job_id=job_id,
        job_timeout=DELIVERY_TIMEOUT,
        retry=Retry(max=len(retry_seconds), interval=list(retry_seconds)),
        result_ttl=60,
        failure_ttl=FAILURE_TTL,
        description=f"webhook delivery {delivery_id}",
    )
    return job_id


class WebhookEvents:
    """The append listener that turns an app's notices into deliveries."""

    def __init__(
        self,
        queue_connection: Redis,
        outbox: Outbox,
        make_delivery: Callable[[str, Notice, str, int], Any],
        *,
        retry_seconds: Sequence[int] = RETRY_SECONDS,
    ):
        self.connection = queue_connection
        self.outbox = outbox
        self.make_delivery = make_delivery
        self.retry_seconds = tuple(retry_seconds)
        self._endpoints: dict[str, tuple[float, Sequence[EndpointLike]]] = {}

    def endpoints(self, app: str) -> Sequence[EndpointLike]:
        now = time.monotonic()
        held = self._endpoints.get(app)
        if held is None or held[0] < now:
            if len(self._endpoints) > 10_000:
                self._endpoints.clear()
            held = (now + ENDPOINTS_SECONDS, tuple(self.outbox.all(app)))
            self._endpoints[app] = held
        return held[1]

    def appended(self, current: Current, events: Sequence[Event]) -> None:
        app = current.seats.owner
        if app is None:
            return
        self.tell(app, current, notices(current, events))

    def tell(self, app: str, current: Current, found: Sequence[Notice]) -> None:
        """Deliver ``found`` to every enabled endpoint of ``app`` that asked for its kind."""
        if not found:
            return
        endpoints = [e for e in self.endpoints(app) if not e.disabled]
        if not endpoints:
            return
        created = int(time.time() * 1000)
        for notice in found:
            text = json.dumps(body(current, notice, app, created), separators=(",", ":"))
            for endpoint in endpoints:
                if notice.kind.value not in endpoint.kinds:
                    continue
                delivery = self.make_delivery(endpoint.id, notice, text, created)
                try:
                    if self.outbox.add_delivery(app, delivery):
                        enqueue_delivery(self.connection, app, delivery.id, self.retry_seconds)
                except redis.exceptions.RedisError:  # a notice is never worth a failed move
                    log.exception("could not queue webhook delivery %s", delivery.id)


__all__ = ["RETRY_SECONDS", "WebhookEvents", "enqueue_delivery"]
