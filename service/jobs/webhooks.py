"""Webhooks: the notices of every append become deliveries, each in its app's outbox.

After an append (``WebhookEvents``, an append listener), the notices it makes
(``service.game.notices``) go to every enabled endpoint of the game's client
app that asked for their kind: each becomes a delivery (its body built here,
once, from the game as the notice's seat sees it) and waits in its app's
outbox (``service.jobs.webhook_outbox``) for the app's turn on the
``webhooks`` queue: apps take turns, one attempt each, so no app's deliveries
hold another's for more than a round. The delivery's id derives from its
endpoint and notice, so a notice made twice is delivered once per endpoint; a
failed attempt goes back to the outbox after the next pause of
``retry_seconds`` (exponential, about a day in all by default), and a turn lost
with a killed worker is found and run again: at least once, and receivers
deduplicate by the notice's id.

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

from service.engine import Event
from service.game.notices import Notice, body, notices
from service.game.values import Current
from service.jobs.webhook_outbox import AppOutboxes, Asked

log = logging.getLogger(__name__)

#: How long a process trusts its read of an app's endpoints (s).
ENDPOINTS_SECONDS = 2.0
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

    def record_attempt(
        self,
        app: str,
        delivery: Any,
        *,
        status: int | None,
        latency_ms: float,
        error: str | None,
        state: str,
    ) -> Any: ...


class WebhookEvents:
    """The append listener that turns an app's notices into deliveries."""

    def __init__(
        self,
        outboxes: AppOutboxes,
        outbox: Outbox,
        make_delivery: Callable[[str, Notice, str, int], Any],
        *,
        retry_seconds: Sequence[int] = RETRY_SECONDS,
    ):
        #: Where deliveries wait for their app's turn; what the app's redeliveries join.
        self.outboxes = outboxes
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
            self._deliver(app, endpoints, notice, text, created)

    def tell_app(self, app: str, notice: Any) -> None:
        """Deliver a notice about no game (a tournament's, ``service.game.tournament_notices``,
        whose ``body(app, created)`` is its JSON body) as ``tell`` delivers a game's."""
        endpoints = [e for e in self.endpoints(app) if not e.disabled]
        created = int(time.time() * 1000)
        text = json.dumps(notice.body(app, created), separators=(",", ":"))
        self._deliver(app, endpoints, notice, text, created)

    def _deliver(
        self, app: str, endpoints: Sequence[EndpointLike], notice: Any, text: str, created: int
    ) -> None:
        for endpoint in endpoints:
            if notice.kind.value not in endpoint.kinds:
                continue
            delivery = self.make_delivery(endpoint.id, notice, text, created)
            try:
                if self.outbox.add_delivery(app, delivery):
                    self._queue(app, delivery)
            except redis.exceptions.RedisError:  # a notice is never worth a failed move
                log.exception("could not queue webhook delivery %s", delivery.id)

    def _queue(self, app: str, delivery: Any) -> None:
        """The new delivery in its app's outbox; past the outbox's cap, failed at once (the
        app reads why in its log, and may ask for it again once its backlog is through)."""
        if self.outboxes.add(app, delivery.id) is Asked.OUTBOX_FULL:
            self.outbox.record_attempt(
                app,
                delivery,
                status=None,
                latency_ms=0.0,
                error=f"not sent: the app has {self.outboxes.outbox_cap} deliveries waiting",
                state="failed",
            )


__all__ = ["RETRY_SECONDS", "WebhookEvents"]
