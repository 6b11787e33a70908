"""The failover drill: ``kill -9`` a primary while clients play; nothing acknowledged is lost.

Six clients play games between people through the three API replicas, every
action with an Idempotency-Key, sent again (to the next replica) on a 5xx or a
lost connection until it has an answer, as a client behind a load balancer
does. With replica acks on (``SCHNAPSEN_REPLICA_ACKS=1``) an action is
acknowledged only once a replica has it. The primary of a game being played
is killed; its replica takes over after ``cluster-node-timeout``, and every API
replica reads every game again, without a restart.

The promoted primary has no replica of its own: with one replica per primary,
its slots take no acknowledged write (503, retried by the clients) until the
killed node is started again, as an orchestrator restarts a dead container, and
rejoins as its replica. Then the clients play on through the same API processes.

At the end every log is compared with what its client was told: each
acknowledged action is in the log exactly once (lost = 0, doubled = 0).
"""

from __future__ import annotations

import random
import threading
import uuid
from dataclasses import dataclass, field

import pytest
import requests

from service.engine import ActionTaken
from service.store.events import EventStore, keys
from tests.support.cluster_games import (
    HumanGame,
    new_human_game,
    play_one,
    send,
    shard_subscribers,
    view,
)
from tests.support.http import auth
from tests.support.streams import start_watching, woke_with_an_action
from tests.support.waiting import wait_until

pytestmark = pytest.mark.cluster

CLIENTS = 6
#: Actions each client has acknowledged before the kill, and again after the takeover.
ACTIONS_BEFORE = 5
ACTIONS_AFTER = 5
#: How long the drill's event streams wait for an action without a heartbeat (the
#: topology's SCHNAPSEN_SSE_HEARTBEAT_SECONDS): across the takeover and the restart.
STREAM_SECONDS = 150
#: cluster-node-timeout during the drill's takeover: longer than a subscriber takes to
#: notice its primary is gone.
SLOW_NODE_TIMEOUT_MS = 8000


@dataclass
class Client:
    """One playing client: its games, and the error that stopped it (if any)."""

    seed: int
    games: list[HumanGame] = field(default_factory=list)
    error: BaseException | None = None

    @property
    def acknowledged(self) -> int:
        return sum(len(game.acknowledged) for game in self.games)


def run_client(topology, client: Client, stop: threading.Event) -> None:
    rng = random.Random(client.seed)
    session = requests.Session()
    try:
        while not stop.is_set():
            if not client.games or client.games[-1].finished:
                client.games.append(new_human_game(topology.next_url, session))
            answer = play_one(topology.next_url, session, client.games[-1], rng)
            if answer is not None:
                assert answer.status_code == 200, (answer.status_code, answer.text)
    except BaseException as error:  # shown by the test, not lost in the thread
        client.error = error


def compare(store: EventStore, clients: list[Client]) -> tuple[int, int, int, int]:
    """(acknowledged, appended, lost, doubled) over every game the clients played."""
    acknowledged = appended = lost = doubled = 0
    for client in clients:
        for game in client.games:
            logged = [(e.seat, e.action.to_dict()) for e in store.events(game.game_id)
                      if isinstance(e, ActionTaken)]  # fmt: skip
            told = game.acknowledged
            same = 0
            while same < min(len(logged), len(told)) and logged[same] == told[same]:
                same += 1
            acknowledged += len(told)
            appended += len(logged)
            lost += len(told) - same
            doubled += len(logged) - same
    return acknowledged, appended, lost, doubled


def set_node_timeout(topology, milliseconds: int) -> None:
    """``cluster-node-timeout`` on every live node: how long a dead primary goes unnoticed."""
    for node in topology.cluster.nodes:
        if node.alive():
            node.client().config_set("cluster-node-timeout", milliseconds)


