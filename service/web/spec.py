"""How marshmallow schemas become openapi.yaml: shared components, 3.1 nullables.

apispec writes every field inline; a client generator then makes one type
per inline enum (24 card enums in the Python client). The converter here
documents the fields of ``schemas.components`` as a ``$ref`` to their shared
component, nullable the OpenAPI 3.1 way (``anyOf`` with ``{"type": "null"}``:
one enum type, no null member), and a marshmallow schema that names
``openapi_ref`` as that hand-written component (the action union).
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import marshmallow
from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin, OpenAPIConverter
from apispec.ext.marshmallow.common import resolve_schema_cls

from schemas.components import NOTICE_KINDS, ComponentField, component_ref, shared_components
from service.jobs import webhook_signing


class ContractConverter(OpenAPIConverter):
    """apispec's converter, with shared components and 3.1 nullables."""

    def field2property(self, field: marshmallow.fields.Field) -> dict[str, Any]:
        if isinstance(field, ComponentField):
            return _maybe_null(component_ref(field.component), field)
        if isinstance(field, marshmallow.fields.Nested) and _openapi_ref(field.nested):
            return _maybe_null(self.resolve_nested_schema(field.nested), field)
        prop = super().field2property(field)
        for keyword in ("contentMediaType", "contentSchema"):  # JSON held in a string
            if keyword in field.metadata:
                prop[keyword] = field.metadata[keyword]
        enum = prop.get("enum")
        if isinstance(enum, list) and None in enum:
            # apispec adds null to a nullable enum; 3.1 says it with the type alone.
            prop["enum"] = [member for member in enum if member is not None]
        return prop

    def schema2jsonschema(self, schema: Any) -> dict[str, Any]:
        jsonschema = super().schema2jsonschema(schema)
        required = getattr(schema, "openapi_required", None)  # schemas.games.answer
        if required:
            listed = jsonschema.get("required", [])
            jsonschema["required"] = listed + [name for name in required if name not in listed]
        for prop in jsonschema.get("properties", {}).values():
            _default_in_words(prop)
        # A rule across fields that a schema checks in code (schemas.games.OpponentSchema).
        jsonschema.update(getattr(schema, "openapi_extra", {}))
        return jsonschema

    def resolve_nested_schema(self, schema: Any) -> Any:
        name = _openapi_ref(schema)
        if name:
            return component_ref(name)
        return super().resolve_nested_schema(schema)


def _openapi_ref(schema: Any) -> str | None:
    """The hand-written component a marshmallow schema is documented as, if any."""
    if isinstance(schema, str | type | marshmallow.Schema):
        try:
            cls = resolve_schema_cls(schema)
        except marshmallow.exceptions.RegistryError:
            return None
        return getattr(cls, "openapi_ref", None)
    return None


def _maybe_null(prop: dict[str, Any], field: marshmallow.fields.Field) -> dict[str, Any]:
    out: dict[str, Any] = {"anyOf": [prop, {"type": "null"}]} if field.allow_none else dict(prop)
    description = field.metadata.get("description")
    if description:
        out["description"] = description
    default = field.load_default
    if default is not marshmallow.missing and not callable(default):
        out["default"] = default
    return out


def _default_in_words(prop: dict[str, Any]) -> None:
    """Say a body field's default in its description instead of ``default``.

    Why: openapi-typescript (7, default options) makes a field with a
    ``default`` required, as an answer always carries it; in a request the
    server fills it in, so a minimal body would not compile. The value stays
    documented, in words, and the field stays optional for every generator.
    """
    if "default" not in prop:
        return
    default = prop.pop("default")
    words = f"Default: `{json.dumps(default)}`."
    description = prop.get("description", "").rstrip()
    if description and not description.endswith("."):
        description += "."
    prop["description"] = f"{description} {words}".strip()


class ContractPlugin(MarshmallowPlugin):
    Converter = ContractConverter


def _union(members: dict[str, str], key: str, description: str) -> dict[str, Any]:
    """A ``oneOf`` of the components ``members`` (by the value of ``key``), keyed on ``key``."""
    return {
        "description": description,
        "oneOf": [component_ref(name) for name in members.values()],
        "discriminator": {
            "propertyName": key,
            "mapping": {value: component_ref(name)["$ref"] for value, name in members.items()},
        },
    }


#: Validation messages per field, nested as the request is (a list's items by index).
FIELD_ERRORS = {
    "type": "object",
    "description": "Per field, its messages, or the errors of its parts (nested fields, "
    "list items by index)",
    "additionalProperties": {
        "anyOf": [{"type": "array", "items": {"type": "string"}}, component_ref("FieldErrors")]
    },
}
#: Readiness's worker check: live workers per queue, or why they cannot be counted.
WORKER_COUNTS = {
    "anyOf": [
        {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}},
        {"type": "string"},
    ],
    "description": "Live workers per queue, or (a string) why they cannot be counted",
}
#: The data of the SSE stream's messages: an event, or the final `end`.
STREAM_DATA = {
    "oneOf": [component_ref("StreamEvent"), component_ref("StreamEnd")],
    "description": "The JSON `data:` of one message: a StreamEvent (the message's `event:` "
    "is its `type`), or, for `event: end`, a StreamEnd",
}


