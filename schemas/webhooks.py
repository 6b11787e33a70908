"""Requests and answers of webhook endpoints and their deliveries."""

from __future__ import annotations

from marshmallow import RAISE, Schema, fields, validate

from schemas.components import ChoiceField, SeatField, TrueOrFalse
from schemas.games import GameStateSchema, answer
from service.game.notices import NoticeKind

KINDS = [kind.value for kind in NoticeKind]


def _doc(text: str) -> dict[str, str]:
    return {"description": text}


def _kinds(**options) -> fields.List:
    return fields.List(
        ChoiceField("NoticeKind"),
        validate=validate.Length(min=1, max=len(KINDS)),
        metadata=_doc("The kinds of notice the endpoint gets (docs/webhooks.md)"),
        **options,
    )


#: A webhook URL's form as documented: http(s), a host name of at most three labels of
#: letters, digits, "_" and inner hyphens (63 at most each; the last starts with a letter:
#: a numeric one is an IPv4 address in disguise), an optional port and path, in printable
#: ASCII without a space or fragment. ``check_url`` is the server's whole rule (it also
#: takes longer names and IP literals of public addresses); at most 2,048 characters.
URL_PATTERN = (
    r"^[Hh][Tt][Tt][Pp][Ss]?://([A-Za-z0-9_]([-A-Za-z0-9_]{0,61}[A-Za-z0-9_])?[.]){0,2}"
    r"[A-Za-z]([-A-Za-z0-9_]{0,61}[A-Za-z0-9_])?"
    r'(:[1-9][0-9]{0,3})?([/?][!"$-~]{0,1800})?$'
)


class WebhookRequestSchema(Schema):
    class Meta:
        unknown = RAISE

    url = fields.String(
        required=True,
        validate=validate.Length(min=8, max=2048),
        metadata={
            "description": "Where deliveries are POSTed: http or https, a public address",
            "pattern": URL_PATTERN,
        },
    )
    events = _kinds(load_default=lambda: list(KINDS))
    description = fields.String(load_default="", validate=validate.Length(max=200))


class WebhookUpdateSchema(Schema):
    class Meta:
        unknown = RAISE

    url = fields.String(
        validate=validate.Length(min=8, max=2048), metadata={"pattern": URL_PATTERN}
    )
    events = _kinds()
    description = fields.String(validate=validate.Length(max=200))
    enabled = TrueOrFalse(metadata=_doc("true enables a disabled endpoint again"))


@answer("secret")
class WebhookSchema(Schema):
    webhook_id = fields.String()
    url = fields.String()
    events = fields.List(ChoiceField("NoticeKind"), metadata=_doc("The kinds it gets"))
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
    kind = ChoiceField("NoticeKind")
    game_id = fields.String()
    version = fields.Integer()
    state = fields.String(validate=validate.OneOf(["pending", "delivered", "failed"]))
    attempts = fields.Integer()
    created = fields.Integer(metadata=_doc("ms since the epoch"))
    last_status = fields.Integer(allow_none=True)
    last_latency_ms = fields.Float(allow_none=True)
    last_error = fields.String(allow_none=True)
    history = fields.List(fields.Nested(AttemptSchema), metadata=_doc("The last 20 attempts"))
    body = fields.String(
        metadata={
            "description": "The JSON body as delivered: the bytes that were signed (once the "
            "app erased a player it names, its `player_id` is null here, and in a redelivery)",
            "contentMediaType": "application/json",
            "contentSchema": {"$ref": "#/components/schemas/Notice"},
        }
    )


@answer()
class DeliveryListSchema(Schema):
    deliveries = fields.List(fields.Nested(DeliverySchema), metadata=_doc("Newest first"))


@answer()
class NoticeDataSchema(Schema):
    """What every notice is about: one seat of a person in a game at a version."""

    game_id = fields.String()
    version = fields.Integer(
        metadata=_doc("The game's version after the append that made the notice. Within a "
                      "game it only grows: a notice below a version already handled is old "
                      "(deliveries may arrive out of order), skip it")
    )  # fmt: skip
    seat = SeatField(metadata=_doc("The seat the notice is about"))
    player_id = fields.String(
        allow_none=True,
        metadata=_doc("The app's own player at that seat; null for an anonymous seat of a "
                      "game created with the app's key"),
    )  # fmt: skip
    game = fields.Nested(
        GameStateSchema,
        metadata=_doc("The game as that seat sees it (RULES R11): its own hand, the public "
                      "cards, never a card the seat cannot know, never a token. The state of "
                      "`GET /v1/games/{game_id}` without the game's identity, players, clock "
                      "or invite: `game_id` and `version` are beside it"),
    )  # fmt: skip
