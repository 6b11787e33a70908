"""Bodies of the post-game analysis: the request, its job, and the analysis itself."""

from __future__ import annotations

from marshmallow import RAISE, Schema, fields, validate

from schemas.components import LevelField
from schemas.games import ActionOutSchema, _seat, answer

LABELS = ["best", "good", "inaccuracy", "mistake", "blunder", "forced"]


def _doc(text: str) -> dict[str, str]:
    return {"description": text}


def _deals(**kwargs):
    return fields.List(
        fields.Integer(validate=validate.Range(min=1, max=1000)),
        validate=validate.Length(min=1, max=100),
        **kwargs,
    )


class AnalysisRequestSchema(Schema):
    """What to analyse; by default everything the caller may read."""

    class Meta:
        unknown = RAISE

    seat = _seat(
        metadata=_doc(
            "Only this seat's decisions (default: both seats of a finished game, the "
            "caller's own during a game; the opponent's are refused until the game is over)"
        )
    )
    deals = _deals(
        metadata=_doc(
            "Only these deals (default: every deal of a finished game, the finished deals "
            "during a game; the deal being played is refused)"
        )
    )


class AnalysisQuerySchema(Schema):
    """The part of the analysis to read, as for the request."""

    class Meta:
        unknown = RAISE

    seat = fields.Integer(
        validate=validate.Range(min=0, max=1), metadata=_doc("Only this seat's decisions (0 or 1)")
    )
    deal = _deals(metadata=_doc("Only these deals (repeat: `deal=1&deal=2`)"))


@answer()
class ValuedActionSchema(Schema):
    action = fields.Nested(ActionOutSchema)
    value = fields.Float(metadata=_doc("Expected game points for the seat (negative: a loss)"))


@answer()
class AnalysedDecisionSchema(Schema):
    """One decision, valued from the deciding seat's view at that moment only."""

    version = fields.Integer(metadata=_doc("The game's version just before the decision"))
    deal = fields.Integer()
    trick = fields.Integer(metadata=_doc("The trick it belongs to, from 1"))
    seat = _seat()
    chosen = fields.Nested(ActionOutSchema, metadata=_doc("What the seat did"))
    best = fields.Nested(ActionOutSchema, metadata=_doc("The best action by the analysis"))
    chosen_value = fields.Float(allow_none=True, metadata=_doc("null: a forced move"))
    best_value = fields.Float(allow_none=True, metadata=_doc("null: a forced move"))
    loss = fields.Float(metadata=_doc("best_value - chosen_value, in game points (>= 0)"))
    label = fields.String(validate=validate.OneOf(LABELS))
    values = fields.List(
        fields.Nested(ValuedActionSchema),
        metadata=_doc("Every legal action's value (empty for a forced move)"),
    )


@answer()
class AccuracySchema(Schema):
    decisions = fields.Integer()
    forced = fields.Integer()
    accuracy = fields.Float(
        allow_none=True,
        metadata=_doc("100 * mean of max(0, 1 - loss) over unforced decisions; null: none"),
    )
    mean_loss = fields.Float(allow_none=True, metadata=_doc("Game points per unforced decision"))
    inaccuracies = fields.Integer()
    mistakes = fields.Integer()
    blunders = fields.Integer()


@answer()
class PlayerAccuracySchema(AccuracySchema):
    seat = _seat()


@answer()
class DealAccuracySchema(AccuracySchema):
    deal = fields.Integer()
    seat = _seat()


@answer()
class ThresholdsSchema(Schema):
    """The lower bound of loss (game points) of each label."""

    good = fields.Float()
    inaccuracy = fields.Float()
    mistake = fields.Float()
    blunder = fields.Float()


@answer()
class AnalysisSchema(Schema):
    """A game's analysis (the parts asked for): every decision, accuracy per seat and deal."""

    game_id = fields.String()
    level = LevelField(metadata=_doc("The analysing bot level"))
    budget_ms = fields.Integer(metadata=_doc("Its think time per decision"))
    game_finished = fields.Boolean()
    seats = fields.List(_seat())
    deals = fields.List(fields.Integer())
    thresholds = fields.Nested(ThresholdsSchema)
    decisions = fields.List(fields.Nested(AnalysedDecisionSchema))
    players = fields.List(fields.Nested(PlayerAccuracySchema))
    deal_accuracy = fields.List(fields.Nested(DealAccuracySchema))
