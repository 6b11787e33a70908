"""Rate limits per token and per address, and the cap on games: 429 with the right headers."""

from __future__ import annotations

import re

import pytest

from service.store.clients import ClientRegistry
from service.web.app import create_app
from tests.support.paths import SECRET

POLICY = re.compile(r'^"(\w+)";q=(\d+);w=(\d+)$')
USAGE = re.compile(r'^"(\w+)";r=(\d+);t=(\d+)$')


@pytest.fixture
def limited(redis_url, redis_client):
    """An app with small limits, on counters no other test touches."""
    for key in redis_client.scan_iter(match="sch:rl:*"):
        redis_client.delete(key)
    app = create_app({
        "REDIS_URL": redis_url,
        "SECRET_KEY": SECRET,
        "RATE_LIMIT_PER_TOKEN": 5,
        "RATE_LIMIT_PER_IP": 40,
        "GAMES_PER_ADDRESS_PER_HOUR": 3,
    })  # fmt: skip
    return app.test_client()


def assert_limited(response, code: str):
    assert response.status_code == 429
    assert response.mimetype == "application/problem+json"
    assert response.json["code"] == code
    assert int(response.headers["Retry-After"]) >= 1
    assert USAGE.match(response.headers["RateLimit"]).group(2) == "0"


def test_a_token_gets_its_quota_then_429(limited):
    created = limited.post("/v1/games", json={}).json
    headers = {"Authorization": f"Bearer {created['token']}"}
    path = f"/v1/games/{created['game_id']}"
    remaining = []
    for _ in range(5):
        response = limited.get(path, headers=headers)
        assert response.status_code == 200
        policy = POLICY.match(response.headers["RateLimit-Policy"])
        assert policy.groups() == ("token", "5", "60")
        usage = USAGE.match(response.headers["RateLimit"])
        remaining.append(int(usage.group(2)))
        assert 0 < int(usage.group(3)) <= 60
    assert remaining == [4, 3, 2, 1, 0]
    assert_limited(limited.get(path, headers=headers), "rate_limited")
    # another client (a spectator, by address) is not held back by that token's limit
    assert limited.get(path).status_code == 200


def test_an_address_gets_its_quota_then_429(limited):
    created = limited.post("/v1/games", json={}).json
    path = f"/v1/games/{created['game_id']}"
    answers = [limited.get(path).status_code for _ in range(45)]
    assert answers[:39] == [200] * 39  # 40 per minute, the create was the first
    assert answers[-1] == 429
    assert_limited(limited.get(path), "rate_limited")


def test_games_per_client_are_capped(limited):
    for _ in range(3):
        assert limited.post("/v1/games", json={}).status_code == 201
    refused = limited.post("/v1/games", json={})
    assert_limited(refused, "too_many_games")
    assert "games" in refused.json["detail"]


def test_health_is_never_limited(limited):
    for _ in range(50):
        assert limited.get("/healthz").status_code == 200


def test_a_players_requests_count_against_its_apps_quota_wherever_its_token_is_declared(
    redis_url, redis_client
):
    # The caller of a player's operation is the player of its app, as on a create: the
    # app's quota holds all of its players, a player's token its own, not the address's.
    for key in redis_client.scan_iter(match="sch:rl:*"):
        redis_client.delete(key)
    app = create_app({
        "REDIS_URL": redis_url,
        "SECRET_KEY": SECRET,
        "RATE_LIMIT_PER_CLIENT": 4,
        "RATE_LIMIT_PER_TOKEN": 50,
        "RATE_LIMIT_PER_IP": 100,
    }).test_client()  # fmt: skip
    _, key = ClientRegistry(redis_client).create("players' quota")
    registered = app.post(
        "/v1/players",
        json={"app_player_id": "quota-1", "name": "Quota"},
        headers={"X-Client-Key": key},
    )
    assert registered.status_code == 201, registered.json
    player = {"Authorization": f"Bearer {registered.json['token']}"}
    answers = [app.get("/v1/players/me", headers=player) for _ in range(3)]
    assert [a.status_code for a in answers] == [200, 200, 200]
    assert POLICY.match(answers[-1].headers["RateLimit-Policy"]).group(1) == "client"
    assert_limited(app.get("/v1/seeks/sk_0", headers=player), "rate_limited")
    # The address itself, without the player's token, still has its own quota.
    assert app.get("/v1/bot/levels").status_code == 200
