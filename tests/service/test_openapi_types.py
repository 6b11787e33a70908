"""openapi.yaml's types say the truth an integrator's generated client relies on.

Over the committed document (kept equal to the code by test_openapi.py): no
answer holds a free-form object, the unions (events, stream events, replay
steps) are keyed on their type, every closed set of strings is an enum,
request fields the server fills in carry no ``default`` (openapi-typescript
would make them required), and the answers without a body (304, 204) document no content.
tests/contract/test_answers_match_spec.py proves the live answers match.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from service.engine.outcomes import DealEndReason
from service.game.bot_levels import LEVELS
from service.game.replay_export import CONTENT_TYPES
from tests.support.openapi_document import DOCUMENT, OPERATIONS, component, ref, resolve

EVENT_TYPES = ["game_created", "seat_taken", "deal_started", "action_taken", "clock_moved",
               "resigned", "aborted", "timeout_claimed"]  # fmt: skip
STEP_KINDS = ["deal", "trick", "result", "now", "game"]


def schemas_under(node: Any, seen: set[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema node reachable from ``node`` with where it is; components once each."""
    if isinstance(node, dict):
        if "$ref" in node:
            if node["$ref"] not in seen:
                seen.add(node["$ref"])
                yield from schemas_under(resolve(node), seen)
            return
        yield "", node
        for key, value in node.items():
            if key not in ("example", "examples", "discriminator", "x-sse-events"):
                for where, found in schemas_under(value, seen):
                    yield f"{key}/{where}", found
    elif isinstance(node, list):
        for item in node:
            yield from schemas_under(item, seen)


def answer_schemas() -> list[dict[str, Any]]:
    return [
        media["schema"]
        for _, _, operation in OPERATIONS
        for response in operation["responses"].values()
        for media in resolve(response).get("content", {}).values()
        if "schema" in media
    ]


def loose(node: dict[str, Any]) -> bool:
    """An object that says nothing of its fields, or takes any field of any type."""
    extra = node.get("additionalProperties")
    if extra is True or extra == {}:
        return True
    if node.get("type") == "object":
        return not node.get("properties") and not isinstance(extra, dict)
    return False


def test_no_answer_holds_a_free_form_object():
    found = [where for where, node in schemas_under(answer_schemas(), set()) if loose(node)]
    assert found == []


def test_no_request_field_carries_a_default():
    bodies = [
        media["schema"]
        for _, _, operation in OPERATIONS
        for media in operation.get("requestBody", {}).get("content", {}).values()
    ]
    found = [where for where, node in schemas_under(bodies, set()) if "default" in node]
    assert found == []
    assert 'Default: `"head"`' in component("CreateGame")["properties"]["variant"]["description"]


@pytest.mark.parametrize(
    ("union", "key", "members"),
    [
        ("Event", "type", EVENT_TYPES),
        ("StreamEvent", "type", EVENT_TYPES),
        ("ReplayStep", "kind", STEP_KINDS),
    ],  # fmt: skip
)
def test_events_stream_events_and_replay_steps_are_unions_keyed_on_their_type(union, key, members):
    schema = component(union)
    assert schema["discriminator"]["propertyName"] == key
    mapping = schema["discriminator"]["mapping"]
    assert list(mapping) == members
    assert schema["oneOf"] == [{"$ref": target} for target in mapping.values()]
    for value, target in mapping.items():
        member = resolve({"$ref": target})
        assert key in member["required"] and member["properties"][key]["enum"] == [value]
        assert "to_move" in member["required"] or key == "kind"


def test_the_answers_name_the_unions():
    assert component("Replay")["properties"]["events"]["items"] == ref("Event")
    assert component("Replay")["properties"]["steps"]["items"] == ref("ReplayStep")
    assert component("EventFeed")["properties"]["events"]["items"] == ref("Event")
    assert component("ReplayExport")["properties"]["events"]["items"] == ref("Event")
    assert component("StreamActionTakenEvent")["properties"]["view"]["$ref"].endswith("GameView")


#: What only the live view carries: the standing invite, the rematch links, and whether
#: the game is rated (its seats record's, not its log's).
LIVE_VIEW_FIELDS = {"invite", "rematch", "rematch_of", "rated", "pool"}


def test_a_replay_state_is_a_view_without_the_invite_and_the_rematch_links():
    state = component("Replay")["properties"]["state"]
    assert state["$ref"] == ref("ReplayState")["$ref"]
    for name in LIVE_VIEW_FIELDS:
        assert name not in component("ReplayState")["properties"]
        assert name in component("GameView")["required"]
    assert component("ReplayExport")["properties"]["state"]["$ref"] == ref("GameState")["$ref"]
    assert set(component("ReplayState")["required"]) == (
        set(component("GameView")["required"]) - LIVE_VIEW_FIELDS
    )


def test_every_closed_set_of_strings_is_an_enum():
    reason = component("DealResult")["properties"]["reason"]
    assert reason["enum"] == [reason.value for reason in DealEndReason]
    assert component("BotLevels")["properties"]["default_level"]["$ref"] == ref("BotLevel")["$ref"]
    assert component("BotLevel")["enum"] == list(LEVELS)
    for name, field in [("BotLevelInfo", "name"), ("Strength", "opponent"), ("Analysis", "level")]:
        assert component(name)["properties"][field]["$ref"] == ref("BotLevel")["$ref"], name
    assert component("ExportResult")["properties"]["content_type"]["enum"] == list(
        CONTENT_TYPES.values()
    )
    assert component("ReplayExport")["properties"]["format"]["enum"] == ["schnapsen-replay"]
    assert component("Readiness")["properties"]["status"]["enum"] == ["ready"]
    assert component("Health")["properties"]["status"]["enum"] == ["ok"]


def test_fields_always_sent_are_required():
    assert "strength_note" in component("BotLevelInfo")["required"]
    assert "instance" in component("Problem")["required"]
    assert set(component("ReadinessChecks")["required"]) == {
        "redis",
        "queue_redis",
        "store",
        "workers",
    }


def test_answers_without_a_body_document_no_content():
    # RFC 9110: a 304 and a 204 end at their headers. A documented media type made
    # openapi-python-client type getGame's answer as `GameView | Problem | str`.
    paths = DOCUMENT["paths"]
    for answer in (
        paths["/v1/games/{game_id}"]["get"]["responses"]["304"],
        paths["/v1/games/{game_id}/stream"]["get"]["responses"]["204"],
        paths["/v1/webhooks/{webhook_id}"]["delete"]["responses"]["204"],
    ):
        assert "content" not in answer, answer
    assert "Empty" not in DOCUMENT["components"]["schemas"]
