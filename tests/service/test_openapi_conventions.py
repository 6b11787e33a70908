"""The conventions of openapi.yaml that make generated clients good.

Checked over the committed document (which tests/service/test_openapi.py keeps
equal to the code), for EVERY operation, so that a new endpoint fails here
until it follows them: service/web/operations.py is the helper that applies
them, docs/api.md ("Operations") lists the operation ids.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from service.bots import LEVELS
from service.engine.actions import ActionType
from service.engine.cards import Card
from service.ops.settings import DEFAULTS
from tests.support.openapi_document import DOCUMENT, OPERATIONS, component, ids, ref, resolve
from tests.support.paths import REPO

CAMEL_CASE = re.compile(r"[a-z][a-zA-Z0-9]*")
#: Every /v1 request can meet a bad client key, a rate limit, a store that is down,
#: or a failure of the server.
EVERY_V1_PROBLEM = {"401", "429", "500", "503"}
#: Every request with a JSON body can be malformed, too large, untyped or invalid.
BODY_PROBLEMS = {"400", "413", "415", "422"}


@pytest.mark.parametrize(("path", "method", "operation"), OPERATIONS, ids=ids())
def test_every_operation_has_a_camel_case_operation_id_and_a_summary(path, method, operation):
    assert CAMEL_CASE.fullmatch(operation.get("operationId", "")), operation.get("operationId")
    assert operation.get("summary", "").strip()


def test_operation_ids_are_unique_and_listed_in_the_api_guide():
    found = [operation["operationId"] for _, _, operation in OPERATIONS]
    assert len(found) == len(set(found))
    guide = (REPO / "docs" / "api.md").read_text()
    for path, method, operation in OPERATIONS:
        row = f"| `{operation['operationId']}` | `{method.upper()} {path}` |"
        assert row in guide, f"docs/api.md lists no {row}"


def documented_security() -> dict[str, set[str]]:
    """Per operationId, the security column of docs/api.md's operations table."""
    rows = re.findall(r"^\| `(\w+)` \| `[A-Z]+ [^`]+` \| ([\w, ]+) \|$",
                      (REPO / "docs" / "api.md").read_text(), re.MULTILINE)  # fmt: skip
    return {
        operation_id: {name.strip() for name in column.split(",")} for operation_id, column in rows
    }


@pytest.mark.parametrize(("path", "method", "operation"), OPERATIONS, ids=ids())
def test_every_operation_says_which_credentials_it_requires_or_reads(path, method, operation):
    # Required credentials are `security`; an operation a caller may also use without
    # any (public, a spectator, anonymous) has no `security` (the root's [] holds), and
    # names the credentials it reads when sent in x-optional-security.
    assert DOCUMENT["security"] == []
    schemes = DOCUMENT["components"]["securitySchemes"]
    accepted = documented_security()[operation["operationId"]]
    security = operation.get("security")
    optional = operation.get("x-optional-security")
    if "none" in accepted:
        assert security is None, security
        named = {name for requirement in optional or [] for name in requirement}
        assert named == accepted - {"none"}, optional
    else:
        assert optional is None and security, "declare the credentials it requires"
        assert {name for requirement in security for name in requirement} == accepted
    for requirement in (security or []) + (optional or []):
        assert requirement and set(requirement) <= set(schemes), requirement


@pytest.mark.parametrize(("path", "method", "operation"), OPERATIONS, ids=ids())
def test_every_operation_documents_its_problem_answers(path, method, operation):
    responses = operation["responses"]
    problems = {status for status in responses if status[0] in "45"}
    assert "500" in problems
    if path.startswith("/v1/"):
        assert problems >= EVERY_V1_PROBLEM, EVERY_V1_PROBLEM - problems
    if "requestBody" in operation:
        assert problems >= BODY_PROBLEMS, BODY_PROBLEMS - problems
    if "{" in path:
        assert "404" in problems
    for status in problems:
        content = resolve(responses[status])["content"]
        assert list(content) == ["application/problem+json"], (status, list(content))
        assert content["application/problem+json"]["schema"] == ref("Problem")


@pytest.mark.parametrize(("path", "method", "operation"), OPERATIONS, ids=ids())
def test_every_request_body_and_main_answer_has_an_example(path, method, operation):
    for media in operation.get("requestBody", {}).get("content", {}).values():
        assert "example" in media or "examples" in media, "the request body has no example"
    for status, response in operation["responses"].items():
        if status.startswith("2"):
            for kind, media in resolve(response).get("content", {}).items():
                if kind == "application/json":
                    assert "example" in media or "examples" in media, f"{status} has no example"


def object_schemas(node: Any, seen: set[str]) -> Iterator[dict[str, Any]]:
    """Every object schema reachable from ``node``, components followed once each."""
    if isinstance(node, dict):
        if "$ref" in node:
            name = node["$ref"]
            if name not in seen:
                seen.add(name)
                yield from object_schemas(resolve(node), seen)
            return
        if "properties" in node:
            yield node
        for key, value in node.items():
            if key not in ("example", "examples"):
                yield from object_schemas(value, seen)
    elif isinstance(node, list):
        for item in node:
            yield from object_schemas(item, seen)


def test_every_response_object_schema_lists_its_required_fields():
    seen: set[str] = set()
    missing = []
    for path, method, operation in OPERATIONS:
        for response in operation["responses"].values():
            for schema in object_schemas(resolve(response).get("content", {}), seen):
                if not schema.get("required"):
                    missing.append((method, path, sorted(schema["properties"])[:4]))
    assert not missing, missing


