"""Bodies of the service endpoints: liveness and readiness."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from schemas.components import ComponentField


class HealthSchema(Schema):
    status = fields.String(required=True, validate=validate.OneOf(["ok"]))


class WorkersField(fields.Raw, ComponentField):
    """Live workers per queue, or why they are unknown: the component ``WorkerCounts``."""

    component = "WorkerCounts"


class ReadinessChecksSchema(Schema):
    redis = fields.String(
        required=True, metadata={"description": "The log's Redis: `ok`, or why not"}
    )
    queue_redis = fields.String(
        required=True, metadata={"description": "The queues' Redis: `ok`, or why not"}
    )
    store = fields.String(
        required=True,
        metadata={
            "description": "Room in the Redis servers: `ok`, `full: ...` naming the one past its"
            " `maxmemory` (then `store_full` is missing), or `unknown: ...`"
        },
    )
    workers = WorkersField(
        required=True,
        metadata={"description": "Live workers per queue; a string when they cannot be counted"},
    )


class ReadinessSchema(Schema):
    status = fields.String(
        required=True, validate=validate.OneOf(["ready"]), metadata={"description": "`ready`"}
    )
    checks = fields.Nested(ReadinessChecksSchema, required=True)
