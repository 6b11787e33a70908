"""Retried POSTs of players, seeks and challenges with the same Idempotency-Key make
nothing new and answer the same player, token, seek or challenge; a token is kept only
in the first answer, and that only for the retry window."""

from __future__ import annotations

import uuid

from service.ops import settings
from tests.support.players import bearer, new_app


def _key() -> dict[str, str]:
    return {"Idempotency-Key": str(uuid.uuid4())}


def test_a_retried_registration_answers_the_same_token_and_the_token_stays_valid(
    client, redis_client
):
    app = new_app(redis_client)
    headers = {**app.headers, **_key()}
    body = {"app_player_id": "retry-1", "name": "Anna"}
    first = client.post("/v1/players", json=body, headers=headers).json
    second = client.post("/v1/players", json=body, headers=headers).json
    assert first == second
    assert client.get("/v1/players/me", headers=bearer(first["token"])).status_code == 200
    # the token names no key, and only its first answer holds it, for the retry window
    assert not [k for k in redis_client.scan_iter(match="*") if first["token"].encode() in k]
    holding = [
        k
        for k in redis_client.scan_iter(match="*")
        if redis_client.type(k) == b"string" and first["token"].encode() in redis_client.get(k)
    ]
    assert len(holding) == 1
    assert 0 < redis_client.ttl(holding[0]) <= settings.DEFAULTS["IDEMPOTENCY_SECONDS"]
    other = client.post("/v1/players", json=body, headers={**app.headers, **_key()}).json
    assert other["token"] != first["token"]  # a new key: a new token, the old one replaced
    assert client.get("/v1/players/me", headers=bearer(first["token"])).status_code == 401


def test_a_retried_seek_is_the_same_seek_and_a_retried_challenge_the_same_challenge(
    client, redis_client
):
    app = new_app(redis_client)
    tokens = [
        client.post(
            "/v1/players", json={"app_player_id": f"r{n}", "name": f"R {n}"}, headers=app.headers
        ).json
        for n in range(2)
    ]
    key = _key()
    first = client.post("/v1/seeks", json={}, headers={**bearer(tokens[0]["token"]), **key})
    second = client.post("/v1/seeks", json={}, headers={**bearer(tokens[0]["token"]), **key})
    assert first.status_code == second.status_code == 201
    assert first.json["seek_id"] == second.json["seek_id"]
    assert second.json["status"] == "waiting"
    pool = f"sch:{{client:{app.id}}}:pool"
    assert redis_client.zcard(pool) == 1
    client.delete(f"/v1/seeks/{first.json['seek_id']}", headers=bearer(tokens[0]["token"]))

    key = _key()
    body = {"player_id": tokens[1]["player"]["player_id"]}
    made = [
        client.post("/v1/challenges", json=body, headers={**bearer(tokens[0]["token"]), **key})
        for _ in range(2)
    ]
    assert made[0].json["challenge_id"] == made[1].json["challenge_id"]
    listed = client.get("/v1/challenges", headers=bearer(tokens[1]["token"])).json["challenges"]
    assert len(listed) == 1
