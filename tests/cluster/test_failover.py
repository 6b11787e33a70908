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
from service.store import EventStore, keys
from tests.cluster.play import HumanGame, auth, new_human_game, play_one, send, view
from tests.cluster.test_games import shard_subscribers
from tests.waiting import wait_until

pytestmark = pytest.mark.cluster

CLIENTS = 6
#: Actions each client has acknowledged before the kill, and again after the takeover.
ACTIONS_BEFORE = 5
ACTIONS_AFTER = 5


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


def long_poll(url: str, game: HumanGame, seat: int, after: int, answer: dict) -> None:
    answer["reply"] = requests.get(f"{url}/v1/games/{game.game_id}/events",
                                   params={"after": after, "wait": 30},
                                   headers=auth(game.tokens[seat]), timeout=60)  # fmt: skip


def test_failover_drill_loses_and_doubles_no_acknowledged_action(topology, capsys):
    """Also: a long-poll waiting on a game of the killed primary is subscribed again on
    the promoted one, and wakes for the next action there."""
    session = requests.Session()
    watched = new_human_game(topology.next_url, session)
    seen = view(topology.next_url, session, watched, 0)
    victim = topology.cluster.node_of(keys(watched.game_id)["log"])
    polled: dict = {}
    poller = threading.Thread(target=long_poll, args=(topology.urls[0], watched,
                                                      1 - seen["to_move"], seen["version"], polled))  # fmt: skip
    poller.start()
    wait_until(lambda: shard_subscribers(topology, watched.game_id) == 1, 20,
               "the long-poll's shard subscription")  # fmt: skip

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
        victim.kill()  # kill -9, while the clients play
        wait_until(
            topology.cluster.healthy, 60, "a replica to take over the killed primary's slots"
        )
        promoted = topology.cluster.node_of(keys(playing)["log"])
        assert promoted.port != victim.port
        # Every API replica reads the games of the promoted primary, without a restart.
        for url in topology.urls:
            assert view(lambda url=url: url, requests.Session(), watched, 0)["game_id"] == playing
        # The long-poll's process subscribed again, on the promoted primary.
        wait_until(lambda: shard_subscribers(topology, playing) == 1, 30,
                   "the long-poll's subscription on the promoted primary")  # fmt: skip
        # The killed node comes back and rejoins as the promoted primary's replica.
        topology.cluster.restart(victim)
        assert topology.cluster.roles()[victim.port] == "slave"
        # The watched game's next action, through another replica, wakes the long-poll.
        assert play_one(lambda: topology.urls[1], session, watched, random.Random(1))
        poller.join(60)
        assert polled["reply"].status_code == 200
        assert polled["reply"].json()["events"], "the long-poll answered without the action"
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
