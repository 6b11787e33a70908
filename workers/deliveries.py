"""One attempt of one webhook delivery, as an app's turn sends it (``workers.jobs.webhook_turn``).

A 2xx answer delivers it. Anything else (an error status, a refused address,
no answer within the deadline) is recorded in the delivery's history; with
retries left in its round, the delivery goes back to its app's outbox after
the next pause (``AppOutboxes.schedule_retry``), else it has failed for good,
and so many in a row disable the endpoint. A deleted endpoint, or a disabled
one, gets nothing (the delivery says why). A delivery the app asked for again
starts a new round: this attempt, then every retry again.
"""

from __future__ import annotations

import time
from typing import Any

from service.jobs.outbound import InvalidWebhookUrl, RefusedAddress, post
from service.jobs.webhook_outbox import Head
from service.jobs.webhook_signing import signed_headers
from service.ops.composition import Services
from service.store.webhooks import Delivery, UnknownDelivery, UnknownEndpoint


def attempt(rt: Services, app: str, head: Head) -> dict[str, Any]:
    """Send ``head``'s delivery once, record how it went, and schedule its retry."""
    store = rt.webhooks
    try:
        delivery = store.delivery(app, head.delivery_id)
    except UnknownDelivery:
        return {"delivery": head.delivery_id, "sent": False, "reason": "forgotten"}
    if head.asked_again:
        delivery = store.record_again(app, delivery)
    elif delivery.state != "pending":
        return {"delivery": delivery.id, "sent": False, "reason": f"{delivery.state} before"}
    try:
        endpoint = store.get(app, delivery.endpoint)
    except UnknownEndpoint:
        return _not_sent(rt, app, delivery, "endpoint deleted")
    if endpoint.disabled:
        return _not_sent(rt, app, delivery, "endpoint disabled")
    payload = delivery.body.encode()
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "schnapsen-webhooks/1",
        "Schnapsen-Delivery": delivery.id,
        # webhook-id is the notice's id: the same on every attempt, for receivers to
        # deduplicate by; the secret is the endpoint's current one (a rotation replaces it)
        **signed_headers([endpoint.secret], delivery.event_id, int(time.time()), payload),
    }
    started = time.monotonic()
    try:
        sent = post(
            endpoint.url,
            payload,
            headers,
            allowances=rt.webhook_allowances,
            timeout=rt.settings.webhook_timeout_seconds,
        )
        status, latency, error = sent.status, sent.latency_ms, sent.error
    except (RefusedAddress, InvalidWebhookUrl) as refused:
        status, latency = None, (time.monotonic() - started) * 1000
        error = f"refused: {refused}"
    if status is not None and 200 <= status < 300:
        store.record_attempt(
            app, delivery, status=status, latency_ms=latency, error=None, state="delivered"
        )
        store.delivered(app, endpoint.id)
        return {"delivery": delivery.id, "sent": True, "status": status}
    pauses = rt.webhook_retry_seconds
    if delivery.retries < len(pauses):
        store.record_attempt(
            app,
            delivery,
            status=status,
            latency_ms=latency,
            error=error,
            state="pending",
            retries=delivery.retries + 1,
        )
        rt.webhook_events.outboxes.schedule_retry(
            app, delivery.id, delivery.round, delivery.retries, pauses[delivery.retries]
        )
    else:
        store.record_attempt(
            app, delivery, status=status, latency_ms=latency, error=error, state="failed"
        )
        store.failed_for_good(app, endpoint.id, rt.settings.webhook_disable_after)
    return {"delivery": delivery.id, "sent": True, "status": status, "error": error}


def _not_sent(rt: Services, app: str, delivery: Delivery, why: str) -> dict[str, Any]:
    rt.webhooks.record_attempt(
        app, delivery, status=None, latency_ms=0.0, error=why, state="failed"
    )
    return {"delivery": delivery.id, "sent": False, "reason": why}
