"""kill -9 of API worker processes while clients append: nothing lost, nothing doubled."""

from __future__ import annotations

import os
import random
import signal
import threading
import time
import uuid

import requests

from service.engine import ActionTaken, replay
from service.store.events import EventStore
from tests.support.http import auth
from tests.support.processes import descendants
from tests.support.servers import LiveServer

CLIENTS = 6
#: Workers to kill before the clients may stop (they play game after game until then).
KILLS = 4
#: A client sends one request this many times at most before it calls it lost.
ATTEMPTS = 200
#: Workers killed while clients only create games.
CREATE_KILLS = 12


def _in_progress(response: requests.Response) -> bool:
    return response.status_code == 409 and "idempotency_in_progress" in response.text


def killing(server: LiveServer, kills: list[int], enough: threading.Event, count: int,
            stop: threading.Event) -> threading.Thread:  # fmt: skip
    """A thread that kill -9s one of the server's workers every 0.4 s, ``count`` times."""

    def killer() -> None:
        rng = random.Random(1)
        while not stop.wait(0.4):
            workers = sorted(descendants(server.process.pid))
            if workers:
                victim = rng.choice(workers)
                try:
                    os.kill(victim, signal.SIGKILL)
                    kills.append(victim)
                except ProcessLookupError:
                    pass
            if len(kills) >= count:
                enough.set()
                return

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    return thread


def under_kills(server: LiveServer, clients: list[Client], work, count: int,
                enough: threading.Event) -> list[int]:  # fmt: skip
    """``work(client)`` for every client while ``count`` workers are killed under them
    (``enough`` is set once they are); then the server stops. The pids killed."""
    stop = threading.Event()
    kills: list[int] = []
    try:
        killing(server, kills, enough, count, stop)
        run_all(clients, work)
    finally:
        stop.set()
        server.stop()
    assert len(kills) >= count, f"only {len(kills)} workers were killed"
    assert sum(c.retries for c in clients) > 0, "the kills hit requests in flight"
    return kills


def run_all(clients: list[Client], work) -> None:
    """``work(client)`` in a thread per client; the first error of any of them fails the test."""
    errors: list[BaseException] = []

    def run(client: Client) -> None:
        try:
            work(client)
        except BaseException as error:  # shown by the test, not lost in the thread
            errors.append(error)

    threads = [threading.Thread(target=run, args=(c,)) for c in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=240)
    assert not any(thread.is_alive() for thread in threads), "a client hung"
    if errors:
        raise errors[0]


class Client:
    """Plays one game for both seats, retrying every failed request with its key."""

    def __init__(self, url: str, seed: int):
        self.url, self.rng = url, random.Random(seed)
        self.session = requests.Session()
        self.acknowledged: dict[str, int] = {}  # idempotency key -> version answered
        self.retries = 0

    def call(self, method: str, path: str, **kwargs) -> requests.Response:
        """The request's answer, sent again (same key) after a 5xx, a lost connection or
        ``idempotency_in_progress``, as a careful client does (at most ATTEMPTS times)."""
        response = None
        for _attempt in range(ATTEMPTS):
            try:
                response = self.session.request(method, self.url + path, timeout=10, **kwargs)
            except requests.RequestException:
                self.retries += 1
                time.sleep(0.05)
                continue
            if response.status_code >= 500:  # a worker died mid-request: try again
                self.retries += 1
                time.sleep(0.05)
                continue
            if _in_progress(response):  # the first request with this key may still land
                self.retries += 1
                time.sleep(float(response.headers.get("Retry-After", "1")))
                continue
            return response
        raise AssertionError(f"{method} {path} never succeeded: {response.text}")

    def create(self, key: str) -> dict:
        created = self.call("POST", "/v1/games", json={}, headers={"Idempotency-Key": key})
        assert created.status_code == 201, created.text
        return created.json()

    def play(self) -> str:
        key = str(uuid.uuid4())
        created = self.create(key)
        game = created["game_id"]
        joined = self.call("POST", f"/v1/games/{game}/join", json={"invite": created["invite"]},
                           headers={"Idempotency-Key": key}).json()  # fmt: skip
        tokens = {0: created["token"], 1: joined["token"]}
        while True:
            view = self.call("GET", f"/v1/games/{game}", headers=auth(tokens[0])).json()
            if view["status"] == "finished":
                return game
            seat = view["to_move"]
            mover = self.call("GET", f"/v1/games/{game}", headers=auth(tokens[seat])).json()
            action = self.rng.choice(mover["deal"]["legal_actions"])
            key = str(uuid.uuid4())
            headers = {**auth(tokens[seat]), "Idempotency-Key": key}
            answer = self.call("POST", f"/v1/games/{game}/actions", json=action, headers=headers)
            assert answer.status_code == 200, answer.text
            self.acknowledged[key] = answer.json()["version"]


def test_kill_9_of_api_workers_during_appends_loses_and_doubles_nothing(redis_url, redis_client):
    server = LiveServer(redis_url, workers=2)
    enough = threading.Event()
    clients = [Client(server.url, seed) for seed in range(CLIENTS)]
    games: list[str] = []

    def play(client: Client) -> None:
        while True:  # game after game, until enough workers died under them
            games.append(client.play())
            if enough.is_set():
                return

    kills = under_kills(server, clients, play, KILLS, enough)
    assert len(games) >= CLIENTS
    store = EventStore(redis_client)
    # games finish in any order: count over all of them
    acknowledged = sum(len(c.acknowledged) for c in clients)
    appended = 0
    for game in games:
        log = store.events(game)
        state = replay(log)  # every log replays to a valid state
        assert state.winner is not None
        appended += sum(1 for e in log if isinstance(e, ActionTaken))
    assert appended == acknowledged, "every acknowledged action exactly once"
    print(f"{len(kills)} workers killed, {sum(c.retries for c in clients)} retries, "
          f"{acknowledged} actions acknowledged, {appended} appended")  # fmt: skip


def test_kill_9_during_creates_leaves_no_idempotency_key_refused(redis_url, redis_client):
    """A worker killed in the middle of a create, whatever it had done: the client's
    retry with the same Idempotency-Key gets its game (201), once, and not a 409
    ``idempotency_in_progress`` for as long as the key is remembered."""
    server = LiveServer(redis_url, workers=2)
    enough = threading.Event()
    clients = [Client(server.url, seed) for seed in range(CLIENTS)]
    created: dict[str, str] = {}  # key -> game id

    def create(client: Client) -> None:
        while not enough.is_set():  # creates only, until enough workers died under them
            key = str(uuid.uuid4())
            created[key] = client.create(key)["game_id"]
            assert client.create(key)["game_id"] == created[key], "the same key, the same game"

    kills = under_kills(server, clients, create, CREATE_KILLS, enough)
    assert len(set(created.values())) == len(created), "a game for each key"
    store = EventStore(redis_client)
    for game_id in created.values():
        assert store.head(game_id) > 0, f"game {game_id} was answered but has no log"
    print(f"{len(kills)} workers killed while creating, {len(created)} games created, "
          f"{sum(c.retries for c in clients)} retries")  # fmt: skip
