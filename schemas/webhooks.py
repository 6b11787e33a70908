"""Requests and answers of webhook endpoints and their deliveries."""

from __future__ import annotations

from marshmallow import RAISE, Schema, fields, validate

from schemas.games import answer
from service.game.notices import NoticeKind

KINDS = [kind.value for kind in NoticeKind]


def _doc(text: str) -> dict[str, str]:
    return {"description": text}


def _kinds(**options) -> fields.List:
    return fields.List(
        fields.String(validate=validate.OneOf(KINDS)),
        validate=validate.Length(min=1, max=len(KINDS)),
        metadata=_doc("The kinds of notice the endpoint gets (docs/webhooks.md)"),
        **options,
    )


class WebhookRequestSchema(Schema):
    class Meta:
        unknown = RAISE

    url = fields.String(
        required=True,
        validate=validate.Length(min=8, max=2048),
        metadata=_doc("Where deliveries are POSTed: http or https, a public address"),
    )
    events = _kinds(load_default=lambda: list(KINDS))
    description = fields.String(load_default="", validate=validate.Length(max=200))


class WebhookUpdateSchema(Schema):
    class Meta:
        unknown = RAISE

    url = fields.String(validate=validate.Length(min=8, max=2048))
    events = _kinds()
    description = fields.String(validate=validate.Length(max=200))
    enabled = fields.Boolean(metadata=_doc("true enables a disabled endpoint again"))


@answer("secret")
class WebhookSchema(Schema):
    webhook_id = fields.String()
    url = fields.String()
    events = fields.List(fields.String())
    description = fields.String()
    created = fields.Float(metadata=_doc("s since the epoch"))
    enabled = fields.Boolean()
    notice = fields.String(metadata=_doc("Why the service disabled it, and when; else empty"))
    failures = fields.Integer(metadata=_doc("Deliveries that failed every retry, in a row"))
    secret = fields.String(
        metadata=_doc("The signing secret (`whsec_` and its key's bytes in base64, as the "
                      "Standard Webhooks libraries take it): answered on registration and "
                      "on rotation only")
    )  # fmt: skip


@answer()
class WebhookListSchema(Schema):
    webhooks = fields.List(fields.Nested(WebhookSchema))


class DeliveriesQuerySchema(Schema):
    class Meta:
        unknown = RAISE

    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=1000))


@answer()
class AttemptSchema(Schema):
    at = fields.Integer(metadata=_doc("ms since the epoch"))
    status = fields.Integer(allow_none=True, metadata=_doc("The answer's status; null: none"))
    latency_ms = fields.Float()
    error = fields.String(allow_none=True)


@answer()
class DeliverySchema(Schema):
    delivery_id = fields.String()
    event_id = fields.String(metadata=_doc("The notice's id: receivers deduplicate by it"))
    kind = fields.String()
    game_id = fields.String()
    version = fields.Integer()
    state = fields.String(validate=validate.OneOf(["pending", "delivered", "failed"]))
    attempts = fields.Integer()
    created = fields.Integer(metadata=_doc("ms since the epoch"))
    last_status = fields.Integer(allow_none=True)
    last_latency_ms = fields.Float(allow_none=True)
    last_error = fields.String(allow_none=True)
    history = fields.List(fields.Nested(AttemptSchema), metadata=_doc("The last 20 attempts"))
    body = fields.String(metadata=_doc("The JSON body as delivered: the bytes that were signed"))


@answer()
class DeliveryListSchema(Schema):
    deliveries = fields.List(fields.Nested(DeliverySchema), metadata=_doc("Newest first"))
