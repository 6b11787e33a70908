"""Registering, reading, changing and deleting webhook endpoints (the app in this process,
a real Redis); nothing here delivers, so no URL is ever connected to."""

from __future__ import annotations

import uuid

from tests.support.players import new_app


def _key() -> dict[str, str]:
    return {"Idempotency-Key": str(uuid.uuid4())}


def test_a_retried_registration_answers_the_same_endpoint_and_a_retried_rotation_one_secret(
    client, redis_client
):
    app = new_app(redis_client)
    body = {"url": "https://hooks.example.com/schnapsen", "events": ["game.turn"]}
    headers = {**app.headers, **_key()}
    first = client.post("/v1/webhooks", json=body, headers=headers)
    second = client.post("/v1/webhooks", json=body, headers=headers)
    assert first.status_code == second.status_code == 201, first.json
    assert first.json == second.json and first.json["secret"].startswith("whsec_")
    assert len(client.get("/v1/webhooks", headers=app.headers).json["webhooks"]) == 1
    hook = first.json["webhook_id"]
    rotation = {**app.headers, **_key()}
    rotated = [
        client.post(f"/v1/webhooks/{hook}/secret", headers=rotation).json["secret"]
        for _ in range(2)
    ]
    assert rotated[0] == rotated[1] != first.json["secret"]
    # listings never show a secret
    listed = client.get("/v1/webhooks", headers=app.headers).json["webhooks"]
    assert (
        "secret" not in listed[0]
        and "secret" not in client.get(f"/v1/webhooks/{hook}", headers=app.headers).json
    )


def test_an_endpoint_is_changed_paused_and_deleted_and_another_app_sees_none_of_it(
    client, redis_client
):
    app, other = new_app(redis_client), new_app(redis_client)
    made = client.post(
        "/v1/webhooks", json={"url": "https://hooks.example.com/a"}, headers=app.headers
    ).json
    path = f"/v1/webhooks/{made['webhook_id']}"
    changed = client.patch(
        path, json={"events": ["game.finished"], "enabled": False}, headers=app.headers
    ).json
    assert changed["events"] == ["game.finished"] and changed["enabled"] is False
    for method in (client.get, client.delete):
        refused = method(path, headers=other.headers)
        assert refused.status_code == 404 and refused.json["code"] == "webhook_not_found"
    assert client.get("/v1/webhooks", headers=other.headers).json["webhooks"] == []
    assert client.delete(path, headers=app.headers).status_code == 204
    assert client.get(path, headers=app.headers).status_code == 404


def test_a_bad_endpoint_is_refused_with_a_problem_and_registers_nothing(client, redis_client):
    app = new_app(redis_client)
    for url, code in (
        ("ftp://hooks.example.com/x", "invalid_webhook_url"),
        ("https://user:pw@hooks.example.com/x", "invalid_webhook_url"),
        ("http://10.0.0.1/x", "webhook_address_refused"),
        ("http://169.254.169.254/latest/meta-data", "webhook_address_refused"),
        ("http://[::ffff:10.0.0.1]/x", "webhook_address_refused"),
        ("http://[fd00::1]/x", "webhook_address_refused"),
    ):
        answer = client.post("/v1/webhooks", json={"url": url}, headers=app.headers)
        assert answer.status_code == 422, (url, answer.json)
        assert answer.json["code"] == code, (url, answer.json)
    unknown = client.post(
        "/v1/webhooks",
        json={"url": "https://hooks.example.com/x", "events": ["game.nothing"]},
        headers=app.headers,
    )
    assert unknown.status_code == 422
    anonymous = client.post("/v1/webhooks", json={"url": "https://hooks.example.com/x"})
    assert anonymous.status_code == 401
    assert client.get("/v1/webhooks", headers=app.headers).json["webhooks"] == []
