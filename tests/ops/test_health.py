"""GET /healthz (the process) and GET /readyz (Redis, the queues' Redis, a worker)."""

from __future__ import annotations

import socket

import redis

from service.web.app import create_app
from tests.support.full_store import hold_full, make_room
from tests.support.paths import SECRET
from tests.support.waiting import wait_until

PROBLEM_JSON = "application/problem+json"


def wait_ready(client, timeout: float = 60) -> object:
    """GET /readyz until it is 200 (a worker registers soon after its start)."""
    return wait_until(
        lambda: (response := client.get("/readyz")).status_code == 200 and response,
        timeout,
        "GET /readyz to answer 200",
    )


def test_healthz_answers_without_redis():
    app = create_app({"REDIS_URL": "redis://127.0.0.1:1/0", "SECRET_KEY": SECRET})
    response = app.test_client().get("/healthz")
    assert response.status_code == 200
    assert response.get_json() == {"status": "ok"}


def test_readyz_is_200_with_redis_and_a_worker(client, worker):
    response = wait_ready(client)
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert body["status"] == "ready"
    assert body["checks"]["redis"] == "ok"
    assert body["checks"]["queue_redis"] == "ok"
    assert body["checks"]["workers"]["moves"] >= 1
    assert body["checks"]["workers"]["decisions"] >= 1
    assert body["checks"]["workers"]["exports"] >= 1


def test_readyz_is_503_naming_redis_when_redis_is_unreachable():
    app = create_app({"REDIS_URL": "redis://127.0.0.1:1/0", "SECRET_KEY": SECRET})
    response = app.test_client().get("/readyz")
    assert response.status_code == 503
    assert response.mimetype == PROBLEM_JSON
    body = response.get_json()
    assert body["code"] == "not_ready"
    assert "redis" in body["missing"] and "queue_redis" in body["missing"]
    assert body["checks"]["redis"].startswith("unreachable")
    assert response.headers["Retry-After"]


def test_readyz_turns_503_when_redis_stops(lone_redis, lone_app):
    client = lone_app.test_client()
    before = client.get("/readyz").get_json()
    assert before["checks"]["redis"] == "ok"  # up: only the workers are missing
    lone_redis.stop()
    response = client.get("/readyz")
    assert response.status_code == 503
    body = response.get_json()
    assert body["missing"][0] == "redis"
    assert body["checks"]["redis"].startswith("unreachable")


def test_readyz_is_503_naming_the_workers_when_none_runs(lone_app):
    response = lone_app.test_client().get("/readyz")
    assert response.status_code == 503
    assert response.mimetype == PROBLEM_JSON
    body = response.get_json()
    assert body["checks"]["redis"] == "ok" and body["checks"]["queue_redis"] == "ok"
    assert body["missing"] == [
        "workers:moves",
        "workers:decisions",
        "workers:exports",
        "workers:archive",
        "workers:webhooks",
    ]
    assert body["checks"]["workers"] == {
        "moves": 0,
        "decisions": 0,
        "exports": 0,
        "archive": 0,
        "webhooks": 0,
    }
    assert "workers:moves" in body["detail"]


def test_readyz_checks_the_queues_redis_apart_from_the_logs(lone_redis):
    app = create_app(
        {
            "REDIS_URL": lone_redis.url,
            "QUEUE_REDIS_URL": "redis://127.0.0.1:1/0",
            "SECRET_KEY": SECRET,
        }
    )
    body = app.test_client().get("/readyz").get_json()
    assert body["status"] == 503
    assert body["checks"]["redis"] == "ok"
    assert body["missing"] == ["queue_redis", "workers"]


def test_readyz_does_not_hang_on_a_redis_that_never_answers():
    # A socket that accepts connections (the kernel's backlog) and never replies: the
    # answer comes because the check's own timeout ended the call (its check says
    # Timeout), never because the socket went away; pytest's timeout bounds a hang.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]
        app = create_app(
            {
                "REDIS_URL": f"redis://127.0.0.1:{port}/0",
                "SECRET_KEY": SECRET,
                "READINESS_TIMEOUT_SECONDS": 0.5,
            }
        )
        response = app.test_client().get("/readyz")
    assert response.status_code == 503
    assert "Timeout" in response.get_json()["checks"]["redis"]


def test_readyz_is_503_naming_store_full_while_redis_is_past_its_maxmemory(lone_redis, lone_app):
    client = lone_app.test_client()
    redis_client = redis.Redis.from_url(lone_redis.url)
    before = client.get("/readyz").get_json()
    assert before["checks"]["store"] == "ok" and "store_full" not in before["missing"]
    redis_client.config_set("maxmemory", 64 * 1024 * 1024)
    hold_full(redis_client)
    try:
        response = client.get("/readyz")
        assert response.status_code == 503
        body = response.get_json()
        assert "store_full" in body["missing"], body
        assert body["checks"]["store"].startswith("full: the log's Redis"), body
        assert body["checks"]["redis"] == "ok", "a full Redis still answers"
    finally:
        make_room(redis_client)
    after = client.get("/readyz").get_json()
    assert after["checks"]["store"] == "ok" and "store_full" not in after["missing"]
