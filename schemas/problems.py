"""The RFC 9457 problem body every error answer carries."""

from __future__ import annotations

from marshmallow import Schema, fields

from schemas.components import SeatField
from schemas.games import LegalActionSchema


class ProblemSchema(Schema):
    type = fields.String(required=True, metadata={"description": "A URI naming the problem type"})
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    detail = fields.String(required=True)
    code = fields.String(required=True, metadata={"description": "Stable, machine-readable"})
    instance = fields.String()
    rule = fields.String(
        allow_none=True, metadata={"description": "The rule of RULES.md that refused the action"}
    )
    legal_actions = fields.List(
        fields.Nested(LegalActionSchema), metadata={"description": "For a refused action"}
    )
    to_move = SeatField(allow_none=True)
    errors = fields.Dict(metadata={"description": "Per-field validation errors"})
    retry_after_seconds = fields.Float(
        metadata={"description": "turn_not_timed_out: when the turn will have timed out"}
    )
    waited_seconds = fields.Float(metadata={"description": "turn_not_timed_out: the turn so far"})
    timeout_seconds = fields.Float(metadata={"description": "turn_not_timed_out: the timeout"})
    expected_version = fields.Integer()
    current_version = fields.Integer()
