"""Real concurrency against gunicorn (2 processes x 8 threads): optimistic versions.

Two clients send conflicting actions for the same version at the same moment
(a barrier releases both threads together, each with its own HTTP session).
Exactly one is appended; the other is refused as stale, 409 for
``expected_version`` and 412 for ``If-Match``. Afterwards the Redis log
replays to exactly what the API serves.
"""

from __future__ import annotations

import random
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import requests

from service.engine import replay
from tests.support.games import Game, create, new_game, to_move_view, view
from tests.support.http import Api, Reply, problem
from tests.support.log import engine_view, log_events, without_api_fields

RACES = 220


class Racer:
    """Sends two requests from two threads released together by a barrier.

    Each thread has its own ``requests.Session`` (its own keep-alive connection).
    """

    def __init__(self, base_url: str):
        self.base_url = base_url
        self.local = threading.local()
        self.sessions: list[requests.Session] = []
        self.pool = ThreadPoolExecutor(max_workers=2)
        self.barrier = threading.Barrier(2, timeout=10)

    def _api(self) -> Api:
        if not hasattr(self.local, "api"):
            session = requests.Session()
            self.sessions.append(session)
            self.local.api = Api.live(self.base_url, session)
        return self.local.api

    def race(self, *calls: Any) -> list[Reply]:
        def run(index: int) -> Reply:
            api = self._api()
            method, path, kwargs = calls[index]
            self.barrier.wait()
            return api.request(method, path, **kwargs)

        futures = [self.pool.submit(run, index) for index in range(2)]
        return [future.result(timeout=30) for future in futures]

    def close(self) -> None:
        self.pool.shutdown()
        for session in self.sessions:
            session.close()


def check_served_state_is_the_log(api: Api, game: Game, redis_client) -> None:
    """The log replays to what the API serves to each seat and to a spectator."""
    events = log_events(redis_client, game.game_id)
    state = replay(events)
    for token, seat in ((game.tokens[0], 0), (game.tokens[1], 1), (None, None)):
        served = view(api, game.game_id, token)
        assert served["version"] == len(events)
        assert without_api_fields(served) == engine_view(state, seat)


def test_conflicting_actions_at_one_version_append_exactly_once(live_server, redis_client):
    api = Api.live(live_server.url)
    racer = Racer(live_server.url)
    rng = random.Random("races")
    games: list[Game] = []
    outcomes = {409: 0, 412: 0}
    try:
        game = None
        races = 0
        while races < RACES:
            seen = None if game is None else to_move_view(api, game)
            if seen is None:
                game = new_game(api, variant=rng.choice(["head", "tracked"]))
                games.append(game)
                continue
            version, seat = seen["version"], seen["seat"]
            legal = seen["deal"]["legal_actions"]
            # Two different legal actions when there are two, else the only one twice.
            first, second = rng.sample(legal, 2) if len(legal) > 1 else (legal[0], legal[0])
            header = races % 2 == 1  # alternate expected_version (409) and If-Match (412)
            calls = []
            for action in (first, second):
                body = dict(action)
                headers = {}
                if header:
                    headers["If-Match"] = f'"{version}"'
                else:
                    body["expected_version"] = version
                calls.append(
                    (
                        "POST",
                        f"{game.path}/actions",
                        {"json_body": body, "headers": headers, "token": game.tokens[seat]},
                    )
                )
            replies = racer.race(*calls)
            races += 1

            winners = [i for i, reply in enumerate(replies) if reply.status == 200]
            assert len(winners) == 1, replies
            won = replies[winners[0]]
            lost = replies[1 - winners[0]]
            stale = problem(lost, 412 if header else 409, "stale_version")
            assert stale["expected_version"] == version, stale
            assert stale["current_version"] > version, stale
            outcomes[lost.status] += 1

            answer = won.json()
            appended = answer["version"] - version
            assert appended in (1, 2), answer  # the action, and a new deal when one ended
            assert won.headers["ETag"] == f'"{answer["version"]}"'
            events = log_events(redis_client, game.game_id)
            assert len(events) == answer["version"]
            # The winning action is the one the log holds at version + 1.
            logged = events[version]
            assert logged.seat == seat
            assert logged.action.to_dict() == (first, second)[winners[0]]
            game.sent.append((seat, logged.action.to_dict()))
    finally:
        racer.close()

    assert outcomes[409] >= RACES // 2 - 1 and outcomes[412] >= RACES // 2 - 1, outcomes
    for game in games:
        check_served_state_is_the_log(api, game, redis_client)


def test_two_joins_at_once_seat_exactly_one(live_server, redis_client):
    api = Api.live(live_server.url)
    racer = Racer(live_server.url)
    try:
        for _ in range(15):
            created = create(api)
            path = f"/v1/games/{created['game_id']}/join"
            call = ("POST", path, {"json_body": {"invite": created["invite"]}})
            replies = racer.race(call, call)
            statuses = sorted(reply.status for reply in replies)
            assert statuses in ([200, 409], [201, 409]), replies
            refused = next(reply for reply in replies if reply.status == 409)
            problem(refused, 409, "seat_taken")
            assert len(log_events(redis_client, created["game_id"])) == created["version"] + 1
            seated = next(reply for reply in replies if reply.status != 409).json()
            seen = view(api, created["game_id"], seated["token"])
            assert seen["seat"] == 1 and seen["status"] == "active"
    finally:
        racer.close()


def test_a_retry_racing_its_original_answers_like_it(live_server, redis_client):
    """The same request with the same Idempotency-Key sent twice at once (a client
    retrying on a timeout while the first attempt still runs) is appended once,
    and the retry is not told the action failed: it answers the first answer again
    (the append that records the key is the action's, so there is no "in progress").
    """
    api = Api.live(live_server.url)
    racer = Racer(live_server.url)
    rng = random.Random("idempotent-races")
    wrong: list[Any] = []
    try:
        for index in range(30):
            game = new_game(api)
            seen = to_move_view(api, game)
            assert seen is not None
            action = rng.choice(seen["deal"]["legal_actions"])
            call = (
                "POST",
                f"{game.path}/actions",
                {
                    "json_body": action,
                    "token": game.tokens[seen["seat"]],
                    "headers": {"Idempotency-Key": f"retry-race-{index}"},
                },
            )
            replies = racer.race(call, call)
            assert len(log_events(redis_client, game.game_id)) == seen["version"] + 1
            done = [reply for reply in replies if reply.status == 200]
            assert done, replies
            for reply in replies:
                if reply.status != 200:
                    wrong.append(reply)
                else:
                    assert reply.json() == done[0].json()
    finally:
        racer.close()
    assert not wrong, f"{len(wrong)} of 30 retries were refused although applied: {wrong[:3]}"
