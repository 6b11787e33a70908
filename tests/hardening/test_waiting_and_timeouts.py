"""Waiting clients and a paused Redis never hang the API, against a live gunicorn.

- Waiting long-polls must not freeze the API: /healthz, /readyz, views and
  actions never wait behind them, and past a per-process cap they get 503 with
  ``Retry-After``.
- A paused Redis must not hang requests: every Redis call of a request is bounded
  by a short timeout, then 503 ``store_unavailable`` with ``Retry-After``.
"""

from __future__ import annotations

import os
import re
import signal
import threading
from collections.abc import Callable, Iterator

import pytest
import requests

from service.devtools.embedded_redis import EmbeddedRedis
from tests.support.http import auth
from tests.support.servers import LiveServer
from tests.support.waiting import wait_until

#: Far above any answer the service should need, far below the waits under test.
HANG = 10
WAITERS = 64


def is_problem(answer: requests.Response, status: int, code: str) -> bool:
    return (
        answer.status_code == status
        and answer.headers.get("Content-Type") == "application/problem+json"
        and answer.json()["code"] == code
    )


def waiting_now(url: str) -> float:
    """The server's own count of waiting requests (one gunicorn process: exact)."""
    metrics = requests.get(f"{url}/metrics", timeout=HANG).text
    return float(re.search(r"^schnapsen_waiting_requests (\S+)$", metrics, re.M).group(1))


def long_polls(url: str, game: dict, count: int) -> tuple[list[requests.Response], Callable]:
    """``count`` long-polls on ``game`` from threads; their answers, and a wait on them."""
    feed = f"{url}/v1/games/{game['game_id']}/events?after={game['version']}&wait=25"
    answers: list[requests.Response] = []
    done = threading.Condition()

    def wait_on_feed() -> None:
        answer = requests.get(feed, timeout=60)
        with done:
            answers.append(answer)
            done.notify_all()

    for _ in range(count):
        threading.Thread(target=wait_on_feed, daemon=True).start()

    def until(predicate: Callable[[], bool], timeout: float) -> bool:
        with done:
            return done.wait_for(predicate, timeout=timeout)

    return answers, until


def api_answers_while_clients_wait(url: str, game: dict) -> None:
    assert requests.get(f"{url}/healthz", timeout=HANG).status_code == 200
    assert requests.get(f"{url}/readyz", timeout=HANG).status_code in (200, 503)
    assert requests.get(f"{url}/v1/games/{game['game_id']}", timeout=HANG).status_code == 200


def test_many_waiting_long_polls_never_block_the_api(redis_url):
    server = LiveServer(redis_url, workers=1)
    try:
        game = requests.post(f"{server.url}/v1/games", json={}).json()
        answers, until = long_polls(server.url, game, WAITERS)
        wait_until(lambda: waiting_now(server.url) >= WAITERS, 60, "every long-poll to wait")
        assert waiting_now(server.url) == WAITERS and not answers, "every long-poll is held"
        api_answers_while_clients_wait(server.url, game)
        # An action answers too, and is the event every waiter was waiting for.
        joined = requests.post(
            f"{server.url}/v1/games/{game['game_id']}/join",
            json={"invite": game["invite"]},
            timeout=HANG,
        )
        assert joined.status_code == 201
        assert until(lambda: len(answers) == WAITERS, HANG)
        assert all(a.status_code == 200 and a.json()["events"] for a in answers)
    finally:
        server.stop()


def test_waiting_requests_past_the_cap_get_503_with_retry_after(redis_url):
    cap = 4
    server = LiveServer(redis_url, workers=1, env={"SCHNAPSEN_MAX_WAITING": str(cap)})
    try:
        game = requests.post(f"{server.url}/v1/games", json={}).json()
        answers, until = long_polls(server.url, game, WAITERS)
        assert until(lambda: len(answers) >= WAITERS - cap, 20), "past the cap: refused at once"
        for answer in list(answers):
            assert is_problem(answer, 503, "too_many_waiting"), answer.text
            assert int(answer.headers["Retry-After"]) >= 1
        assert waiting_now(server.url) == cap
        api_answers_while_clients_wait(server.url, game)
        # An SSE stream past the cap is refused the same way.
        refused = requests.get(f"{server.url}/v1/games/{game['game_id']}/stream", timeout=HANG)
        assert is_problem(refused, 503, "too_many_waiting")
        requests.post(
            f"{server.url}/v1/games/{game['game_id']}/join", json={"invite": game["invite"]}
        )
        assert until(lambda: len(answers) == WAITERS, HANG)
        assert sum(answer.status_code == 200 for answer in answers) == cap
    finally:
        server.stop()


@pytest.fixture
def pausable_redis(tmp_path) -> Iterator[EmbeddedRedis]:
    server = EmbeddedRedis(tmp_path / "redis").start()
    try:
        yield server
    finally:
        os.kill(server.process.pid, signal.SIGCONT)
        server.stop()


def test_a_paused_redis_answers_503_within_the_timeout(pausable_redis):
    server = LiveServer(pausable_redis.url, workers=1)
    try:
        url = server.url
        game = requests.post(f"{url}/v1/games", json={}).json()
        view = f"{url}/v1/games/{game['game_id']}"
        assert requests.get(view, headers=auth(game["token"])).status_code == 200
        os.kill(pausable_redis.process.pid, signal.SIGSTOP)
        try:
            for method, path, body in [
                ("get", view, None),
                ("post", f"{view}/actions", {"type": "close_talon"}),
                ("post", f"{url}/v1/games", {}),
                ("get", f"{view}/replay", None),
            ]:
                answer = requests.request(
                    method, path, json=body, headers=auth(game["token"]), timeout=HANG
                )
                assert is_problem(answer, 503, "store_unavailable"), answer.text
                assert int(answer.headers["Retry-After"]) >= 1
            assert requests.get(f"{url}/healthz", timeout=HANG).status_code == 200
        finally:
            os.kill(pausable_redis.process.pid, signal.SIGCONT)
        # Redis is back: the same process answers again without a restart.
        assert requests.get(view, headers=auth(game["token"]), timeout=HANG).status_code == 200
    finally:
        server.stop()