#: When each kind of notice is sent, and to which seat (docs/webhooks.md).
NOTICE_WHEN = {
    "game.started": "Both seats are taken and the first deal is dealt; one for each person's seat",
    "game.turn": "An append left a person's seat to move (a trick's winner leading again is a "
    "new turn); for that seat",
    "game.finished": "The game ended: played out, resigned, aborted or lost on time; one for "
    "each person's seat",
    "seek.paired": "Two seeks were paired and their game made; one for each seat",
    "challenge.accepted": "A challenge was accepted and its game made; one for each seat",
    "rematch.offered": "A seat offered a rematch of a finished game; for the other seat",
    "tournament.started": "A tournament's first round was paired (an arena: its start came, "
    "round 0); one for the tournament",
    "tournament.round_paired": "A tournament's round was paired and its games made (an arena: "
    "each pairing of its players waiting); one for each round",
    "tournament.finished": "A tournament's last round ended (an arena: its time was up and its "
    "last game ended); one for the tournament",
}
#: The headers of every delivery, as a receiver reads them.
DELIVERY_HEADERS = [
    {
        "name": webhook_signing.ID_HEADER,
        "in": "header",
        "required": True,
        "description": "The notice's `id`, the same on every attempt and redelivery: "
        "deduplicate by it (Standard Webhooks)",
        "schema": {"type": "string", "pattern": "^evt_[0-9a-f]{24}$"},
    },
    {
        "name": webhook_signing.TIMESTAMP_HEADER,
        "in": "header",
        "required": True,
        "description": "The Unix time the attempt was signed, in whole seconds",
        "schema": {"type": "string", "pattern": "^[0-9]+$"},
    },
    {
        "name": webhook_signing.SIGNATURE_HEADER,
        "in": "header",
        "required": True,
        "description": "`v1,<base64 HMAC-SHA256>` of `<webhook-id>.<webhook-timestamp>.<raw body>` "
        "under the endpoint's `whsec_` secret, space-separated when there are several: verify "
        "it with a Standard Webhooks library before parsing (docs/webhooks.md)",
        "schema": {"type": "string", "pattern": "^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$"},
    },
    {
        "name": "Schnapsen-Delivery",
        "in": "header",
        "required": True,
        "description": "This delivery's id in the endpoint's delivery log",
        "schema": {"type": "string", "pattern": "^dlv_[0-9a-f]{24}$"},
    },
]


def notice_component(kind: str) -> str:
    """The component name of a notice kind: ``game.turn`` -> ``GameTurnNotice``,
    ``tournament.round_paired`` -> ``TournamentRoundPairedNotice``."""
    return "".join(part.capitalize() for part in re.split(r"[._]", kind)) + "Notice"


def _notice(kind: str) -> dict[str, Any]:
    """The body of one kind of notice, as a delivery POSTs it."""
    return {
        "type": "object",
        "description": NOTICE_WHEN[kind],
        "properties": {
            "id": {
                "type": "string",
                "pattern": "^evt_[0-9a-f]{24}$",
                "description": "The notice's id, the same however often it is delivered",
            },
            "type": {"type": "string", "enum": [kind]},
            "created": {"type": "integer", "description": "When it was made: ms since the epoch"},
            "app": {"type": "string", "description": "The client app it is told to"},
            "data": component_ref(
                "TournamentNoticeData" if kind.startswith("tournament.") else "NoticeData"
            ),
        },
        "required": ["id", "type", "created", "app", "data"],
        "additionalProperties": False,
    }


def _webhook(kind: str) -> dict[str, Any]:
    """The document's ``webhooks`` entry of one kind: the POST a receiver gets."""
    name = notice_component(kind)
    return {
        "post": {
            "operationId": name[0].lower() + name[1:],
            "summary": f"{kind}: {NOTICE_WHEN[kind].split(';')[0]}",
            "description": "A signed delivery to each endpoint of the app registered for "
            f"`{kind}` (docs/webhooks.md): at least once, retried until a 2xx answer",
            "tags": ["Webhooks"],
            "parameters": copy.deepcopy(DELIVERY_HEADERS),
            "requestBody": {
                "required": True,
                "content": {"application/json": {"schema": component_ref(name)}},
            },
            "responses": {
                "2XX": {"description": "Received: the delivery is done"},
                "4XX": {"description": "Refused: tried again later, as any answer but 2xx"},
            },
        }
    }


