"""Whole games on the Redis Cluster, each request to the next of three API replicas.

The keys of a game share its hash tag, so its log, seats, idempotency records
and snapshots live in one slot, and every script of the store touches that slot
only; games spread over the cluster's primaries. A long-poll on one replica
wakes for an append made through another (the listener of each process hears
every node's publishes).
"""

from __future__ import annotations

import random
import threading

import pytest
import requests

from service.engine import ActionTaken
from service.store.events import EventStore, keys
from service.web.app import create_app
from tests.support.cluster_games import new_human_game, play_one, shard_subscribers, view
from tests.support.http import auth
from tests.support.paths import SECRET
from tests.support.waiting import wait_until

pytestmark = pytest.mark.cluster

GAMES = 6


def test_whole_games_across_replicas_end_and_replay_the_same_on_every_replica(topology):
    """R10b: each game is played to its end, every request to the next replica;
    every replica serves the same finished game, and its log holds the actions."""
    session = requests.Session()
    rng = random.Random(16)
    games = [new_human_game(topology.next_url, session) for _ in range(GAMES)]
    for game in games:
        while play_one(topology.next_url, session, game, rng) is not None:
            pass
    store = EventStore(topology.log)
    for game in games:
        served = [
            session.get(f"{url}/v1/games/{game.game_id}", timeout=10).json()
            for url in topology.urls
        ]
        assert {s["status"] for s in served} == {"finished"}
        assert len({s["version"] for s in served}) == 1
        logged = [(e.seat, e.action.to_dict()) for e in store.events(game.game_id)
                  if isinstance(e, ActionTaken)]  # fmt: skip
        assert logged == game.acknowledged
        replays = [session.get(f"{url}/v1/games/{game.game_id}/replay", timeout=10).json()
                   for url in topology.urls]  # fmt: skip
        assert all(replay == replays[0] for replay in replays)
    # The games' slots are spread over more than one primary.
    nodes = {topology.log.get_node_from_key(keys(game.game_id)["log"]).name for game in games}
    assert len(nodes) > 1


def test_a_long_poll_on_one_replica_wakes_for_an_action_through_another(topology):
    """The waiting seat long-polls replica 0, whose process holds a shard subscription
    to the game's channel on the game's primary; the seat to move acts through replica 1."""
    session = requests.Session()
    first, second = topology.urls[0], topology.urls[1]
    game = new_human_game(lambda: first, session)
    seen = view(lambda: first, session, game, 0)
    mover = seen["to_move"]
    waiter = 1 - mover
    answer: dict = {}

    def wait() -> None:
        answer["reply"] = requests.get(
            f"{first}/v1/games/{game.game_id}/events",
            params={"after": seen["version"], "wait": 25},
            headers=auth(game.tokens[waiter]),
            timeout=40,
        )

    assert shard_subscribers(topology, game.game_id) == 0
    polling = threading.Thread(target=wait)
    polling.start()
    wait_until(lambda: shard_subscribers(topology, game.game_id) == 1, 20,
               "replica 0 to subscribe to the game's shard channel")  # fmt: skip
    mine = view(lambda: second, session, game, mover)
    acted = session.post(
        f"{second}/v1/games/{game.game_id}/actions",
        json=mine["deal"]["legal_actions"][0],
        headers=auth(game.tokens[mover]),
        timeout=10,
    )
    assert acted.status_code == 200, acted.text
    polling.join(40)
    reply = answer["reply"]
    assert reply.status_code == 200
    assert reply.json()["events"], "the long-poll answered without the new event"


def test_readiness_names_the_queues_when_the_log_is_on_a_cluster_without_queue_redis(topology):
    """RQ does not run on Redis Cluster: without QUEUE_REDIS_URL /readyz is 503 with
    ``queue_redis`` missing (and says why); the replicas, which have their queues, are ready."""
    app = create_app({"REDIS_URL": topology.cluster.url, "QUEUE_REDIS_URL": None,
                      "SECRET_KEY": SECRET})  # fmt: skip
    client = app.test_client()
    ready = client.get("/readyz")
    assert ready.status_code == 503
    problem = ready.get_json()
    assert "queue_redis" in problem["missing"]
    assert "QUEUE_REDIS_URL" in problem["checks"]["queue_redis"]
    assert problem["checks"]["redis"] == "ok"
    for url in topology.urls:
        answer = requests.get(f"{url}/readyz", timeout=10)
        assert answer.status_code == 200, answer.text
