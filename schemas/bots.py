"""Bodies of the bot-move service, hints, jobs and exports."""

from __future__ import annotations

from typing import Any, ClassVar

from marshmallow import EXCLUDE, RAISE, Schema, fields, validate

from schemas.components import ChoiceField, LevelField, SuitField, WholeNumber
from schemas.games import (
    ActionOutSchema,
    CardAtSeatSchema,
    GameStateSchema,
    MarriageSchema,
    TrickSchema,
    _card,
    _seat,
    answer,
)
from schemas.position_rules import position_rules
from service.game.bot_levels import LEVELS
from service.game.replay_export import CONTENT_TYPES
from service.game.replay_export import FORMAT as EXPORT_FORMAT
from service.game.replay_export import SCHEMA as EXPORT_SCHEMA
from service.ops.settings import DEFAULTS


def _doc(text: str) -> dict[str, str]:
    return {"description": text}


class PositionCardSchema(CardAtSeatSchema):
    """A card of a position's trick: who played it, and which (both are needed)."""

    openapi_required = ("seat", "card")


class PositionTrickSchema(TrickSchema):
    """A finished trick of a position; `leader` and `winner` follow from the cards."""

    openapi_required = ("cards",)
    cards = fields.List(
        fields.Nested(PositionCardSchema),
        metadata={"description": "The led card, then the one that followed it: one of each seat",
                  "minItems": 2, "maxItems": 2,
                  "allOf": [{"contains": {"properties": {"seat": {"const": seat}}}}
                            for seat in (0, 1)]},
    )  # fmt: skip


class PositionMarriageSchema(MarriageSchema):
    """A marriage declared in the deal: who declared which suit (both are needed)."""

    openapi_required = ("seat", "suit")


class PositionExchangeSchema(Schema):
    class Meta:
        unknown = RAISE

    seat = _seat(required=True)
    took = _card(required=True, metadata=_doc("The trump card the exchanger took"))


class PositionSchema(Schema):
    """One seat's view of a deal (schema 1): what the seat has seen, nothing hidden.

    Mirrors the `deal` part of the game view. Points, tricks won, the
    opponent's known cards and the state at a close are derived from it.
    What the document says of a position is what every real deal's position
    holds (``service.engine.position`` checks the rest, each card once across
    the fields above all, and answers 422 `impossible_position` naming the field).
    """

    class Meta:
        unknown = RAISE

    #: Rules across fields that ``service.engine.position`` checks, as the document says
    #: them (``schemas.position_rules``).
    openapi_extra: ClassVar[dict[str, Any]] = {}

    schema = WholeNumber(load_default=1, validate=validate.Equal(1), metadata=_doc("Always 1"))
    variant = ChoiceField("Variant", load_default="head")
    seat = _seat(required=True, metadata=_doc("The seat to move, whose view this is"))
    dealer = _seat(required=True)
    hand = fields.List(
        _card(),
        required=True,
        metadata={"description": "The seat's cards: five while the talon is open, fewer after",
                  "maxItems": 5, "uniqueItems": True},
    )  # fmt: skip
    trump_card = _card(
        allow_none=True, metadata=_doc("The face-up card under the talon; null once drawn")
    )
    turn_up = _card(
        allow_none=True,
        metadata=_doc("The card that was turned up (after an exchange: the trump jack); "
                      "required once trump_card is null"),
    )  # fmt: skip
    talon_size = WholeNumber(
        required=True,
        validate=validate.Range(min=0, max=9),
        metadata=_doc(
            "Face-down cards left: 9 after the deal, two fewer after each trick "
            "while the talon is open, 0 once drawn; a close keeps it"
        ),
    )
    closed_by = _seat(allow_none=True, load_default=None)
    tricks = fields.List(
        fields.Nested(PositionTrickSchema),
        load_default=list,
        metadata={"description": "The deal's finished tricks, oldest first", "maxItems": 10},
    )
    current_trick = fields.List(
        fields.Nested(PositionCardSchema),
        load_default=list,
        metadata={"description": "The led card, if the opponent led", "maxItems": 1},
    )
    marriages = fields.List(
        fields.Nested(PositionMarriageSchema),
        load_default=list,
        metadata={"description": "Marriages declared in this deal, one a suit at most",
                  "maxItems": 4},
    )  # fmt: skip
    declared_marriage = SuitField(
        allow_none=True,
        load_default=None,
        metadata=_doc("A marriage this seat declared in this lead, not yet led"),
    )
    exchange = fields.Nested(PositionExchangeSchema, allow_none=True, load_default=None)
    game_points = fields.List(
        WholeNumber(validate=validate.Range(min=1, max=7)),
        validate=validate.Length(equal=2),
        metadata=_doc("Game points still to lose per seat; [7, 7] by default"),
    )


