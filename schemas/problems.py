"""The RFC 9457 problem body every error answer carries."""

from __future__ import annotations

from marshmallow import Schema, fields

from schemas.components import ComponentField, SeatField
from schemas.games import LegalActionSchema


class FieldErrorsField(fields.Dict, ComponentField):
    """Validation messages per field, nested as the body is (a list's items by index):
    documented as the recursive component ``FieldErrors``."""

    component = "FieldErrors"


class ProblemSchema(Schema):
    type = fields.String(required=True, metadata={"description": "A URI naming the problem type"})
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    detail = fields.String(required=True)
    code = fields.String(required=True, metadata={"description": "Stable, machine-readable"})
    instance = fields.String(
        required=True,
        metadata={
            "description": "The path of the request that got this answer (`urn:uuid:` and "
            "a new UUID, naming the occurrence, when the server read no path: its refusal of "
            "a request line too long or broken)"
        },
    )
    rule = fields.String(
        allow_none=True,
        metadata={"description": "The rule of docs/rules.md that refused the action"},
    )
    legal_actions = fields.List(
        fields.Nested(LegalActionSchema), metadata={"description": "For a refused action"}
    )
    to_move = SeatField(allow_none=True)
    errors = FieldErrorsField(metadata={"description": "Per-field validation errors"})
    retry_after_seconds = fields.Float(
        metadata={"description": "turn_not_timed_out: when the turn will have timed out"}
    )
    waited_seconds = fields.Float(metadata={"description": "turn_not_timed_out: the turn so far"})
    timeout_seconds = fields.Float(metadata={"description": "turn_not_timed_out: the timeout"})
    expected_version = fields.Integer()
    current_version = fields.Integer()
    missing = fields.List(
        fields.String(), metadata={"description": "not_ready: the checks that failed"}
    )
    checks = fields.Nested(
        "ReadinessChecksSchema", metadata={"description": "not_ready: every check's outcome"}
    )
