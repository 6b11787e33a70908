"""Client keys, and a games cap that made-up tokens
cannot bypass. Against a live gunicorn with the limits on, and the real admin command."""

from __future__ import annotations

import json
import secrets
import uuid
from collections.abc import Iterator

import pytest
import redis

from service.devtools.embedded_redis import EmbeddedRedis
from tests.support.admin import admin, new_client
from tests.support.http import auth, session_from
from tests.support.servers import LiveServer

CAP = 3


@pytest.fixture(scope="module")
def own_redis(tmp_path_factory) -> Iterator[str]:
    """A Redis of this module alone: its rate-limit counters and keys start empty."""
    server = EmbeddedRedis(tmp_path_factory.mktemp("redis-keys")).start()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture(scope="module")
def limited(own_redis) -> Iterator[LiveServer]:
    server = LiveServer(
        own_redis,
        workers=1,
        env={
            "SCHNAPSEN_GAMES_PER_ADDRESS_PER_HOUR": str(CAP),
            "SCHNAPSEN_GAMES_PER_CLIENT_PER_HOUR": str(CAP),
            "SCHNAPSEN_BOT_MOVES_PER_CLIENT_PER_MINUTE": str(CAP),
        },
    )
    try:
        yield server
    finally:
        server.stop()


def test_made_up_bearer_tokens_do_not_bypass_the_games_cap(limited):
    anonymous = session_from("127.0.0.5")
    for _ in range(CAP):
        assert anonymous.post(f"{limited.url}/v1/games", json={}).status_code == 201
    assert anonymous.post(f"{limited.url}/v1/games", json={}).status_code == 429
    for _ in range(20):
        forged = auth(secrets.token_urlsafe(32))
        answer = anonymous.post(f"{limited.url}/v1/games", json={}, headers=forged)
        assert answer.status_code == 429, answer.text
        assert answer.headers["Content-Type"] == "application/problem+json"
        assert answer.json()["code"] == "too_many_games"


def test_a_client_key_has_its_own_cap_and_idempotency_scope(limited, own_redis):
    first, second = new_client(own_redis, "first app"), new_client(own_redis, "second app")
    same_address = session_from("127.0.0.6")
    games = {}
    for client in (first, second):
        answer = same_address.post(
            f"{limited.url}/v1/games", json={}, headers={**auth(client["key"]),
                                                          "Idempotency-Key": "1"}
        )  # fmt: skip
        assert answer.status_code == 201, answer.text
        assert "Idempotent-Replayed" not in answer.headers
        games[client["id"]] = answer.json()["game_id"]
    assert games[first["id"]] != games[second["id"]], "one key's record is not another's"
    for _ in range(CAP - 1):
        answer = same_address.post(f"{limited.url}/v1/games", json={}, headers=auth(first["key"]))
        assert answer.status_code == 201
    capped = same_address.post(f"{limited.url}/v1/games", json={}, headers=auth(first["key"]))
    assert capped.status_code == 429 and capped.json()["code"] == "too_many_games"
    # the cap was the first key's: the second key and the address still create
    assert (
        same_address.post(
            f"{limited.url}/v1/games", json={}, headers=auth(second["key"])
        ).status_code
        == 201
    )
    assert same_address.post(f"{limited.url}/v1/games", json={}).status_code == 201


POSITION = {"seat": 0, "dealer": 1, "hand": ["AS", "TS", "KH", "QH", "JD"],
            "trump_card": "QC", "talon_size": 9}  # fmt: skip


