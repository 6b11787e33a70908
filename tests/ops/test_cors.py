"""CORS for browser clients: only the configured origins, with the headers they need."""

from __future__ import annotations

import pytest

from service.ops.settings import from_env
from service.web.app import create_app
from service.web.cors import cors_origins
from tests.support.paths import SECRET

ALLOWED = "https://play.example.org"
OTHER = "https://evil.example.net"


@pytest.fixture(scope="module")
def cors_client(redis_url):
    app = create_app(
        {
            "REDIS_URL": redis_url,
            "SECRET_KEY": SECRET,
            "CORS_ORIGINS": f"{ALLOWED}, http://localhost:3000",
        }
    )
    return app.test_client()


def preflight(client, origin: str, path: str = "/v1/games"):
    return client.options(
        path,
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "Authorization, Content-Type, Idempotency-Key",
        },
    )


def words(header: str | None) -> set[str]:
    return {word.strip().lower() for word in (header or "").split(",") if word.strip()}


def test_the_setting_is_parsed():
    assert from_env({"SCHNAPSEN_CORS_ORIGINS": "https://a.example"}).cors_origins
    assert cors_origins("") is None
    assert cors_origins(" , ") is None
    assert cors_origins("https://a.example/, https://b.example") == [
        "https://a.example",
        "https://b.example",
    ]
    assert cors_origins("https://a.example,*") == "*"


def test_a_preflight_from_an_allowed_origin_is_answered(cors_client):
    response = preflight(cors_client, ALLOWED)
    assert response.status_code == 200
    assert response.headers["Access-Control-Allow-Origin"] == ALLOWED
    assert "post" in words(response.headers["Access-Control-Allow-Methods"])
    assert {"authorization", "content-type", "idempotency-key"} <= words(
        response.headers["Access-Control-Allow-Headers"]
    )
    assert int(response.headers["Access-Control-Max-Age"]) > 0
    assert "Access-Control-Allow-Credentials" not in response.headers


@pytest.mark.parametrize(
    "header", ["Authorization", "If-Match", "If-None-Match", "Last-Event-ID", "X-Request-ID"]
)
def test_each_request_header_of_the_api_may_be_sent(cors_client, header):
    response = cors_client.options(
        "/v1/games/abc",
        headers={
            "Origin": ALLOWED,
            "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": header,
        },
    )
    assert response.headers["Access-Control-Allow-Origin"] == ALLOWED
    assert header.lower() in words(response.headers.get("Access-Control-Allow-Headers"))


def test_a_preflight_from_another_origin_gets_no_cors_headers(cors_client):
    response = preflight(cors_client, OTHER)
    assert "Access-Control-Allow-Origin" not in response.headers
    assert "Access-Control-Allow-Headers" not in response.headers


def test_a_simple_request_from_an_allowed_origin_exposes_the_api_headers(cors_client):
    response = cors_client.post("/v1/games", json={}, headers={"Origin": ALLOWED})
    assert response.status_code == 201
    assert response.headers["Access-Control-Allow-Origin"] == ALLOWED
    assert "Origin" in response.headers.get("Vary", "")
    exposed = words(response.headers["Access-Control-Expose-Headers"])
    assert {"etag", "location", "x-request-id", "idempotent-replayed", "retry-after"} <= exposed


def test_errors_carry_cors_headers_so_browsers_can_read_problems(cors_client):
    response = cors_client.get("/v1/games/not-a-game", headers={"Origin": ALLOWED})
    assert response.status_code == 404
    assert response.headers["Access-Control-Allow-Origin"] == ALLOWED


def test_a_simple_request_from_another_origin_gets_no_cors_headers(cors_client):
    response = cors_client.get("/healthz", headers={"Origin": OTHER})
    assert response.status_code == 200  # the server answers; the browser hides it
    assert "Access-Control-Allow-Origin" not in response.headers


def test_by_default_there_are_no_cors_headers(client):
    assert client.application.config["CORS_ORIGINS"] == ""
    response = client.get("/healthz", headers={"Origin": ALLOWED})
    assert "Access-Control-Allow-Origin" not in response.headers
    assert "Access-Control-Allow-Origin" not in preflight(client, ALLOWED).headers


def test_a_star_allows_any_origin(redis_url):
    app = create_app({"REDIS_URL": redis_url, "SECRET_KEY": SECRET, "CORS_ORIGINS": "*"})
    response = app.test_client().get("/healthz", headers={"Origin": OTHER})
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert "x-request-id" in words(response.headers["Access-Control-Expose-Headers"])