PositionSchema.openapi_extra = position_rules()


DEFAULT_LEVEL = "expert" if "expert" in LEVELS else LEVELS[-1]


def _level() -> fields.String:
    return LevelField(
        load_default=DEFAULT_LEVEL,
        validate=validate.OneOf(LEVELS),
        metadata=_doc(f"One of: {', '.join(LEVELS)}"),
    )


def _budget() -> fields.Integer:
    return WholeNumber(
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
    seed = WholeNumber(
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
        validate=validate.Range(min=0, max=DEFAULTS["JOB_WAIT_MAX_SECONDS"]),
        metadata=_doc(
            "Answer the result directly when it is ready within this many seconds (the "
            "server's cap, SCHNAPSEN_JOB_WAIT_MAX_SECONDS)"
        ),
    )


@answer()
class EvaluationSchema(Schema):
    action = fields.Nested(ActionOutSchema)
    value = fields.Float(metadata=_doc("Expected game points for the seat (negative: a loss)"))


@answer("evaluations")
class BotDecisionSchema(Schema):
    """What a bot chose in a position: the result of a move job."""

    level = LevelField()
    action = fields.Nested(ActionOutSchema)
    evaluations = fields.List(
        fields.Nested(EvaluationSchema), metadata=_doc("Where the level computes them")
    )
    elapsed_ms = fields.Float()
    budget_ms = fields.Integer(
        allow_none=True,
        metadata=_doc("The think time it was given, after the cap; null: the level's default"),
    )


class HintResultSchema(BotDecisionSchema):
    """What a bot would play in the caller's seat: the result of a hint job."""


@answer()
class ExportResultSchema(Schema):
    """A finished export: the result of an export job; download it at `url`."""

    export_id = fields.String()
    game_id = fields.String()
    viewer = _seat(allow_none=True, metadata=_doc("The seat it was made for; null: spectator"))
    format = fields.String(validate=validate.OneOf(list(CONTENT_TYPES)))
    content_type = fields.String(validate=validate.OneOf(list(CONTENT_TYPES.values())))
    sha256 = fields.String(metadata=_doc("Hex SHA-256 of the bytes (also in Repr-Digest)"))
    bytes = fields.Integer()
    url = fields.String()


@answer("result", "error", "progress")
class JobSchema(Schema):
    """A job as the server answers it (dumped as it is); documented per kind as ``Job``."""

    openapi_ref = "Job"

    id = fields.String()
    kind = fields.String(validate=validate.OneOf(["move", "hint", "export", "analysis"]))
    status = ChoiceField("JobStatus")
    progress = fields.Float(metadata=_doc("Analysis jobs: the fraction of the work done"))
    result = fields.Dict(metadata=_doc("When finished: the job's result"))
    error = fields.String(metadata=_doc("When failed: why"))


class _JobSchema(Schema):
    id = fields.String(required=True)
    status = ChoiceField("JobStatus", required=True)
    error = fields.String(metadata=_doc("Once the job failed: why"))


class MoveJobSchema(_JobSchema):
    """A bot-move job (POST /v1/bot/moves); its result is the bot's decision."""

    kind = fields.String(required=True, validate=validate.OneOf(["move"]))
    result = fields.Nested(BotDecisionSchema, metadata=_doc("Once the job is finished"))


class HintJobSchema(_JobSchema):
    """A hint job (POST /v1/games/{game_id}/hint); its result is the hint."""

    kind = fields.String(required=True, validate=validate.OneOf(["hint"]))
    result = fields.Nested(HintResultSchema, metadata=_doc("Once the job is finished"))


class ExportJobSchema(_JobSchema):
    """An export job (POST /v1/games/{game_id}/exports); its result is the export."""

    kind = fields.String(required=True, validate=validate.OneOf(["export"]))
    result = fields.Nested(ExportResultSchema, metadata=_doc("Once the job is finished"))
    export_id = fields.String(metadata=_doc("In the answer to the export request"))
    export_url = fields.String(metadata=_doc("In the answer to the export request"))


@answer()
class AnalysisResultSchema(Schema):
    """A finished analysis job: read the analysis at `url`."""

    game_id = fields.String()
    url = fields.String()
    decisions_analysed = fields.Integer(metadata=_doc("Decisions this job valued (not cached)"))
    elapsed_ms = fields.Float()


class AnalysisJobSchema(_JobSchema):
    """An analysis job (POST /v1/games/{game_id}/analysis); its result names the analysis."""

    kind = fields.String(required=True, validate=validate.OneOf(["analysis"]))
    progress = fields.Float(
        required=True,
        validate=validate.Range(min=0, max=1),
        metadata=_doc("The fraction of the decisions analysed"),
    )
    result = fields.Nested(AnalysisResultSchema, metadata=_doc("Once the job is finished"))
    analysis_url = fields.String(metadata=_doc("In the answer to the request"))


#: The union ``Job`` of GET /v1/jobs/{job_id}, keyed on ``kind``.
JOB_KINDS = {
    "move": MoveJobSchema,
    "hint": HintJobSchema,
    "export": ExportJobSchema,
    "analysis": AnalysisJobSchema,
}


class ExportRequestSchema(Schema):
    class Meta:
        unknown = RAISE

    format = fields.String(
        load_default="json",
        validate=validate.OneOf(list(CONTENT_TYPES)),
        metadata=_doc("json, ndjson, or text (one line per trick)"),
    )


@answer()
class ReplayExportSchema(Schema):
    """The bytes of a json export (GET /v1/exports/{export_id}): the replay as the
    seat (or spectator) it was made for may see it."""

    format = fields.String(
        validate=validate.OneOf([EXPORT_FORMAT]), metadata=_doc("This document's format name")
    )
    schema = fields.Integer(
        validate=validate.OneOf([EXPORT_SCHEMA]), metadata=_doc("This document's schema version")
    )
    game_id = fields.String()
    viewer = _seat(allow_none=True, metadata=_doc("The seat it was made for; null: spectator"))
    version = fields.Integer()
    complete = fields.Boolean(metadata=_doc("The game is over: every deck is shown"))
    events = fields.List(fields.Nested("EventSchema"))
    deals = fields.List(fields.Nested("ReplayDealSchema"))
    state = fields.Nested(
        GameStateSchema, metadata=_doc("The game as the export's viewer saw it at `version`")
    )


@answer()
class StrengthSchema(Schema):
    opponent = LevelField(metadata=_doc("The next weaker level on the ladder"))
    games = fields.Integer(metadata=_doc("Duplicate games to 7 game points played"))
    games_won = fields.Integer()
    interval_95 = fields.List(
        fields.Float(), metadata=_doc("95% interval of the share of games won")
    )
    elo = fields.Float(metadata=_doc("Elo rating on the ladder, `random` at 0"))
    elo_interval_95 = fields.List(fields.Float(), metadata=_doc("95% interval of the Elo rating"))
    measured_by = fields.String()


@answer()
class BotLevelInfoSchema(Schema):
    name = LevelField(metadata=_doc("Use as `opponent.level` or `level`"))
    description = fields.String()
    default_budget_ms = fields.Integer(
        allow_none=True, metadata=_doc("Think time per move when none is given; null: no search")
    )
    max_budget_ms = fields.Integer(
        allow_none=True,
        metadata=_doc("Largest think time the bot-move service and hints give it; null: no search"),
    )
    strength = fields.Nested(StrengthSchema, allow_none=True)
    strength_note = fields.String(
        allow_none=True, metadata=_doc("Why strength is null, when it is")
    )


@answer()
class BotLevelsSchema(Schema):
    levels = fields.List(fields.Nested(BotLevelInfoSchema), metadata=_doc("Weakest first"))
    default_level = LevelField(metadata=_doc("The level of `POST /v1/bot/moves` by default"))