def test_the_bot_move_service_has_its_own_limit_per_client(limited, own_redis):
    """Anonymous bot-move requests are capped per address, keys per key."""
    move = {"level": "random", "position": POSITION}
    anonymous, other = session_from("127.0.0.9"), session_from("127.0.0.10")
    for _ in range(CAP):
        assert anonymous.post(f"{limited.url}/v1/bot/moves", json=move).status_code == 202
    refused = anonymous.post(f"{limited.url}/v1/bot/moves", json=move)
    assert refused.status_code == 429 and refused.json()["code"] == "too_many_bot_moves"
    assert int(refused.headers["Retry-After"]) >= 1
    forged = anonymous.post(f"{limited.url}/v1/bot/moves", json=move, headers=auth("made-up"))
    assert forged.status_code == 429, "a made-up key is its address"
    # another address, and a client key from the same address, have quotas of their own
    assert other.post(f"{limited.url}/v1/bot/moves", json=move).status_code == 202
    client = new_client(own_redis, "bot user")
    keyed = anonymous.post(f"{limited.url}/v1/bot/moves", json=move, headers=auth(client["key"]))
    assert keyed.status_code == 202, keyed.text


def test_client_keys_are_created_listed_revoked_and_stored_only_hashed(limited, own_redis):
    client = new_client(own_redis, "revoked app")
    key = client["key"]
    assert len(key) >= 32 and client["id"] not in key
    caller = session_from("127.0.0.7")
    position = POSITION
    assert caller.post(f"{limited.url}/v1/games", json={}, headers=auth(key)).status_code == 201
    moved = caller.post(f"{limited.url}/v1/bot/moves", headers=auth(key),
                        json={"level": "random", "position": position})  # fmt: skip
    assert moved.status_code == 202, moved.text

    listed = json.loads(admin(own_redis, "clients", "list", "--json").stdout)
    mine = [entry for entry in listed if entry["id"] == client["id"]]
    assert mine and mine[0]["name"] == "revoked app" and not mine[0]["revoked"]
    assert "key" not in mine[0]
    assert "revoked app" in admin(own_redis, "clients", "list").stdout

    admin(own_redis, "clients", "revoke", client["id"])
    for answer in (
        caller.post(f"{limited.url}/v1/games", json={}, headers=auth(key)),
        caller.post(f"{limited.url}/v1/bot/moves", headers=auth(key),
                    json={"level": "random", "position": position}),
    ):  # fmt: skip
        assert answer.status_code == 401, answer.text
        assert answer.headers["Content-Type"] == "application/problem+json"
        assert answer.json()["code"] == "client_key_revoked"
    listed = json.loads(admin(own_redis, "clients", "list", "--json").stdout)
    assert [entry["revoked"] for entry in listed if entry["id"] == client["id"]] == [True]

    # Nothing in Redis holds the key: not a key name, not a value, not a field.
    connection = redis.Redis.from_url(own_redis)
    needle = key.encode()
    for name in connection.scan_iter(count=1000):
        assert needle not in name
        kind = connection.type(name)
        if kind == b"string":
            assert needle not in (connection.get(name) or b"")
        elif kind == b"hash":
            for field, value in connection.hgetall(name).items():
                assert needle not in field and needle not in value
        elif kind == b"stream":
            for _id, fields in connection.xrange(name):
                assert all(needle not in v for v in fields.values())


def test_anonymous_use_can_be_switched_off(own_redis):
    server = LiveServer(own_redis, workers=1,
                        env={"SCHNAPSEN_ANONYMOUS_CLIENTS": "0"})  # fmt: skip
    try:
        anonymous = session_from("127.0.0.8")
        refused = anonymous.post(f"{server.url}/v1/games", json={})
        assert refused.status_code == 401, refused.text
        assert refused.json()["code"] == "client_key_required"
        forged = anonymous.post(f"{server.url}/v1/games", json={},
                                headers=auth(uuid.uuid4().hex))  # fmt: skip
        assert forged.status_code == 401 and forged.json()["code"] == "invalid_client_key"
        client = new_client(own_redis, "only app")
        created = anonymous.post(f"{server.url}/v1/games", json={}, headers=auth(client["key"]))
        assert created.status_code == 201
        # a seat acts with its own token as always
        game = created.json()
        view = anonymous.get(f"{server.url}/v1/games/{game['game_id']}",
                             headers=auth(game["token"]))  # fmt: skip
        assert view.status_code == 200 and view.json()["seat"] == 0
    finally:
        server.stop()
