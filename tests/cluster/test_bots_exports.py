"""Bot games and replay exports with the log on the cluster and the queues on their own Redis.

The API replicas enqueue a bot's move on the queues' Redis; either worker
plays it against the cluster (its append is counted and published like a
player's), and the player, on the next replica, long-polls for it. An export
built by a worker into the cluster is downloaded from every replica.
"""

from __future__ import annotations

import hashlib
import random
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from service.engine import ActionTaken
from service.store.events import EventStore
from tests.support.http import auth

pytestmark = pytest.mark.cluster

BOT_GAMES = 4


def play_bot_game(topology, seed: int) -> tuple[str, str, dict]:
    """Seat 0 plays random legal actions against the random bot, to the end."""
    rng = random.Random(seed)
    session = requests.Session()
    created = session.post(
        f"{topology.next_url()}/v1/games",
        json={"opponent": {"type": "bot", "level": "random"}},
        timeout=10,
    )
    assert created.status_code == 201, created.text
    game_id, token = created.json()["game_id"], created.json()["token"]
    deadline = time.monotonic() + 120  # bounds a hang only
    while time.monotonic() < deadline:
        view = session.get(f"{topology.next_url()}/v1/games/{game_id}", headers=auth(token),
                           timeout=10).json()  # fmt: skip
        if view["status"] == "finished":
            return game_id, token, view
        if view["to_move"] != 0:
            session.get(
                f"{topology.next_url()}/v1/games/{game_id}/events",
                params={"after": view["version"], "wait": 10},
                headers=auth(token),
                timeout=20,
            )
            continue
        action = rng.choice(view["deal"]["legal_actions"])
        acted = session.post(f"{topology.next_url()}/v1/games/{game_id}/actions", json=action,
                             headers=auth(token), timeout=10)  # fmt: skip
        assert acted.status_code == 200, acted.text
    raise AssertionError(f"game {game_id} did not end within 120 s")


def test_bot_games_end_and_their_exports_download_from_every_replica(topology, queue_client):
    with ThreadPoolExecutor(BOT_GAMES) as pool:
        games = list(pool.map(lambda seed: play_bot_game(topology, seed), range(BOT_GAMES)))
    store = EventStore(topology.log)
    for game_id, _token, view in games:
        bot_actions = [
            e for e in store.events(game_id) if isinstance(e, ActionTaken) and e.seat == 1
        ]
        assert bot_actions, "the bot never moved"
        assert view["winner"] in (0, 1)
    # Nothing of the log went to the queues' Redis, and no queue key to the cluster.
    assert not list(queue_client.scan_iter(match="sch:{*}:log", count=1000))
    assert not any(topology.log.scan_iter(match="rq:*", count=1000))

    game_id, token, view = games[0]
    requested = requests.post(f"{topology.urls[0]}/v1/games/{game_id}/exports",
                              json={"format": "json"}, headers=auth(token), timeout=10)  # fmt: skip
    assert requested.status_code == 202, requested.text
    job = requests.get(f"{topology.urls[1]}{requested.headers['Location']}",
                       params={"wait": 30}, timeout=40).json()  # fmt: skip
    assert job["status"] == "finished", job
    downloads = [requests.get(f"{url}{job['result']['url']}", headers=auth(token), timeout=10)
                 for url in topology.urls]  # fmt: skip
    assert {d.status_code for d in downloads} == {200}
    assert {hashlib.sha256(d.content).hexdigest() for d in downloads} == {job["result"]["sha256"]}
