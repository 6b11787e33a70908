"""How marshmallow schemas become openapi.yaml: shared components, 3.1 nullables.

apispec writes every field inline; a client generator then makes one type
per inline enum (24 card enums in the Python client). The converter here
documents the fields of ``schemas.components`` as a ``$ref`` to their shared
component, nullable the OpenAPI 3.1 way (``anyOf`` with ``{"type": "null"}``:
one enum type, no null member), and a marshmallow schema that names
``openapi_ref`` as that hand-written component (the action union).
"""

from __future__ import annotations

from typing import Any

import marshmallow
from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin, OpenAPIConverter
from apispec.ext.marshmallow.common import resolve_schema_cls

from schemas.components import ComponentField, component_ref, shared_components


class ContractConverter(OpenAPIConverter):
    """apispec's converter, with shared components and 3.1 nullables."""

    def field2property(self, field: marshmallow.fields.Field) -> dict[str, Any]:
        if isinstance(field, ComponentField):
            return _maybe_null(component_ref(field.component), field)
        if isinstance(field, marshmallow.fields.Nested) and _openapi_ref(field.nested):
            return _maybe_null(self.resolve_nested_schema(field.nested), field)
        prop = super().field2property(field)
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


class ContractPlugin(MarshmallowPlugin):
    Converter = ContractConverter


def register_components(spec: APISpec) -> None:
    """Add the shared components to ``spec``: the hand-written ones (Card, Seat,
    Action, ...), the Problem body, the job union and the SSE payloads (which no
    marshmallow-documented answer names, so they are added here)."""
    from schemas.bots import JOB_KINDS, ReplayExportSchema
    from schemas.games import StreamEndSchema, StreamEventSchema
    from schemas.problems import ProblemSchema

    for name, schema in shared_components().items():
        spec.components.schema(name, schema)
    spec.components.schema("Problem", schema=ProblemSchema)
    names = {kind: f"{kind.capitalize()}Job" for kind in JOB_KINDS}
    for kind, job in JOB_KINDS.items():
        spec.components.schema(names[kind], schema=job)
    spec.components.schema(
        "Job",
        {
            "description": "A job and, once finished, its typed result; keyed on `kind`",
            "oneOf": [component_ref(name) for name in names.values()],
            "discriminator": {
                "propertyName": "kind",
                "mapping": {kind: component_ref(name)["$ref"] for kind, name in names.items()},
            },
        },
    )
    spec.components.schema("StreamEvent", schema=StreamEventSchema)
    spec.components.schema("StreamEnd", schema=StreamEndSchema)
    spec.components.schema("ReplayExport", schema=ReplayExportSchema)
