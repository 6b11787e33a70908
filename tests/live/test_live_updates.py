"""Live updates on the gevent server: streams that end, slots that free, nothing missed.

Against real gunicorn processes (gevent workers) and a real Redis; the watcher
test drives the per-process listener (``service.live.watcher``) on a real Redis too.
"""

from __future__ import annotations

import random
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

import pytest
import redis
import requests

from service.engine import Action, ActionTaken, ActionType, GameCreated, SeatTaken, Variant
from service.live.watcher import CLOSED_CHECK_SECONDS, LogWatcher
from service.store.events import EventStore
from tests.support.http import auth
from tests.support.servers import LiveServer
from tests.support.waiting import wait_until

#: Bounds a hang only: every answer here should take milliseconds.
HANG = 10


@pytest.fixture(scope="module")
def server(redis_url) -> Iterator[LiveServer]:
    """One gevent process, as the run command starts them."""
    live = LiveServer(redis_url, workers=1)
    try:
        yield live
    finally:
        live.stop()


@pytest.fixture
def one_slot_server(redis_url) -> Iterator[LiveServer]:
    """A gevent process whose waiting cap is a single slot, to see the slot come back."""
    # Heartbeats an hour apart: a slot given back sooner was freed by noticing the
    # closed socket, not by a failed heartbeat write.
    env = {"SCHNAPSEN_MAX_WAITING": "1", "SCHNAPSEN_SSE_HEARTBEAT_SECONDS": "3600"}
    live = LiveServer(redis_url, workers=1, env=env)
    try:
        yield live
    finally:
        live.stop()


def new_game(url: str) -> dict:
    """A human game with both seats taken: {game_id, tokens, version}."""
    created = requests.post(f"{url}/v1/games", json={}).json()
    joined = requests.post(
        f"{url}/v1/games/{created['game_id']}/join", json={"invite": created["invite"]}
    ).json()
    return {
        "game_id": created["game_id"],
        "tokens": {0: created["token"], 1: joined["token"]},
        "version": joined["version"],
    }


def view_of(url: str, game: dict, seat: int = 0) -> dict:
    """The game as ``seat`` sees it now."""
    return requests.get(
        f"{url}/v1/games/{game['game_id']}", headers=auth(game["tokens"][seat])
    ).json()


