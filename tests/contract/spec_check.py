"""Every answer a client gets, checked against openapi.yaml with a JSON Schema validator.

A generated client trusts the document: a field the spec calls required that
an answer leaves out is a crash in the client (``KeyError``), a value outside
an enum a wrong type. ``SpecChecker`` finds the documented answer of an
operation (its status, its content type) and validates the body against its
schema with the document's components, so every ``$ref`` is the spec's own.
``oneOf`` is checked as JSON Schema says: exactly one member matches, so a
union whose members overlap fails here as it would confuse a client.

The validator is jsonschema-rs (Draft 2020-12; schemathesis depends on it too): a
whole game's answers, replays at every version among them, are thousands of events
in nested unions, and the pure-Python validator spent minutes on them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import httpx
from jsonschema_rs import Draft202012Validator

METHODS = ("get", "put", "post", "delete", "patch")


@dataclass(frozen=True)
class Answer:
    """One answer received: the operation it answers and what came back."""

    path: str  # the template, as openapi.yaml writes it
    method: str
    status: int
    content_type: str
    body: bytes

    def label(self) -> str:
        return f"{self.method.upper()} {self.path} -> {self.status}"


@dataclass
class SpecChecker:
    document: dict[str, Any]
    checked: list[str] = field(default_factory=list)

    validators: dict[str, Draft202012Validator] = field(default_factory=dict)

    def validator(self, schema: dict[str, Any]) -> Draft202012Validator:
        # The components ride along at the root, so "#/components/schemas/X" resolves. One
        # validator per schema: it keeps the references it resolved (a game's answers are
        # hundreds of GameViews).
        key = json.dumps(schema, sort_keys=True)
        if key not in self.validators:
            root = {**schema, "components": self.document["components"]}
            self.validators[key] = Draft202012Validator(root)
        return self.validators[key]

    def component(self, name: str) -> dict[str, Any]:
        return {"$ref": f"#/components/schemas/{name}"}

    def resolve(self, node: Any) -> Any:
        while isinstance(node, dict) and "$ref" in node:
            target: Any = self.document
            for part in node["$ref"].removeprefix("#/").split("/"):
                target = target[part]
            node = target
        return node

    def mismatches(self, answer: Answer) -> list[str]:
        """What in ``answer`` the document does not say (empty: it matches)."""
        self.checked.append(answer.label())
        operation = self.document["paths"].get(answer.path, {}).get(answer.method)
        if operation is None:
            return [f"{answer.label()}: no such operation in the spec"]
        response = operation["responses"].get(str(answer.status))
        if response is None:
            return [f"{answer.label()}: status not documented"]
        content = self.resolve(response).get("content")
        if answer.status in (204, 304):
            # No body by HTTP (RFC 9110 15.3.5, 15.4.5), and none documented: a media type
            # there makes generated clients type the answer as text.
            found = [f"{answer.label()}: a body on a {answer.status}"] if answer.body else []
            if content:
                found.append(f"{answer.label()}: the spec documents content on a {answer.status}")
            return found
        if not content:
            return [] if not answer.body else [f"{answer.label()}: a body where none is documented"]
        media = answer.content_type.split(";")[0].strip()
        if media not in content:
            return [f"{answer.label()}: {media} not documented ({', '.join(content)})"]
        schema = content[media].get("schema")
        if media == "text/event-stream":
            return self.stream_mismatches(answer, schema)
        if media == "application/x-ndjson":
            return self.lines_mismatches(answer.label(), schema, answer.body.decode())
        if not media.endswith("json"):
            return []
        return self.body_mismatches(answer.label(), schema, json.loads(answer.body))

    def body_mismatches(self, label: str, schema: dict[str, Any], body: Any) -> list[str]:
        errors = sorted(self.validator(schema).iter_errors(body),
                        key=lambda e: list(map(str, e.instance_path)))  # fmt: skip
        return [f"{label}: at {'/'.join(map(str, e.instance_path)) or '.'}: {e.message[:300]}"
                for e in errors]  # fmt: skip

    def stream_mismatches(self, answer: Answer, schema: dict[str, Any]) -> list[str]:
        """Each SSE message against the stream's schema (one message's, as 3.2's
        itemSchema is), and its data against the schema of a message's data."""
        data_schema = self.resolve(schema).get("properties", {}).get("data", {})
        if "contentSchema" not in data_schema:
            return [f"{answer.label()}: the stream documents no schema for its data"]
        found: list[str] = []
        for event, data in sse_messages(answer.body.decode()):
            body = json.loads(data)
            label = f"{answer.label()} event {event}"
            found += self.body_mismatches(label, schema, {"event": event, "data": data})
            found += self.body_mismatches(label, data_schema["contentSchema"], body)
            if event != "end" and body.get("type") != event:
                found.append(f"{label}: data type {body.get('type')!r}")
        return found

    def lines_mismatches(self, label: str, schema: dict[str, Any], text: str) -> list[str]:
        """Each line of an NDJSON body against the schema its `contentSchema` names."""
        line_schema = self.resolve(schema).get("contentSchema")
        if line_schema is None:
            return [f"{label}: the NDJSON body documents no schema for its lines"]
        return [found for number, line in enumerate(text.splitlines(), 1) if line
                for found in self.body_mismatches(f"{label} line {number}", line_schema,
                                                  json.loads(line))]  # fmt: skip

    def notice_mismatches(self, body: bytes, headers: dict[str, str]) -> list[str]:
        """A webhook delivery against the document's ``webhooks`` entry of its kind."""
        notice = json.loads(body)
        kind = notice.get("type")
        entry = self.document.get("webhooks", {}).get(kind, {}).get("post")
        label = f"webhook {kind}"
        self.checked.append(label)
        if entry is None:
            return [f"{label}: no such webhook in the spec"]
        found = [f"{label}: no {p['name']} header" for p in entry.get("parameters", [])
                 if p.get("required") and p["name"].lower() not in headers]  # fmt: skip
        schema = entry["requestBody"]["content"]["application/json"]["schema"]
        return found + self.body_mismatches(label, schema, notice)


def sse_messages(text: str) -> list[tuple[str, str]]:
    """The (event, data) pairs of a Server-Sent Events body."""
    messages = []
    for block in text.split("\n\n"):
        fields_ = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "data" in fields_:
            messages.append((fields_.get("event", "message"), fields_["data"]))
    return messages


class RecordingClient:
    """An httpx client that keeps every answer with the operation it answers."""

    def __init__(self, base_url: str, answers: list[Answer], headers: dict[str, str] | None = None):
        self.http = httpx.Client(base_url=base_url, headers=headers or {}, timeout=60)
        self.answers = answers

    def call(self, method: str, path: str, *, params: dict[str, Any] | None = None,
             query: dict[str, Any] | None = None, **kwargs: Any) -> httpx.Response:  # fmt: skip
        """``path`` is the spec's template, ``params`` fill it, ``query`` is the query."""
        url = path.format(**(params or {}))
        response = self.http.request(method.upper(), url, params=query, **kwargs)
        self.answers.append(
            Answer(
                path,
                method,
                response.status_code,
                response.headers.get("content-type", ""),
                response.content,
            )  # fmt: skip
        )
        return response

    def close(self) -> None:
        self.http.close()
