"""Every app's webhooks get a fair share of the delivering workers, and the archive none.

One deployment of this module's own, as the run command starts it: a Redis,
gunicorn, a worker for bot moves alone and one general worker, an archive on
a real PostgreSQL, and real receiver processes on loopback. App 1's endpoint
answers after the send deadline (1 s here), so each of its attempts holds the
general worker for the whole deadline; app 2's endpoint answers at once.

What is counted is attempts, not seconds: how many of app 1's requests reach
its receiver while app 2's notice waits, or while a finished game waits for
its archiving. The documented bound (docs/webhooks.md, "Fair shares") is one
attempt of each other app with deliveries waiting, besides the one being sent.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests
from redis import Redis

from service.devtools.embedded_redis import EmbeddedRedis
from service.serve.worker_commands import run_command_workers
from tests.support.lifecycle import archived_rows
from tests.support.postgres import fresh_database
from tests.support.receiver import Receiver
from tests.support.servers import LiveServer, WorkerProcess
from tests.support.waiting import wait_until
from tests.support.webhook_games import app_key, player_token, register

#: The send deadline (s), and how long app 1's receiver takes to answer: longer.
DEADLINE = "1"
SLOW_ANSWER = 2.5
#: Pending redeliveries an app may have.
REDELIVERIES_PER_APP = 4
#: Games (so deliveries of game.started) app 1 has waiting.
BACKLOG = 8


@dataclass
class Deployment:
    folder: Path
    redis: Redis
    url: str
    archive_url: str


@pytest.fixture(scope="module")
def fair(tmp_path_factory: pytest.TempPathFactory, postgres_url: str) -> Iterator[Deployment]:
    folder = tmp_path_factory.mktemp("fair")
    redis_server = EmbeddedRedis(folder / "redis").start()
    with fresh_database(postgres_url) as archive_url:
        env = {
            "SCHNAPSEN_WEBHOOK_ALLOW_ADDRESSES": "127.0.0.1/32",
            "SCHNAPSEN_WEBHOOK_TIMEOUT_SECONDS": DEADLINE,
            # no retry comes back while a test runs: what is counted is the first attempts
            "SCHNAPSEN_WEBHOOK_RETRY_SECONDS": "3600",
            "SCHNAPSEN_WEBHOOK_DISABLE_AFTER": "1000",
            "SCHNAPSEN_WEBHOOK_REDELIVERIES_PER_APP": str(REDELIVERIES_PER_APP),
            "SCHNAPSEN_ARCHIVE_URL": archive_url,
            "SCHNAPSEN_ARCHIVE_GRACE_SECONDS": "3600",
            "SCHNAPSEN_SWEEP_SECONDS": "3600",
            "SCHNAPSEN_BOT_DELAY_MS": "0",
        }
        server = LiveServer(redis_server.url, workers=1, env=env)
        workers = [
            WorkerProcess(redis_server.url, command, **env)
            for _name, command in run_command_workers(1, log_level="WARNING")
        ]
        try:
            yield Deployment(folder, Redis.from_url(redis_server.url), server.url, archive_url)
        finally:
            for worker in workers:
                worker.stop()
            server.stop()
            redis_server.stop()


def _game(url: str, player: str) -> dict:
    created = requests.post(
        f"{url}/v1/games",
        json={"opponent": {"type": "bot", "level": "random"}},
        headers={"Authorization": f"Bearer {player}"},
        timeout=10,
    )
    assert created.status_code == 201, created.text
    return created.json()


def _deliveries(url: str, key: str, hook: dict) -> list[dict]:
    answer = requests.get(
        f"{url}/v1/webhooks/{hook['webhook_id']}/deliveries",
        params={"limit": 100},
        headers={"X-Client-Key": key},
        timeout=10,
    )
    assert answer.status_code == 200, answer.text
    return answer.json()["deliveries"]


def _redeliver(url: str, key: str, hook: dict, delivery_id: str) -> requests.Response:
    return requests.post(
        f"{url}/v1/webhooks/{hook['webhook_id']}/deliveries/{delivery_id}/redeliver",
        headers={"X-Client-Key": key},
        timeout=10,
    )


def _arrivals(receiver: Receiver, since: float, until: float) -> int:
    return sum(1 for got in receiver.received() if since <= got["arrived"] <= until)


@dataclass
class Backlog:
    """App 1: its slow receiver, its key and endpoint, and its deliveries (one a game)."""

    receiver: Receiver
    key: str
    hook: dict
    deliveries: list[dict]


def _slow_app(fair: Deployment, games: int = BACKLOG, *, again: int = 2) -> Backlog:
    """App 1 with ``games`` deliveries of game.started to a receiver slower than the
    deadline, each then asked again ``again`` times: a backlog of attempts, each holding a
    worker for the whole deadline."""
    receiver = Receiver(fair.folder, delay=SLOW_ANSWER)
    key = app_key(fair.redis)
    hook = register(fair.url, key, receiver.url, ["game.started"])
    player = player_token(fair.url, key, "slow")["token"]
    for _ in range(games):
        _game(fair.url, player)
    deliveries = wait_until(
        lambda: found if len(found := _deliveries(fair.url, key, hook)) >= games else None,
        60,
        "app 1's deliveries in its log",
    )
    for _ in range(again):
        for delivery in deliveries:
            _redeliver(fair.url, key, hook, delivery["delivery_id"])
    return Backlog(receiver, key, hook, deliveries)


def test_another_apps_notice_waits_for_at_most_one_attempt_of_a_slow_apps_backlog(fair):
    slow = _slow_app(fair)
    fast = Receiver(fair.folder)
    try:
        wait_until(lambda: slow.receiver.received() or None, 60, "app 1's first attempt")
        key = app_key(fair.redis)
        register(fair.url, key, fast.url, ["game.started"])
        player = player_token(fair.url, key, "fast")["token"]
        asked = time.time()
        game = _game(fair.url, player)

        def started() -> dict | None:
            for got in fast.received():
                body = json.loads(got["body"])
                if body["type"] == "game.started" and body["data"]["game_id"] == game["game_id"]:
                    return got
            return None

        arrived = wait_until(started, 180, "app 2's game.started")["arrived"]
        # one attempt of app 1 may be under way when app 2's game starts, and app 1 may
        # take one turn before app 2's: two of app 1's requests at most, not its backlog
        in_between = _arrivals(slow.receiver, asked, arrived)
        assert in_between <= 2, (
            f"app 2's game.started waited for {in_between} attempts of app 1's backlog"
        )
    finally:
        slow.receiver.stop()
        fast.stop()


def test_a_game_is_archived_while_a_slow_apps_backlog_still_waits(fair):
    slow = _slow_app(fair)
    try:
        wait_until(lambda: slow.receiver.received() or None, 60, "app 1's first attempt")
        key = app_key(fair.redis)
        player = player_token(fair.url, key, "resigner")["token"]
        game = _game(fair.url, player)
        asked = time.time()
        resigned = requests.post(
            f"{fair.url}/v1/games/{game['game_id']}/resign",
            headers={"Authorization": f"Bearer {game['token']}"},
            timeout=10,
        )
        assert resigned.status_code == 200, resigned.text
        wait_until(
            lambda: archived_rows(fair.archive_url, [game["game_id"]])[game["game_id"]] == 1,
            180,
            "the resigned game in the archive",
        )
        archived = time.time()
        # the attempt under way when the game ended, and one begun after the archiving
        # before this poll saw its row: not the backlog
        in_between = _arrivals(slow.receiver, asked, archived)
        assert in_between <= 2, f"the game's archiving waited for {in_between} webhook attempts"
    finally:
        slow.receiver.stop()


def test_a_delivery_asked_again_while_its_redelivery_waits_is_sent_once(fair):
    receiver = Receiver(fair.folder, delay=SLOW_ANSWER)
    try:
        key = app_key(fair.redis)
        hook = register(fair.url, key, receiver.url, ["game.started"])
        player = player_token(fair.url, key, "again")["token"]
        _game(fair.url, player)
        _game(fair.url, player)
        wait_until(lambda: len(receiver.received()) >= 2, 60, "two first attempts")
        first, second = _deliveries(fair.url, key, hook)[:2]
        before = len(receiver.received())
        # three more deliveries before the redeliveries: seconds of sending they wait behind
        for _ in range(3):
            _game(fair.url, player)
        asked = [_redeliver(fair.url, key, hook, first["delivery_id"]) for _ in range(5)]
        assert all(answer.status_code == 202 for answer in asked), [a.text for a in asked]
        # a marker asked after them: once it is sent, every redelivery asked before it was
        marker = _redeliver(fair.url, key, hook, second["delivery_id"])
        assert marker.status_code == 202, marker.text

        def sent(delivery: dict) -> list[dict]:
            return [
                got
                for got in receiver.received()[before:]
                if got["headers"].get("Schnapsen-Delivery") == delivery["delivery_id"]
            ]

        wait_until(lambda: sent(second), 120, "the marker's redelivery")
        again = sent(first)
        assert len(again) == 1, f"five redeliveries of one waiting delivery sent {len(again)}"
    finally:
        receiver.stop()


def test_past_the_apps_cap_of_pending_redeliveries_a_redelivery_is_refused(fair):
    slow = _slow_app(fair, games=REDELIVERIES_PER_APP * 2, again=0)
    try:
        # every delivery attempted once: each redelivery now is a new pending one
        wait_until(
            lambda: all(d["attempts"] >= 1 for d in _deliveries(fair.url, slow.key, slow.hook)),
            180,
            "every first attempt",
        )
        answers = [
            _redeliver(fair.url, slow.key, slow.hook, delivery["delivery_id"])
            for delivery in slow.deliveries
        ]
        statuses = [answer.status_code for answer in answers]
        assert 429 in statuses, statuses
        refused = answers[statuses.index(429)]
        assert refused.headers["Content-Type"].startswith("application/problem+json")
        assert refused.json()["code"] == "too_many_redeliveries"
        assert statuses.count(202) <= REDELIVERIES_PER_APP + 1, statuses
    finally:
        slow.receiver.stop()