def act(url: str, game: dict, rng: random.Random) -> dict:
    """One random legal action of the seat to move; the new view."""
    seat = view_of(url, game)["to_move"]
    mover = view_of(url, game, seat)
    answer = requests.post(
        f"{url}/v1/games/{game['game_id']}/actions",
        json=rng.choice(mover["deal"]["legal_actions"]),
        headers=auth(game["tokens"][seat]),
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


def play_to_the_end(url: str, game: dict, seed: int) -> int:
    rng = random.Random(seed)
    while True:
        view = act(url, game, rng)
        if view["status"] == "finished":
            return view["version"]


def sse_events(response: requests.Response) -> Iterator[tuple[str, str]]:
    """(event, id) of each event of an SSE answer, until the server closes it."""
    kind = event_id = None
    for line in response.iter_lines(decode_unicode=True):
        if line.startswith("event: "):
            kind = line[7:]
        elif line.startswith("id: "):
            event_id = line[4:]
        elif line == "" and kind is not None:
            yield kind, event_id
            kind = event_id = None


def test_a_disconnected_sse_clients_slot_is_freed_without_waiting_for_a_heartbeat(one_slot_server):
    server = one_slot_server
    game = new_game(server.url)
    host = urlsplit(server.url)
    path = f"/v1/games/{game['game_id']}/stream"
    client = socket.create_connection((host.hostname, host.port), timeout=HANG)
    client.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    assert b"200 OK" in client.recv(4096)  # the stream holds the one waiting slot
    refused = requests.get(f"{server.url}{path}", timeout=HANG)
    assert refused.status_code == 503 and refused.json()["code"] == "too_many_waiting"
    client.close()  # the client leaves, without a word
    closed_at = time.monotonic()

    def slot_is_free() -> bool:
        again = requests.get(f"{server.url}{path}", stream=True, timeout=HANG)
        again.close()
        return again.status_code == 200

    # Freed long before the next heartbeat (an hour away): the closed socket was noticed.
    wait_until(slot_is_free, HANG, "the waiting slot to be given back", since=closed_at)
    print(f"slot free {time.monotonic() - closed_at:.2f} s after the client left")


def test_closed_sockets_are_looked_for_often_enough_to_free_a_slot_within_1_s():
    # One sweep per process polls every waiter's socket each CLOSED_CHECK_SECONDS, and
    # a waiter whose client has gone gives its slot back on that pass: the promised
    # bound of 1 s holds while two passes fit into it (the test above shows the pass
    # frees the slot, without asserting a duration on this shared machine).
    assert 2 * CLOSED_CHECK_SECONDS <= 1.0


def test_a_finished_games_stream_closes_after_its_last_event(server):
    game = new_game(server.url)
    path = f"{server.url}/v1/games/{game['game_id']}/stream?after={game['version']}"
    seen: list[tuple[str, str]] = []
    stream = requests.get(path, stream=True, timeout=HANG)  # open: its headers are in
    assert stream.status_code == 200

    def follow() -> None:
        with stream:
            seen.extend(sse_events(stream))  # returns once the server closes the stream

    reader = threading.Thread(target=follow, daemon=True)
    reader.start()
    final = play_to_the_end(server.url, game, seed=11)
    reader.join(HANG)
    assert not reader.is_alive(), "the stream of a finished game did not close"
    assert seen[-1] == ("end", None), "a final end event, with no id of its own"
    versions = [int(event_id) for kind, event_id in seen[:-1]]
    assert versions == list(range(game["version"] + 1, final + 1)), "every event, once"
    # Opened again from its start: every event, then end, then closed.
    with requests.get(f"{path.split('?')[0]}?after=0", stream=True, timeout=HANG) as response:
        replayed = list(sse_events(response))
    assert replayed[-1] == ("end", None) and len(replayed) == final + 1
    assert replayed[-2][1] == str(final)  # Last-Event-ID stays the last real event
    # Resumed at the end: 204, which tells an EventSource to stop reconnecting.
    done = requests.get(path.split("?")[0], headers={"Last-Event-ID": str(final)}, timeout=HANG)
    assert done.status_code == 204


def test_a_long_poll_on_a_finished_game_answers_at_once(server):
    game = new_game(server.url)
    final = play_to_the_end(server.url, game, seed=12)
    answer = requests.get(
        f"{server.url}/v1/games/{game['game_id']}/events?after={final}&wait=25",
        headers=auth(game["tokens"][0]),
        timeout=HANG,  # a wait of 25 s would be a hang here
    )
    assert answer.status_code == 200 and answer.json()["events"] == []


def test_events_carry_to_move_and_on_request_the_callers_view(server):
    game = new_game(server.url)
    rng = random.Random(5)
    before = game["version"]
    act(server.url, game, rng)
    feed = requests.get(
        f"{server.url}/v1/games/{game['game_id']}/events?after={before}&include=view",
        headers=auth(game["tokens"][1]),
    ).json()
    assert all("to_move" in event for event in feed["events"])
    view = feed["view"]
    assert view["version"] == feed["version"] and view["seat"] == 1
    assert view["to_move"] == feed["events"][-1]["to_move"]
    assert (view["deal"]["legal_actions"] != []) == (view["to_move"] == 1)


def test_no_event_is_missed_when_an_append_lands_between_the_version_read_and_the_wait(
    redis_client, redis_url
):
    """The interleaving forced, 200 times: register, read the version, append, wait."""
    store = EventStore(redis_client)
    watcher = LogWatcher(lambda: redis.Redis.from_url(redis_url))
    game_id = f"race-{random.randrange(10**9)}"
    store.append(game_id, 0, [GameCreated(Variant.HEAD, 0), SeatTaken(0)])
    version = 2
    for _ in range(200):
        with watcher.watch(game_id, version) as waiter:
            assert store.head(game_id) == version  # the waiter read the version...
            # ... and an append lands before it starts to wait
            store.append(game_id, version, [ActionTaken(0, Action(ActionType.CLAIM))])
            assert waiter.wait(HANG), "the append between the read and the wait was missed"
        version += 1
    assert watcher.waiting == 0


def test_no_long_poll_misses_an_append_racing_it(server):
    """Long-polls and appends sent at the same moment, 100 times: every poll gets its event."""
    game = new_game(server.url)
    rng = random.Random(13)
    for _ in range(100):
        view = view_of(server.url, game)
        if view["status"] == "finished":
            game = new_game(server.url)
            continue
        barrier = threading.Barrier(2)
        polled: list[requests.Response] = []
        feed = f"{server.url}/v1/games/{game['game_id']}/events?after={view['version']}&wait=8"

        def poll(feed: str = feed, barrier=barrier, polled: list = polled) -> None:
            barrier.wait()
            polled.append(requests.get(feed, timeout=HANG + 8))

        poller = threading.Thread(target=poll)
        poller.start()
        barrier.wait()
        act(server.url, game, rng)
        poller.join()
        answer = polled[0]
        assert answer.status_code == 200 and answer.json()["events"], "a racing append was missed"


@contextmanager
def commands_sent(client: redis.Redis) -> Iterator[list[str]]:
    """The commands clients (not scripts) send to Redis meanwhile (MONITOR), by name."""
    sent: list[str] = []
    end = f"end-of-watch-{random.randrange(10**9)}"
    with client.monitor() as monitor:

        def watch() -> None:
            while True:
                command = monitor.next_command()
                if end in command["command"]:
                    return
                if command["client_type"] != "lua":
                    sent.append(command["command"].split()[0].upper())

        watcher = threading.Thread(target=watch)
        watcher.start()
        try:
            yield sent
        finally:
            redis.Redis(connection_pool=client.connection_pool).echo(end)
            watcher.join(HANG)


def _waiting(url: str) -> float:
    for line in requests.get(f"{url}/metrics", timeout=HANG).text.splitlines():
        if line.startswith("schnapsen_waiting_requests "):
            return float(line.split()[1])
    return 0.0


@pytest.fixture(scope="module")
def two_processes(redis_url, tmp_path_factory) -> Iterator[LiveServer]:
    """Two gevent processes, as the run command starts them by default, whose /metrics
    sums both (so the waiting gauge counts every waiter, whichever process answers)."""
    metrics = tmp_path_factory.mktemp("metrics")
    live = LiveServer(redis_url, workers=2, env={"PROMETHEUS_MULTIPROC_DIR": str(metrics)})
    try:
        yield live
    finally:
        live.stop()


@pytest.mark.parametrize("fixture", ["server", "two_processes"])
def test_woken_waiters_read_nothing_from_redis(fixture, request, redis_client):
    """An append's announcement carries its events, and the process that appended keeps
    them: the waiters it wakes, in any process, send no read to Redis."""
    live: LiveServer = request.getfixturevalue(fixture)
    game = new_game(live.url)
    rng = random.Random(21)
    for _ in range(3):
        view = view_of(live.url, game)
        answers: list[requests.Response] = []
        feed = f"{live.url}/v1/games/{game['game_id']}/events?after={view['version']}&wait=8"

        def poll(feed: str = feed, answers: list = answers, seat: int | None = None) -> None:
            headers = auth(game["tokens"][seat]) if seat is not None else {}
            answers.append(requests.get(feed, headers=headers, timeout=HANG + 8))

        pollers = [threading.Thread(target=poll, kwargs={"seat": (0, 1, None)[i % 3]})
                   for i in range(8)]  # fmt: skip
        for poller in pollers:
            poller.start()
        wait_until(lambda: _waiting(live.url) == 8, timeout=HANG, what="the polls waiting")
        with commands_sent(redis_client) as sent:
            act(live.url, game, rng)
            for poller in pollers:
                poller.join()
        assert all(a.status_code == 200 and a.json()["events"] for a in answers)
        assert {a.json()["events"][0]["version"] for a in answers} == {view["version"] + 1}
        assert "XRANGE" not in sent, f"a woken waiter read the log again: {sent}"


@pytest.fixture(scope="module")
def heartbeat_server(redis_url) -> Iterator[LiveServer]:
    """One gevent process whose SSE streams send a heartbeat every second."""
    live = LiveServer(redis_url, workers=1, env={"SCHNAPSEN_SSE_HEARTBEAT_SECONDS": "1"})
    try:
        yield live
    finally:
        live.stop()


#: What a waiter would send to Redis to look at the log: its length or its events.
LOG_READS = {"XLEN", "XRANGE"}


def test_a_long_poll_that_waits_in_vain_reads_nothing_from_redis(heartbeat_server, redis_client):
    """Most waits end with nothing new (the other side is thinking): the process's one
    subscription, registered before the wait, proves the log has not grown, so the empty
    answer, and the re-poll after it, cost Redis nothing."""
    live = heartbeat_server
    game = new_game(live.url)
    feed = f"{live.url}/v1/games/{game['game_id']}/events?after={game['version']}&wait=1"
    headers = auth(game["tokens"][0])
    first = requests.get(feed, headers=headers, timeout=HANG)  # may learn the head once
    assert first.status_code == 200 and first.json()["events"] == []
    with commands_sent(redis_client) as sent:
        for _ in range(3):  # each waits its second, in vain, then asks again
            answer = requests.get(feed, headers=headers, timeout=HANG)
            assert answer.status_code == 200
            assert answer.json() == {"game_id": game["game_id"], "version": game["version"],
                                     "events": []}  # fmt: skip
    assert not LOG_READS & set(sent), f"a vain wait read the log: {sent}"
    # And the next append still reaches a waiter at once.
    waiting = threading.Thread(
        target=lambda: answers.append(requests.get(feed.replace("wait=1", "wait=8"),
                                                   headers=headers, timeout=HANG)))  # fmt: skip
    answers: list[requests.Response] = []
    waiting.start()
    wait_until(lambda: _waiting(live.url) == 1, timeout=HANG, what="the poll waiting")
    act(live.url, game, random.Random(3))
    waiting.join(HANG)
    assert [e["version"] for e in answers[0].json()["events"]] == [game["version"] + 1]


def test_an_sse_heartbeat_reads_nothing_from_redis(heartbeat_server, redis_client):
    """A stream's heartbeats (one a second here) send no read to Redis between events."""
    live = heartbeat_server
    game = new_game(live.url)
    stream_url = f"{live.url}/v1/games/{game['game_id']}/stream?after={game['version']}"
    with requests.get(stream_url, stream=True, timeout=HANG) as stream:
        assert stream.status_code == 200
        lines = stream.iter_lines(decode_unicode=True)

        def next_heartbeat() -> None:
            for line in lines:
                if line.startswith(": keep-alive"):
                    return
            raise AssertionError("the stream ended")

        next_heartbeat()  # the stream's first read of the log is behind it
        with commands_sent(redis_client) as sent:
            for _ in range(3):
                next_heartbeat()
    assert not LOG_READS & set(sent), f"a heartbeat read the log: {sent}"


def test_a_head_read_is_remembered_unless_a_lost_subscription_overtook_it(redis_url):
    """A waiter's head read stands for the game's version until announcements raise it,
    but not when the subscription was lost meanwhile (publishes may have been missed)."""
    watcher = LogWatcher(lambda: redis.Redis.from_url(redis_url))
    game_id = f"heads-{random.randrange(10**9)}"
    try:
        with watcher.watch(game_id, 0):

            def read_while_the_subscription_is_lost() -> int:
                watcher.wake_all()
                return 5

            assert watcher.head(game_id, read_while_the_subscription_is_lost) == 5
            assert watcher.announced(game_id) is None, "a read overtaken by a loss was kept"
            assert watcher.head(game_id, lambda: 7) == 7
            assert watcher.head(game_id, lambda: 0) == 7, "a remembered head is not read again"
            watcher.notify(game_id, 6)  # an announcement still on its way when 7 was read
            assert watcher.unchanged(game_id, 7) and not watcher.unchanged(game_id, 6)
            watcher.notify(game_id, 8)
            assert watcher.announced(game_id) == 8
    finally:
        watcher.close()
