"""Rate limits per token and per address, and the cap on games: 429 with the right headers."""

from __future__ import annotations

import re

import pytest

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
