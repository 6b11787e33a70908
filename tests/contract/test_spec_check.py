"""The spec checker finds what an answer does wrong, on the project's own document.

The contract tests' 0 mismatches mean something only if the checker reports a
mismatch when there is one: a validator that passed everything would make them
pass too. Each case here is an answer a client would trip on.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from service.web.openapi import OPENAPI_FILE
from tests.contract.spec_check import Answer, SpecChecker
from tests.support.openapi_document import load_yaml

GAME = "/v1/games/{game_id}"


@pytest.fixture(scope="module")
def checker() -> SpecChecker:
    return SpecChecker(load_yaml(OPENAPI_FILE.read_text()))


def answer(path: str, status: int, body: Any, media: str = "application/json") -> Answer:
    return Answer(path, "get", status, media, json.dumps(body).encode())


def problem(**changes: Any) -> dict[str, Any]:
    found = {"type": "about:blank", "title": "Not Found", "status": 404, "code": "not_found",
             "detail": "no game g_1", "instance": "/v1/games/g_1"}  # fmt: skip
    return {**found, **changes}


def test_a_documented_problem_has_no_mismatch(checker: SpecChecker) -> None:
    assert checker.mismatches(answer(GAME, 404, problem(), "application/problem+json")) == []


def test_a_problem_without_a_required_field_is_a_mismatch(checker: SpecChecker) -> None:
    body = problem()
    del body["code"]
    found = checker.mismatches(answer(GAME, 404, body, "application/problem+json"))
    assert len(found) == 1 and '"code" is a required property' in found[0], found


def test_a_field_of_the_wrong_type_is_a_mismatch_at_its_place(checker: SpecChecker) -> None:
    found = checker.mismatches(answer(GAME, 404, problem(status="404"), "application/problem+json"))
    assert len(found) == 1 and found[0].startswith("GET /v1/games/{game_id} -> 404: at status:")


def test_an_undocumented_status_or_media_type_is_a_mismatch(checker: SpecChecker) -> None:
    assert checker.mismatches(answer(GAME, 418, problem())) == [
        "GET /v1/games/{game_id} -> 418: status not documented"
    ]
    found = checker.mismatches(answer(GAME, 404, problem(), "text/html"))
    assert len(found) == 1 and "text/html not documented" in found[0]


def test_an_event_of_no_documented_kind_is_a_mismatch_in_the_union(checker: SpecChecker) -> None:
    events = {"type": "array", "items": checker.component("Event")}
    found = checker.body_mismatches("events", events, [{"type": "card_burned", "card": "HA"}])
    assert len(found) == 1 and found[0].startswith("events: at 0:"), found


def test_a_union_whose_members_overlap_is_a_mismatch(checker: SpecChecker) -> None:
    overlapping = {"oneOf": [{"type": "integer"}, {"type": "number"}]}
    assert checker.body_mismatches("overlap", overlapping, 1.5) == []
    found = checker.body_mismatches("overlap", overlapping, 1)
    assert len(found) == 1 and "more than one" in found[0], found
