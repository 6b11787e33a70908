"""What a generated client can type from openapi.yaml: every webhook notice, closed
values as enums, always-sent fields as required, and links from what a create makes.

Checked over the committed document (tests/service/test_openapi.py keeps it
equal to the code). A webhook notice is a ``webhooks`` entry (OpenAPI 3.1) per
kind, its body one component per kind and a union on ``type``; its ``game``
is the GameState a seat sees (the body ``service.game.notices.body`` makes).
"""

from __future__ import annotations

from service.game.notices import NoticeKind
from tests.support.openapi_document import DOCUMENT, component, ref

KINDS = [kind.value for kind in NoticeKind]


def test_every_kind_of_notice_is_a_webhook_with_its_own_body_schema():
    webhooks = DOCUMENT.get("webhooks", {})
    assert sorted(webhooks) == sorted(KINDS)
    union = component("Notice")
    mapping = union["discriminator"]["mapping"]
    assert union["discriminator"]["propertyName"] == "type" and sorted(mapping) == sorted(KINDS)
    for kind in KINDS:
        body = webhooks[kind]["post"]["requestBody"]["content"]["application/json"]["schema"]
        assert body == {"$ref": mapping[kind]}
        notice = component(body["$ref"].rsplit("/", 1)[1])
        assert notice["properties"]["type"] == {"type": "string", "enum": [kind]}
        assert set(notice["required"]) == {"id", "type", "created", "app", "data"}
        headers = {p["name"] for p in webhooks[kind]["post"]["parameters"]}
        # the Standard Webhooks headers a delivery carries, and its delivery log's id
        assert headers == {"webhook-id", "webhook-timestamp", "webhook-signature",
                           "Schnapsen-Delivery"}  # fmt: skip
    data = component("NoticeData")
    assert data["properties"]["game"]["$ref"] == ref("GameState")["$ref"]
    assert set(data["required"]) == {"game_id", "version", "seat", "player_id", "game"}


def test_closed_values_are_enums_and_always_sent_fields_are_required():
    for name in ("Seek", "Challenge"):
        schema = component(name)
        assert schema["properties"]["variant"] == ref("Variant"), name
        assert {"game_id", "seat", "token"} <= set(schema["required"]), name
        assert schema["properties"]["seat"]["anyOf"] == [ref("Seat"), {"type": "null"}], name
    assert component("Webhook")["properties"]["events"]["items"] == ref("NoticeKind")
    assert component("Delivery")["properties"]["kind"] == ref("NoticeKind")
    assert component("NoticeKind")["enum"] == KINDS
    body = component("Delivery")["properties"]["body"]
    assert body["contentSchema"] == ref("Notice")


def test_a_create_links_to_the_operations_that_take_what_it_made():
    def links(path: str, method: str, status: str) -> dict:
        return DOCUMENT["paths"][path][method]["responses"][status].get("links", {})

    game = links("/v1/games", "post", "201")
    assert {"GetGame", "TakeAction", "ListEvents", "GetReplay", "JoinGame"} <= set(game)
    assert game["GetGame"]["parameters"] == {"game_id": "$response.body#/game_id"}
    assert links("/v1/seeks", "post", "201")["GetSeek"]["parameters"] == {
        "seek_id": "$response.body#/seek_id"
    }
    assert links("/v1/webhooks", "post", "201")["ListDeliveries"]["operationId"] == (
        "listDeliveries"
    )
    assert links("/v1/players", "post", "201")["GetPlayer"]["parameters"] == {
        "player_id": "$response.body#/player/player_id"
    }
    assert links("/v1/bot/moves", "post", "202")["GetJob"]["parameters"] == {
        "job_id": "$response.body#/id"
    }
    operation_ids = {
        operation["operationId"]
        for item in DOCUMENT["paths"].values()
        for operation in item.values()
        if isinstance(operation, dict) and "operationId" in operation
    }
    every = [
        link["operationId"]
        for item in DOCUMENT["paths"].values()
        for operation in item.values()
        if isinstance(operation, dict)
        for answer in operation.get("responses", {}).values()
        for link in answer.get("links", {}).values()
    ]
    assert every and set(every) <= operation_ids
