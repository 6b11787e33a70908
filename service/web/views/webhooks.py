"""A client app's webhook endpoints: register, list, update, delete, rotate the secret,
read the delivery log, deliver again (docs/webhooks.md)."""

from __future__ import annotations

import ipaddress
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

from flask import Response
from flask_smorest import Blueprint

from schemas.webhooks import (
    DeliveriesQuerySchema,
    DeliveryListSchema,
    DeliverySchema,
    WebhookListSchema,
    WebhookRequestSchema,
    WebhookSchema,
    WebhookUpdateSchema,
)
from service.game.problem_codes import ProblemCode
from service.game.problems import Problem
from service.jobs.outbound import InvalidWebhookUrl, address_allowed, check_url
from service.jobs.webhook_outbox import Asked
from service.jobs.webhook_signing import new_secret
from service.store.webhooks import (
    Delivery,
    Endpoint,
    TooManyEndpoints,
    UnknownDelivery,
    UnknownEndpoint,
)
from service.web import examples
from service.web.callers import client_app
from service.web.idempotency import idempotent
from service.web.operations import BODY, CLIENT_KEY, V1, operation
from service.web.services import services

blp = Blueprint("webhooks", __name__, url_prefix="/v1", description="Webhooks")

_ONE = V1 + (404,)


def endpoint_view(endpoint: Endpoint, *, secret: bool = False) -> dict[str, Any]:
    """An endpoint as its app sees it; its secret only where it was just made."""
    view: dict[str, Any] = {
        "webhook_id": endpoint.id,
        "url": endpoint.url,
        "events": list(endpoint.kinds),
        "description": endpoint.description,
        "created": endpoint.created,
        "enabled": not endpoint.disabled,
        "notice": endpoint.notice,
        "failures": endpoint.failures,
    }
    if secret:
        view["secret"] = endpoint.secret
    return view


def delivery_view(delivery: Delivery) -> dict[str, Any]:
    return {
        "delivery_id": delivery.id,
        "event_id": delivery.event_id,
        "kind": delivery.kind,
        "game_id": delivery.game_id,
        "version": delivery.version,
        "state": delivery.state,
        "attempts": delivery.attempts,
        "created": delivery.created,
        "last_status": delivery.last_status,
        "last_latency_ms": delivery.last_latency_ms,
        "last_error": delivery.last_error,
        "history": delivery.history,
        "body": delivery.body,
    }


def _checked_url(url: str) -> str:
    """The URL if its form is one a delivery can use, and its host, when an address, one a
    delivery may reach; 422 else. A name is checked at every delivery, when resolved."""
    try:
        check_url(url)
    except InvalidWebhookUrl as error:
        raise Problem(str(error), code=ProblemCode.INVALID_WEBHOOK_URL) from None
    host = (urlsplit(url).hostname or "").strip("[]")
    allowances = services().webhook_allowances
    if _is_address(host) and not address_allowed(host, allowances):
        raise Problem(
            f"{host} is not a public address: deliveries never go to loopback, private, "
            "link-local or metadata addresses",
            code=ProblemCode.WEBHOOK_ADDRESS_REFUSED,
        )
    return url


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _endpoint(app: str, endpoint_id: str) -> Endpoint:
    try:
        return services().webhooks.get(app, endpoint_id)
    except UnknownEndpoint:
        raise Problem(
            f"your app has no webhook {endpoint_id!r}", code=ProblemCode.WEBHOOK_NOT_FOUND
        ) from None


@blp.route("/webhooks", methods=["POST"])
@blp.arguments(WebhookRequestSchema, example=examples.WEBHOOK_REQUEST)
@blp.response(201, WebhookSchema, example=examples.WEBHOOK_CREATED)
@operation(blp, "createWebhook", security=CLIENT_KEY, problems=BODY + (409,))
@idempotent
def create_webhook(body: dict[str, Any]):
    """Register an endpoint of your app's backend for the kinds of notice it wants.

    The answer holds the signing secret (`whsec_...`), shown here and on each
    rotation only: verify every delivery's `webhook-signature` with it and a Standard
    Webhooks library (`standardwebhooks` on PyPI and npm). A retry
    with the same `Idempotency-Key` answers the first answer again (the same
    endpoint; none is made again).
    """
    app = client_app("registering a webhook")
    url = _checked_url(body["url"])
    try:
        endpoint = services().webhooks.create(
            app.id, url, body["events"], new_secret(), body["description"]
        )
    except TooManyEndpoints:
        raise Problem(
            "your app has as many webhooks as it may", code=ProblemCode.TOO_MANY_WEBHOOKS
        ) from None
    headers = {"Location": f"/v1/webhooks/{endpoint.id}"}
    return endpoint_view(endpoint, secret=True), 201, headers


@blp.route("/webhooks", methods=["GET"])
@blp.response(200, WebhookListSchema, example=examples.WEBHOOK_LIST)
@operation(blp, "listWebhooks", security=CLIENT_KEY, problems=V1)
def list_webhooks():
    """Your app's endpoints (without their secrets)."""
    app = client_app("listing your webhooks")
    return {"webhooks": [endpoint_view(e) for e in services().webhooks.all(app.id)]}


@blp.route("/webhooks/<webhook_id>", methods=["GET"])
@blp.response(200, WebhookSchema, example=examples.WEBHOOK)
@operation(blp, "getWebhook", security=CLIENT_KEY, problems=_ONE)
def get_webhook(webhook_id: str):
    """One endpoint of your app: its kinds, whether it is enabled, and the service's notice."""
    app = client_app("reading a webhook")
    return endpoint_view(_endpoint(app.id, webhook_id))


