"""Findings 4 and 13 of the hardening issue, against a live gunicorn.

4. Waiting long-polls must not freeze the API: past a per-process cap they get
   503 with ``Retry-After``, and /healthz, /readyz and actions never wait behind them.
13. A paused Redis must not hang requests: every Redis call of a request is bounded
    by a short timeout, then 503 ``store_unavailable`` with ``Retry-After``.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator

import pytest
import requests

from service.embedded_redis import EmbeddedRedis
from tests.conftest import LiveServer
from tests.hardening.hostile import bearer

#: Far above any answer the service should need, far below the waits under test.
HANG = 10
WAITERS = 16


def is_problem(answer: requests.Response, status: int, code: str) -> bool:
    return (
        answer.status_code == status
        and answer.headers.get("Content-Type") == "application/problem+json"
        and answer.json()["code"] == code
    )


def test_finding_4_waiting_long_polls_are_capped_and_never_block_the_api(live_server):
    url = live_server.url
    game = requests.post(f"{url}/v1/games", json={}).json()
    feed = f"{url}/v1/games/{game['game_id']}/events?after={game['version']}&wait=25"
    answers: list[requests.Response] = []
    done = threading.Condition()

    def wait_on_feed() -> None:
        answer = requests.get(feed, timeout=60)
        with done:
            answers.append(answer)
            done.notify_all()

    waiters = [threading.Thread(target=wait_on_feed, daemon=True) for _ in range(WAITERS)]
    for thread in waiters:
        thread.start()
    # Past the cap, waiters are refused at once; the rest hold their slots.
    with done:
        assert done.wait_for(lambda: len(answers) >= WAITERS // 2, timeout=20), (
            f"only {len(answers)} of {WAITERS} long-polls answered: waiters are not capped"
        )
        refused = list(answers)
    for answer in refused:
        assert is_problem(answer, 503, "too_many_waiting"), answer.text
        assert int(answer.headers["Retry-After"]) >= 1
    # The API answers while the others wait: health, readiness, a view, an action.
    assert requests.get(f"{url}/healthz", timeout=HANG).status_code == 200
    assert requests.get(f"{url}/readyz", timeout=HANG).status_code in (200, 503)
    assert requests.get(f"{url}/v1/games/{game['game_id']}", timeout=HANG).status_code == 200
    joined = requests.post(
        f"{url}/v1/games/{game['game_id']}/join", json={"invite": game["invite"]}, timeout=HANG
    )
    assert joined.status_code == 201
    # The join is an event: every held waiter answers it.
    for thread in waiters:
        thread.join(timeout=HANG)
    assert len(answers) == WAITERS
    held = [answer for answer in answers if answer.status_code == 200]
    assert held and all(answer.json()["events"] for answer in held)
    assert all(answer.status_code in (200, 503) for answer in answers)


@pytest.fixture
def pausable_redis(tmp_path) -> Iterator[EmbeddedRedis]:
    server = EmbeddedRedis(tmp_path / "redis").start()
    try:
        yield server
    finally:
        os.kill(server.process.pid, signal.SIGCONT)
        server.stop()


def test_finding_13_a_paused_redis_answers_503_within_the_timeout(pausable_redis):
    server = LiveServer(pausable_redis.url, workers=1, threads=4)
    try:
        url = server.url
        game = requests.post(f"{url}/v1/games", json={}).json()
        view = f"{url}/v1/games/{game['game_id']}"
        assert requests.get(view, headers=bearer(game["token"])).status_code == 200
        os.kill(pausable_redis.process.pid, signal.SIGSTOP)
        try:
            for method, path, body in [
                ("get", view, None),
                ("post", f"{view}/actions", {"type": "close_talon"}),
                ("post", f"{url}/v1/games", {}),
                ("get", f"{view}/replay", None),
            ]:
                answer = requests.request(
                    method, path, json=body, headers=bearer(game["token"]), timeout=HANG
                )
                assert is_problem(answer, 503, "store_unavailable"), answer.text
                assert int(answer.headers["Retry-After"]) >= 1
            assert requests.get(f"{url}/healthz", timeout=HANG).status_code == 200
        finally:
            os.kill(pausable_redis.process.pid, signal.SIGCONT)
        # Redis is back: the same process answers again without a restart.
        assert requests.get(view, headers=bearer(game["token"]), timeout=HANG).status_code == 200
    finally:
        server.stop()
