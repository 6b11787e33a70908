"""Idempotency keys of callers who share one address (a carrier's NAT), over gunicorn.

Anonymous callers are told apart by their address only, so two phones behind
one address share one idempotency scope: a short key such as ``1`` or
``create-game`` sent by both would hand the second phone the first one's
game. Where a key's scope is an address (no client key, no seat token), a
key shorter than 16 characters is refused with 422
``idempotency_key_too_short`` and nothing is created; a caller with a client
key keeps its own scope and its own keys, and a seat's keys are private to
its token.
"""

from __future__ import annotations

import uuid

import pytest

from tests.support.admin import new_client
from tests.support.games import new_game, to_move_view
from tests.support.http import Api, auth, ok, problem, session_from
from tests.support.log import log_unchanged

SHORT_KEYS = ["1", "create-game", "a" * 15]
PHONE = "127.0.0.31"


@pytest.fixture
def phone(live_server) -> Api:
    return Api.live(live_server.url, session_from(PHONE))


def games(redis_client) -> set[bytes]:
    return set(redis_client.scan_iter(match="sch:{*}:log", count=1000))


@pytest.mark.parametrize("key", SHORT_KEYS)
def test_an_anonymous_create_with_a_short_key_is_refused(phone, redis_client, key):
    before = games(redis_client)
    reply = phone.post("/v1/games", json_body={}, headers={"Idempotency-Key": key})
    body = problem(reply, 422, "idempotency_key_too_short")
    assert "16" in body["detail"] and "UUID" in body["detail"]
    assert games(redis_client) == before


def test_an_anonymous_create_with_a_uuid_key_is_remembered(phone):
    headers = {"Idempotency-Key": str(uuid.uuid4())}
    first = ok(phone.post("/v1/games", json_body={}, headers=headers), 201)
    again = phone.post("/v1/games", json_body={}, headers=headers)
    assert ok(again, 201)["token"] == first["token"]
    assert again.headers["Idempotent-Replayed"] == "true"
    # Exactly 16 characters is long enough.
    ok(phone.post("/v1/games", json_body={}, headers={"Idempotency-Key": "k" * 16}), 201)


def test_an_anonymous_join_and_export_with_a_short_key_are_refused(phone, redis_client):
    created = ok(phone.post("/v1/games", json_body={}), 201)
    gid = created["game_id"]
    with log_unchanged(redis_client, gid):
        reply = phone.post(
            f"/v1/games/{gid}/join",
            json_body={"invite": created["invite"]},
            headers={"Idempotency-Key": "join-1"},
        )
        problem(reply, 422, "idempotency_key_too_short")
    before = set(redis_client.scan_iter(match="rq:job:export-*", count=1000))
    reply = phone.post(
        f"/v1/games/{gid}/exports", json_body={}, headers={"Idempotency-Key": "export"}
    )
    problem(reply, 422, "idempotency_key_too_short")
    assert set(redis_client.scan_iter(match="rq:job:export-*", count=1000)) == before


def test_a_client_key_keeps_its_own_scope_for_short_keys(live_server, redis_url):
    app = new_client(redis_url, "short keys app")
    caller = session_from(PHONE)
    headers = {**auth(app["key"]), "Idempotency-Key": "1"}
    first = caller.post(f"{live_server.url}/v1/games", json={}, headers=headers)
    assert first.status_code == 201, first.text
    again = caller.post(f"{live_server.url}/v1/games", json={}, headers=headers)
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json()["token"] == first.json()["token"]


def test_a_seats_short_key_is_private_to_its_token(phone, redis_client):
    """Under a seat's token the scope is the token (256 random bits), not the address."""
    game = new_game(phone, seed=61)
    seen = to_move_view(phone, game)
    assert seen is not None
    path = f"{game.path}/actions"
    action = seen["deal"]["legal_actions"][0]
    headers = {"Idempotency-Key": "1"}
    first = phone.post(path, json_body=action, token=game.tokens[seen["seat"]], headers=headers)
    again = phone.post(path, json_body=action, token=game.tokens[seen["seat"]], headers=headers)
    assert ok(again) == ok(first) and again.headers["Idempotent-Replayed"] == "true"
