"""The steps (frames) of a replay as openapi.yaml documents them: one schema per ``kind``.

Why: a replay's ``steps`` were documented as free-form objects, so a
generated client could read nothing of them without a cast. Each kind of
frame (``service.engine.frames``) is a schema here with the fields it always
carries required, and ``ReplayStep`` is their union keyed on ``kind``
(``service.web.spec`` builds the union). Only the document changes: the
frames are built by the engine and sent as they are.
"""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from schemas.components import SuitField
from schemas.games import (
    ActionOutSchema,
    CardAtSeatSchema,
    DealResultSchema,
    MarriageSchema,
    _card,
    _doc,
    _seat,
    answer,
)


@answer()
class NumberedTrickSchema(Schema):
    """A completed trick of a deal and its number in the deal, from 1."""

    leader = _seat()
    cards = fields.List(fields.Nested(CardAtSeatSchema))
    winner = _seat()
    number = fields.Integer()


@answer("took", "marriage_points")
class StepNoteSchema(Schema):
    """An action that played no card (an exchange, a close, a marriage, a claim)."""

    seat = _seat()
    action = fields.Nested(ActionOutSchema)
    took = _card(metadata=_doc("exchange_trump_jack: the trump card taken (public, R11a)"))
    marriage_points = fields.Integer(metadata=_doc("declare_marriage: what it is worth (R6c)"))


@answer()
class StepDrawSchema(Schema):
    """A card drawn after a trick; null where the viewer may not see it (R11)."""

    seat = _seat()
    card = _card(allow_none=True)


class _StepSchema(Schema):
    """What every frame shows: the deal as the viewer sees it at that step."""

    deal = fields.Integer(metadata=_doc("The deal's number, from 1"))
    dealer = _seat()
    hands = fields.List(
        fields.List(_card(), allow_none=True),
        metadata=_doc("Per seat, its hand; null where the viewer may not see it (R11)"),
    )
    counts = fields.List(fields.Integer(), metadata=_doc("Per seat, how many cards it holds"))
    trump_card = _card(allow_none=True, metadata=_doc("The face-up card under the talon"))
    trump_suit = SuitField()
    talon_size = fields.Integer()
    closed_by = _seat(allow_none=True)
    tricks_won = fields.List(fields.Integer())
    tricks = fields.List(fields.Nested(NumberedTrickSchema))
    marriages = fields.List(fields.Nested(MarriageSchema))
    lead = fields.Nested(
        CardAtSeatSchema, allow_none=True, metadata=_doc("The card led to the open trick")
    )
    notes = fields.List(
        fields.Nested(StepNoteSchema), metadata=_doc("Actions since the last frame")
    )
    draws = fields.List(fields.Nested(StepDrawSchema), metadata=_doc("The draw after the trick"))
    complete = fields.Boolean(metadata=_doc("The game is over: every hand is shown"))
    game_points = fields.List(fields.Integer())
    results = fields.List(fields.Nested(DealResultSchema), metadata=_doc("The deals finished"))


def _kind(name: str) -> fields.String:
    return fields.String(validate=validate.OneOf([name]))


@answer()
class DealStepSchema(_StepSchema):
    """A deal's start: the cards as dealt."""

    kind = _kind("deal")


@answer()
class TrickStepSchema(_StepSchema):
    """A trick as it completed, the hands before the draw, and the draw."""

    kind = _kind("trick")
    trick = fields.Nested(NumberedTrickSchema)


@answer()
class ResultStepSchema(_StepSchema):
    """A deal's end and its result."""

    kind = _kind("result")
    result = fields.Nested(DealResultSchema)


@answer()
class NowStepSchema(_StepSchema):
    """Where a running deal stands: an open trick or actions after the last trick."""

    kind = _kind("now")


@answer("trick", "result")
class GameStepSchema(_StepSchema):
    """The end of the game: the last frame again with the final game points and results."""

    kind = _kind("game")
    trick = fields.Nested(NumberedTrickSchema, metadata=_doc("When the last frame was a trick"))
    result = fields.Nested(DealResultSchema, metadata=_doc("When the last frame was a result"))


#: Per frame kind, its schema: the members of the union ``ReplayStep``.
STEP_KINDS: dict[str, type[Schema]] = {
    "deal": DealStepSchema,
    "trick": TrickStepSchema,
    "result": ResultStepSchema,
    "now": NowStepSchema,
    "game": GameStepSchema,
}