@blp.route("/webhooks/<webhook_id>", methods=["PATCH"])
@blp.arguments(
    WebhookUpdateSchema, required=False, example={"events": ["game.turn"], "enabled": True}
)
@blp.response(200, WebhookSchema, example=examples.WEBHOOK)
@operation(blp, "updateWebhook", security=CLIENT_KEY, problems=BODY + (404,))
def update_webhook(body: dict[str, Any], webhook_id: str):
    """Change an endpoint's URL, kinds or description; `enabled: true` enables it again
    (its run of failures starts from zero), `false` pauses it."""
    app = client_app("changing a webhook")
    endpoint = _endpoint(app.id, webhook_id)
    changes: dict[str, Any] = {}
    if "url" in body:
        changes["url"] = _checked_url(body["url"])
    if "events" in body:
        changes["kinds"] = tuple(body["events"])
    if "description" in body:
        changes["description"] = body["description"]
    if body.get("enabled") is True:
        changes.update(disabled=False, notice="", failures=0)
    elif body.get("enabled") is False:
        changes.update(disabled=True, notice="paused by the app")
    try:
        endpoint = services().webhooks.save(app.id, replace(endpoint, **changes))
    except UnknownEndpoint:
        raise Problem(
            f"your app has no webhook {webhook_id!r}", code=ProblemCode.WEBHOOK_NOT_FOUND
        ) from None
    return endpoint_view(endpoint)


@blp.route("/webhooks/<webhook_id>", methods=["DELETE"])
@blp.response(204, description="Deleted: nothing more is delivered to it")
@operation(blp, "deleteWebhook", security=CLIENT_KEY, problems=_ONE)
def delete_webhook(webhook_id: str):
    """Delete an endpoint: its deliveries still queued are dropped."""
    app = client_app("deleting a webhook")
    try:
        services().webhooks.delete(app.id, webhook_id)
    except UnknownEndpoint:
        raise Problem(
            f"your app has no webhook {webhook_id!r}", code=ProblemCode.WEBHOOK_NOT_FOUND
        ) from None
    return Response(status=204)


@blp.route("/webhooks/<webhook_id>/secret", methods=["POST"])
@blp.response(200, WebhookSchema, example=examples.WEBHOOK_CREATED)
@operation(blp, "rotateWebhookSecret", security=CLIENT_KEY, problems=_ONE)
@idempotent
def rotate_secret(webhook_id: str):
    """A new signing secret: every delivery sent from now on is signed with it alone.
    A retry with the same `Idempotency-Key` answers the first answer again (it rotates
    once)."""
    app = client_app("rotating a webhook's secret")
    endpoint = _endpoint(app.id, webhook_id)
    rotated = services().webhooks.save(app.id, replace(endpoint, secret=new_secret()))
    return endpoint_view(rotated, secret=True)


@blp.route("/webhooks/<webhook_id>/deliveries", methods=["GET"])
@blp.arguments(DeliveriesQuerySchema, location="query")
@blp.response(200, DeliveryListSchema, example=examples.DELIVERY_LIST)
@operation(blp, "listDeliveries", security=CLIENT_KEY, problems=_ONE + (422,))
def list_deliveries(query: dict[str, Any], webhook_id: str):
    """The endpoint's delivery log, newest first: each delivery's state, attempts, the
    last answer's status and latency, and the body sent (the last 1000, three days)."""
    app = client_app("reading a webhook's deliveries")
    _endpoint(app.id, webhook_id)
    found = services().webhooks.log(app.id, webhook_id, query["limit"])
    return {"deliveries": [delivery_view(d) for d in found]}


@blp.route("/webhooks/<webhook_id>/deliveries/<delivery_id>/redeliver", methods=["POST"])
@blp.response(202, DeliverySchema, example=examples.DELIVERY)
@operation(blp, "redeliver", security=CLIENT_KEY, problems=_ONE + (429,))
@idempotent
def redeliver(webhook_id: str, delivery_id: str):
    """Deliver a delivery again (the same body, signed anew), with its retries, in your
    app's turn. Asked for while it waits or is being sent, it is sent once; an app has at
    most `SCHNAPSEN_WEBHOOK_REDELIVERIES_PER_APP` redeliveries waiting (429 past it). A
    retry with the same `Idempotency-Key` asks for no other delivery."""
    app = client_app("redelivering")
    _endpoint(app.id, webhook_id)
    store = services().webhooks
    try:
        delivery = store.delivery(app.id, delivery_id)
    except UnknownDelivery:
        raise Problem(
            f"the webhook has no delivery {delivery_id!r}", code=ProblemCode.DELIVERY_NOT_FOUND
        ) from None
    if delivery.endpoint != webhook_id:
        raise Problem(
            f"the webhook has no delivery {delivery_id!r}", code=ProblemCode.DELIVERY_NOT_FOUND
        )
    asked = services().webhook_events.outboxes.ask_again(app.id, delivery.id)
    if asked is Asked.TOO_MANY_AGAIN:
        raise Problem(
            f"your app has {services().webhook_events.outboxes.redeliveries_per_app} "
            "redeliveries waiting or being sent: ask again once they are through",
            code=ProblemCode.TOO_MANY_REDELIVERIES,
        )
    if asked is Asked.OUTBOX_FULL:
        raise Problem(
            "your app has as many deliveries waiting as it may: ask again once they are through",
            code=ProblemCode.TOO_MANY_REDELIVERIES,
        )
    return delivery_view(replace(delivery, state="pending")), 202