def test_failover_drill_loses_and_doubles_no_acknowledged_action(topology, capsys):
    """Also: an event stream waiting on a game of the killed primary is subscribed again on
    the promoted one, and wakes for the next action there. The takeover is slow here
    (``SLOW_NODE_TIMEOUT_MS``), as on a loaded machine: the stream's process loses the
    dead node before any replica has its slots, and its first tries to subscribe again
    find the dead node still named as their primary."""
    session = requests.Session()
    watched = new_human_game(topology.next_url, session)
    victim = topology.cluster.node_of(keys(watched.game_id)["log"])
    watcher, seen = start_watching(topology.urls[0], session, watched, STREAM_SECONDS + 30)
    wait_until(lambda: shard_subscribers(topology, watched.game_id) == 1, 20,
               "the event stream's shard subscription")  # fmt: skip

    clients = [Client(seed) for seed in range(CLIENTS)]
    stop = threading.Event()
    threads = [threading.Thread(target=run_client, args=(topology, c, stop)) for c in clients]
    for thread in threads:
        thread.start()
    try:
        wait_until(lambda: all(c.acknowledged >= ACTIONS_BEFORE or c.error for c in clients),
                   60, "every client to play before the kill")  # fmt: skip
        assert not [c.error for c in clients if c.error]
        playing = watched.game_id
        before = [c.acknowledged for c in clients]
        set_node_timeout(topology, SLOW_NODE_TIMEOUT_MS)
        victim.kill()  # kill -9, while the clients play
        wait_until(
            topology.cluster.healthy, 90, "a replica to take over the killed primary's slots"
        )
        set_node_timeout(topology, topology.cluster.node_timeout_ms)
        promoted = topology.cluster.node_of(keys(playing)["log"])
        assert promoted.port != victim.port
        # Every API replica reads the games of the promoted primary, without a restart.
        for url in topology.urls:
            assert view(lambda url=url: url, requests.Session(), watched, 0)["game_id"] == playing
        # The event stream's process subscribed again, on the promoted primary.
        wait_until(lambda: shard_subscribers(topology, playing) == 1, 60,
                   "the event stream's subscription on the promoted primary")  # fmt: skip
        # The killed node comes back and rejoins as the promoted primary's replica.
        topology.cluster.restart(victim)
        assert topology.cluster.roles()[victim.port] == "slave"
        # The watched game's next action, through another replica, wakes the event stream.
        assert play_one(lambda: topology.urls[1], session, watched, random.Random(1))
        woke_with_an_action(watcher, seen, watched, STREAM_SECONDS + 60)
        wait_until(
            lambda: all(c.acknowledged >= b + ACTIONS_AFTER or c.error
                        for c, b in zip(clients, before, strict=True)),
            90,
            "every client to play on after the takeover",
        )  # fmt: skip
    finally:
        stop.set()
        for thread in threads:
            thread.join(120)
        set_node_timeout(topology, topology.cluster.node_timeout_ms)
        if not victim.alive():  # the drill failed before the restart: make the topology whole
            topology.cluster.restart(victim)
    assert not [c.error for c in clients if c.error]

    acknowledged, appended, lost, doubled = compare(EventStore(topology.log), clients)
    with capsys.disabled():
        print(
            f"\nfailover drill: acknowledged={acknowledged} appended={appended} "
            f"lost={lost} doubled={doubled} (killed primary :{victim.port}, "
            f"replica :{promoted.port} took over; replica acks on)"
        )
    assert lost == 0
    assert doubled == 0
    assert appended == acknowledged

    # The same API processes answer again, each of them, without a restart.
    session = requests.Session()
    for url in topology.urls:
        game = new_human_game(lambda url=url: url, session)
        seat = view(lambda url=url: url, session, game, 0)["to_move"]
        action = view(lambda url=url: url, session, game, seat)["deal"]["legal_actions"][0]
        acted = send(lambda url=url: url, "POST", f"/v1/games/{game.game_id}/actions",
                     session=session, json=action,
                     headers={**auth(game.tokens[seat]), "Idempotency-Key": str(uuid.uuid4())})  # fmt: skip
        assert acted.status_code == 200, acted.text
        assert requests.get(f"{url}/readyz", timeout=10).status_code == 200