def walk(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from walk(value)
    elif isinstance(node, list):
        for item in node:
            yield from walk(item)


def test_nullable_the_3_1_way_and_no_enum_repeated():
    cards = sorted(card.value for card in Card)
    enums = []
    for node in walk(DOCUMENT):
        assert "nullable" not in node, node
        if isinstance(node.get("enum"), list):
            assert None not in node["enum"], node  # null is a type, not a member
            enums.append(tuple(node["enum"]))
    assert [enum for enum in enums if sorted(map(str, enum)) == cards] == [
        tuple(component("Card")["enum"])
    ]
    assert enums.count((0, 1)) == 1, "the seat enum is written once, as Seat"
    assert enums.count(tuple(component("Suit")["enum"])) == 1


def test_shared_components_for_cards_suits_and_seats():
    assert component("Card") == {"type": "string", "enum": [card.value for card in Card],
                                 "description": component("Card")["description"]}  # fmt: skip
    assert component("Suit")["enum"] == ["C", "D", "H", "S"]
    assert component("Seat")["enum"] == [0, 1]
    deal = component("DealView")["properties"]
    assert deal["hand"]["items"] == ref("Card")
    assert deal["trump_card"] == {
        "anyOf": [ref("Card"), {"type": "null"}],
        **_description(deal["trump_card"]),
    }
    assert deal["dealer"] == ref("Seat") or deal["dealer"].get("$ref") == ref("Seat")["$ref"]


def _description(node: dict[str, Any]) -> dict[str, Any]:
    return {"description": node["description"]} if "description" in node else {}


def test_action_is_a_union_keyed_on_type_with_one_schema_per_action():
    action = component("Action")
    assert action["discriminator"]["propertyName"] == "type"
    mapping = action["discriminator"]["mapping"]
    assert set(mapping) == {kind.value for kind in ActionType}
    assert action["oneOf"] == [{"$ref": target} for target in mapping.values()]
    needs = {"play": {"type", "card"}, "declare_marriage": {"type", "suit"}}
    for kind, target in mapping.items():
        variant = resolve({"$ref": target})
        assert set(variant["required"]) == needs.get(kind, {"type"}), kind
        assert variant["properties"]["type"]["enum"] == [kind]
        assert variant["additionalProperties"] is False
    play = resolve({"$ref": mapping["play"]})
    assert play["properties"]["card"] == ref("Card")


def test_the_view_lists_legal_actions_that_can_be_posted_as_they_are():
    assert component("LegalAction") == ref("Action")
    legal = component("DealView")["properties"]["legal_actions"]
    assert legal["items"] == ref("LegalAction")
    body = DOCUMENT["paths"]["/v1/games/{game_id}/actions"]["post"]["requestBody"]
    assert body["content"]["application/json"]["schema"] == ref("Action")


def test_every_job_result_is_typed():
    job = component("Job")
    assert job["discriminator"]["propertyName"] == "kind"
    results = {}
    for kind, target in job["discriminator"]["mapping"].items():
        variant = resolve({"$ref": target})
        results[kind] = {"$ref": variant["properties"]["result"]["$ref"]}
    assert results == {"move": ref("BotDecision"), "hint": ref("HintResult"),
                       "export": ref("ExportResult"),
                       "analysis": ref("AnalysisResult")}  # fmt: skip
    for name in ("BotDecision", "HintResult", "ExportResult", "AnalysisResult"):
        assert component(name)["required"]
    job_answer = DOCUMENT["paths"]["/v1/jobs/{job_id}"]["get"]["responses"]["200"]
    assert job_answer["content"]["application/json"]["schema"] == ref("Job")


def test_the_event_stream_and_its_payloads_are_described():
    answer = DOCUMENT["paths"]["/v1/games/{game_id}/stream"]["get"]["responses"]["200"]
    stream = answer["content"]["text/event-stream"]
    # In a 3.1 document a stream's schema is one message's, as 3.2's itemSchema is.
    assert stream == {"schema": ref("StreamMessage")}
    message = component("StreamMessage")
    assert message["properties"]["data"]["contentSchema"] == ref("StreamData")
    assert message["properties"]["data"]["contentMediaType"] == "application/json"
    assert set(message["required"]) == {"event", "data"}
    assert component("StreamData")["oneOf"] == [ref("StreamEvent"), ref("StreamEnd")]
    assert set(component("StreamEnd")["required"]) == {"version", "status", "winner", "game_points"}
    assert component("StreamEvent")["discriminator"]["propertyName"] == "type"


def test_the_export_download_is_described():
    answer = DOCUMENT["paths"]["/v1/exports/{export_id}"]["get"]["responses"]["200"]
    assert set(answer["content"]) == {"application/json", "application/x-ndjson", "text/plain"}
    assert {"ETag", "Repr-Digest", "Content-Disposition"} <= set(answer["headers"])


def test_wait_is_capped_in_the_spec_as_on_the_server():
    events = DOCUMENT["paths"]["/v1/games/{game_id}/events"]["get"]
    wait = next(p for p in events["parameters"] if p["name"] == "wait")
    assert wait["schema"]["maximum"] == DEFAULTS["LONG_POLL_MAX_SECONDS"] == 30
    job = DOCUMENT["paths"]["/v1/jobs/{job_id}"]["get"]
    wait = next(p for p in job["parameters"] if p["name"] == "wait")
    assert wait["schema"]["maximum"] == DEFAULTS["JOB_WAIT_MAX_SECONDS"]


def test_opponent_level_is_an_enum_of_the_real_levels():
    level = component("Opponent")["properties"]["level"]
    assert resolve(level)["enum"] == list(LEVELS)