#: One message of the SSE stream, as an EventSource parses it (OpenAPI 3.2's event object).
STREAM_MESSAGE = {
    "type": "object",
    "description": "One Server-Sent Events message. Each game event: `id:` its version, "
    "`event:` its `type`, `data:` a StreamEvent as JSON. After the game's last event: "
    "`event: end`, `data:` a StreamEnd, no `id` of its own; then the stream closes",
    "properties": {
        "event": {"type": "string", "description": "The event's `type`, or `end`"},
        "id": {"type": "string", "pattern": "^[0-9]+$", "description": "The event's version"},
        "data": {
            "type": "string",
            "contentMediaType": "application/json",
            "contentSchema": component_ref("StreamData"),
        },
        "retry": {"type": "integer", "minimum": 0},
    },
    "required": ["event", "data"],
}


def register_components(spec: APISpec) -> None:
    """Add the shared components to ``spec``: the hand-written ones (Card, Seat,
    Action, ...), the Problem body, the unions (jobs on `kind`, events and stream
    events on `type`, replay steps on `kind`), the SSE payloads and a line of a
    client's export of its games.

    The document's root says ``security: []``: an operation without its own
    ``security`` needs no credentials (public, or optional: see
    ``service.web.operations``)."""
    from schemas.bots import JOB_KINDS, ReplayExportSchema
    from schemas.events import EVENT_COMPONENTS, EVENT_TYPES, STREAM_EVENT_TYPES
    from schemas.games import GameExportLineSchema, StreamEndSchema
    from schemas.players import PlayerExportSchema
    from schemas.problems import ProblemSchema
    from schemas.replay_steps import STEP_KINDS
    from schemas.tournaments import TournamentNoticeDataSchema
    from schemas.webhooks import NoticeDataSchema

    spec.options["security"] = []
    # flask-smorest's pagination header schema: no operation here pages with it.
    spec.components.schemas.pop("PaginationMetadata", None)
    for name, schema in shared_components().items():
        spec.components.schema(name, schema)
    spec.components.schema("FieldErrors", FIELD_ERRORS)
    spec.components.schema("WorkerCounts", WORKER_COUNTS)
    spec.components.schema("Problem", schema=ProblemSchema)
    names = {kind: f"{kind.capitalize()}Job" for kind in JOB_KINDS}
    for kind, job in JOB_KINDS.items():
        spec.components.schema(names[kind], schema=job)
    spec.components.schema(
        "Job", _union(names, "kind", "A job and, once finished, its typed result; keyed on `kind`")
    )
    events = {kind: EVENT_COMPONENTS[kind][0] for kind in EVENT_TYPES}
    for kind, schema in EVENT_TYPES.items():
        spec.components.schema(events[kind], schema=schema)
    spec.components.schema(
        "Event", _union(events, "type", "One event of the log as the caller may see it (R11)")
    )
    streamed = {kind: EVENT_COMPONENTS[kind][1] for kind in EVENT_TYPES}
    for kind, schema in STREAM_EVENT_TYPES.items():
        spec.components.schema(streamed[kind], schema=schema)
    spec.components.schema(
        "StreamEvent",
        _union(streamed, "type", "The data of one event of the SSE stream: an Event, and on "
                                 "the last of a burst with include=view the caller's `view`"),
    )  # fmt: skip
    spec.components.schema("StreamEnd", schema=StreamEndSchema)
    spec.components.schema("StreamData", STREAM_DATA)
    spec.components.schema("StreamMessage", STREAM_MESSAGE)
    steps = {kind: schema.__name__.removesuffix("Schema") for kind, schema in STEP_KINDS.items()}
    for kind, schema in STEP_KINDS.items():
        spec.components.schema(steps[kind], schema=schema)
    spec.components.schema(
        "ReplayStep",
        _union(steps, "kind", "One frame of a replay as the caller may see it (R11); keyed on "
                              "`kind`: deal, trick, result, now, game"),
    )  # fmt: skip
    spec.components.schema("ReplayExport", schema=ReplayExportSchema)
    spec.components.schema("GameExportLine", schema=GameExportLineSchema)
    spec.components.schema("PlayerExport", schema=PlayerExportSchema)
    spec.components.schema("NoticeData", schema=NoticeDataSchema)
    spec.components.schema("TournamentNoticeData", schema=TournamentNoticeDataSchema)
    notices = {kind: notice_component(kind) for kind in NOTICE_KINDS}
    for kind, name in notices.items():
        spec.components.schema(name, _notice(kind))
    spec.components.schema(
        "Notice",
        _union(notices, "type", "The body of a webhook delivery, keyed on `type`: one notice"),
    )
    spec.options["webhooks"] = {kind: _webhook(kind) for kind in NOTICE_KINDS}
