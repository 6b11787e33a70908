"""Bodies of the bot-move service, hints, jobs and exports."""

from __future__ import annotations

from marshmallow import EXCLUDE, RAISE, Schema, fields, validate

from schemas.games import (
    ActionOutSchema,
    CardAtSeatSchema,
    MarriageSchema,
    TrickSchema,
    _card,
    _seat,
)
from service.bot_levels import LEVELS
from service.replay_export import CONTENT_TYPES


def _doc(text: str) -> dict[str, str]:
    return {"description": text}


class PositionExchangeSchema(Schema):
    class Meta:
        unknown = RAISE

    seat = _seat(required=True)
    took = _card(required=True, metadata=_doc("The trump card the exchanger took"))


class PositionSchema(Schema):
    """One seat's view of a deal (schema 1): what the seat has seen, nothing hidden.

    Mirrors the `deal` part of the game view. Points, tricks won, the
    opponent's known cards and the state at a close are derived from it.
    """

    class Meta:
        unknown = RAISE

    schema = fields.Integer(
        strict=True, load_default=1, validate=validate.Equal(1), metadata=_doc("Always 1")
    )
    variant = fields.String(load_default="head", validate=validate.OneOf(["head", "tracked"]))
    seat = _seat(required=True, metadata=_doc("The seat to move, whose view this is"))
    dealer = _seat(required=True)
    hand = fields.List(_card(), required=True)
    trump_card = _card(
        allow_none=True, metadata=_doc("The face-up card under the talon; null once drawn")
    )
    turn_up = _card(
        allow_none=True,
        metadata=_doc("The card that was turned up (after an exchange: the trump jack); "
                      "required once trump_card is null"),
    )  # fmt: skip
    talon_size = fields.Integer(
        strict=True,
        required=True,
        validate=validate.Range(min=0, max=9),
        metadata=_doc("Face-down cards left"),
    )
    closed_by = _seat(allow_none=True, load_default=None)
    tricks = fields.List(fields.Nested(TrickSchema), load_default=list)
    current_trick = fields.List(fields.Nested(CardAtSeatSchema), load_default=list)
    marriages = fields.List(fields.Nested(MarriageSchema), load_default=list)
    declared_marriage = fields.String(
        allow_none=True,
        load_default=None,
        validate=validate.OneOf(["C", "D", "H", "S"]),
        metadata=_doc("A marriage this seat declared in this lead, not yet led"),
    )
    exchange = fields.Nested(PositionExchangeSchema, allow_none=True, load_default=None)
    game_points = fields.List(
        fields.Integer(strict=True, validate=validate.Range(min=1, max=7)),
        validate=validate.Length(equal=2),
        metadata=_doc("Game points still to lose per seat; [7, 7] by default"),
    )


DEFAULT_LEVEL = "expert" if "expert" in LEVELS else LEVELS[-1]


def _level() -> fields.String:
    return fields.String(
        load_default=DEFAULT_LEVEL,
        validate=validate.OneOf(LEVELS),
        metadata=_doc(f"One of: {', '.join(LEVELS)}"),
    )


def _budget() -> fields.Integer:
    return fields.Integer(
        strict=True,
        validate=validate.Range(min=1, max=10_000),
        metadata=_doc(
            "Think time in ms; the level's default when absent. A budget above the "
            "service's cap (SCHNAPSEN_BOT_SERVICE_MAX_BUDGET_MS, 2000 by default) is "
            "clamped to the cap; the decision reports the budget it was given"
        ),
    )


class BotMoveRequestSchema(Schema):
    class Meta:
        unknown = RAISE

    position = fields.Nested(PositionSchema, required=True)
    level = _level()
    budget_ms = _budget()
    seed = fields.Integer(
        strict=True,
        load_default=0,
        validate=validate.Range(min=0, max=2**63 - 1),
        metadata=_doc("Same seed, same choice"),
    )


class HintRequestSchema(Schema):
    class Meta:
        unknown = RAISE

    level = _level()
    budget_ms = _budget()


class WaitQuerySchema(Schema):
    class Meta:
        unknown = EXCLUDE

    wait = fields.Float(
        load_default=0,
        validate=validate.Range(min=0, max=60),
        metadata=_doc("Answer the result directly when it is ready within this many seconds"),
    )


class EvaluationSchema(Schema):
    action = fields.Nested(ActionOutSchema)
    value = fields.Float(metadata=_doc("Expected game points for the seat (negative: a loss)"))


class DecisionSchema(Schema):
    level = fields.String()
    action = fields.Nested(ActionOutSchema)
    evaluations = fields.List(fields.Nested(EvaluationSchema))
    elapsed_ms = fields.Float()
    budget_ms = fields.Integer(
        allow_none=True,
        metadata=_doc("The think time it was given, after the cap; null: the level's default"),
    )


class ExportMetaSchema(Schema):
    export_id = fields.String()
    game_id = fields.String()
    viewer = _seat(allow_none=True)
    format = fields.String()
    content_type = fields.String()
    sha256 = fields.String()
    bytes = fields.Integer()
    url = fields.String()


class JobSchema(Schema):
    id = fields.String()
    kind = fields.String(validate=validate.OneOf(["move", "hint", "export"]))
    status = fields.String(
        metadata=_doc("queued, started, deferred, scheduled, finished, failed, stopped, canceled")
    )
    result = fields.Dict(
        metadata=_doc(
            "When finished: a decision (level, action, elapsed_ms, budget_ms: the think "
            "time it was given after the cap, and evaluations where the level has them), "
            "or an export's details"
        )
    )
    error = fields.String()


class ExportRequestSchema(Schema):
    class Meta:
        unknown = RAISE

    format = fields.String(
        load_default="json",
        validate=validate.OneOf(list(CONTENT_TYPES)),
        metadata=_doc("json, ndjson, or text (one line per trick)"),
    )


class ExportJobSchema(JobSchema):
    export_id = fields.String()
    export_url = fields.String()
