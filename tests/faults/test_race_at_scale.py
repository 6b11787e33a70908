"""Many clients at once, racing, duplicating and retrying: no event lost, none doubled.

50 client processes play 100 games against gunicorn and a real Redis. Each
action is sent, at random, once; twice at the same moment with the same
Idempotency-Key (a duplicate); together with a conflicting action for the
same version (a race: exactly one may win); or again after its answer (a
retry). At the end the logs hold exactly the acknowledged actions, and
every log replays to the state the API serves.
"""

from __future__ import annotations

import multiprocessing
import random
import threading
import uuid
from typing import Any

import requests

from service.engine import ActionTaken, replay
from service.engine.observation import observe
from service.store.events import EventStore
from tests.support.http import auth
from tests.support.servers import LiveServer

CLIENTS = 50
GAMES_PER_CLIENT = 2


def send(session: requests.Session, method: str, url: str, **kwargs: Any) -> requests.Response:
    """A request, sent again (same body, same Idempotency-Key) when the connection drops.

    A server may close an idle keep-alive connection just as a request goes
    out on it; clients are expected to retry, and the key makes that safe.
    """
    for _attempt in range(5):
        try:
            return session.request(method, url, timeout=30, **kwargs)
        except (requests.ConnectionError, requests.exceptions.ChunkedEncodingError):
            continue
    return session.request(method, url, timeout=30, **kwargs)


def post_together(session_pair, url: str, bodies, headers_list) -> list[requests.Response]:
    """Send requests at the same moment from two threads (two connections)."""
    barrier = threading.Barrier(len(bodies))
    answers: list[Any] = [None] * len(bodies)

    def post(index: int) -> None:
        barrier.wait()
        try:
            answers[index] = send(
                session_pair[index], "POST", url, json=bodies[index], headers=headers_list[index]
            )
        except Exception as error:  # shown by the caller, not lost in the thread
            answers[index] = error

    threads = [threading.Thread(target=post, args=(i,)) for i in range(len(bodies))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for answer in answers:
        if isinstance(answer, Exception):
            raise answer
    return answers


def client(args: tuple[str, int]) -> dict[str, Any]:
    """One client process: plays its games; returns what the service acknowledged."""
    url, seed = args
    rng = random.Random(seed)
    sessions = (requests.Session(), requests.Session())
    acknowledged: set[str] = set()
    games: list[tuple[str, dict[int, str]]] = []
    counts = {"single": 0, "duplicate": 0, "race": 0, "retry": 0, "lost_race": 0}
    for _ in range(GAMES_PER_CLIENT):
        key = str(uuid.uuid4())
        created = send(sessions[0], "POST", f"{url}/v1/games", json={},
                       headers={"Idempotency-Key": key}).json()  # fmt: skip
        game = created["game_id"]
        joined = send(sessions[0], "POST", f"{url}/v1/games/{game}/join",
                      json={"invite": created["invite"]}, headers={"Idempotency-Key": key})  # fmt: skip
        tokens = {0: created["token"], 1: joined.json()["token"]}
        games.append((game, tokens))
        path = f"{url}/v1/games/{game}/actions"
        mover = joined.json()["game"]  # seat 1's view; the answer of each action follows
        while mover["status"] != "finished":
            seat = mover["to_move"]
            if mover["seat"] != seat:  # the last answer was the other seat's view
                mover = send(
                    sessions[0], "GET", f"{url}/v1/games/{game}", headers=auth(tokens[seat])
                )
                mover = mover.json()
            legal = mover["deal"]["legal_actions"]
            action = rng.choice(legal)
            key = str(uuid.uuid4())
            headers = {**auth(tokens[seat]), "Idempotency-Key": key}
            mode = rng.choice(["single", "duplicate", "race", "retry"])
            if mode == "race" and len(legal) < 2:
                mode = "single"
            counts[mode] += 1
            if mode == "duplicate":
                answers = post_together(sessions, path, [action, action], [headers, headers])
                assert [a.status_code for a in answers] == [200, 200], [a.text for a in answers]
                assert answers[0].json() == answers[1].json()
                acknowledged.add(key)
                mover = answers[0].json()
            elif mode == "race":
                other = rng.choice([a for a in legal if a != action])
                other_key = str(uuid.uuid4())
                bodies = [dict(action, expected_version=mover["version"]),
                          dict(other, expected_version=mover["version"])]  # fmt: skip
                other_headers = {**auth(tokens[seat]), "Idempotency-Key": other_key}
                answers = post_together(sessions, path, bodies, [headers, other_headers])
                codes = sorted(a.status_code for a in answers)
                assert codes == [200, 409], [a.text for a in answers]
                won = 0 if answers[0].status_code == 200 else 1
                acknowledged.add(key if won == 0 else other_key)
                counts["lost_race"] += 1
                mover = answers[won].json()
            else:
                first = send(sessions[0], "POST", path, json=action, headers=headers)
                assert first.status_code == 200, first.text
                acknowledged.add(key)
                mover = first.json()
                if mode == "retry":
                    again = send(sessions[1], "POST", path, json=action, headers=headers)
                    assert again.status_code == 200 and again.json() == first.json()
                    assert again.headers.get("Idempotent-Replayed") == "true"
    return {"acknowledged": len(acknowledged), "games": games, "counts": counts}


def test_fifty_clients_a_hundred_games_nothing_lost_nothing_doubled(redis_url, redis_client):
    server = LiveServer(redis_url, workers=2)
    try:
        with multiprocessing.get_context("fork").Pool(CLIENTS) as pool:
            results = pool.map(client, [(server.url, seed) for seed in range(CLIENTS)])
        store = EventStore(redis_client)
        games = [game for result in results for game in result["games"]]
        assert len(games) == CLIENTS * GAMES_PER_CLIENT
        acknowledged = sum(result["acknowledged"] for result in results)
        appended = 0
        session = requests.Session()
        for game, tokens in games:
            log = store.events(game)
            state = replay(log)
            assert state.winner is not None
            appended += sum(1 for event in log if isinstance(event, ActionTaken))
            served = session.get(f"{server.url}/v1/games/{game}", headers=auth(tokens[1])).json()
            assert served["version"] == len(log)
            expected = observe(state, 1)
            assert {key: served[key] for key in expected} == expected
        counts = {name: sum(r["counts"][name] for r in results) for name in results[0]["counts"]}
        lost = acknowledged - appended
        doubled = appended - acknowledged
        print(f"\n{len(games)} games, {CLIENTS} clients: {acknowledged} actions acknowledged, "
              f"{appended} appended; lost {max(lost, 0)}, doubled {max(doubled, 0)}; {counts}")  # fmt: skip
        assert appended == acknowledged, f"lost {lost}, doubled {doubled}"
        assert counts["duplicate"] and counts["race"] and counts["retry"]
    finally:
        server.stop()
