"""Idempotency-Key on create, join and actions.

A retried POST with the same key appends once and answers the same body; the
same key with a different body answers 422 ``idempotency_key_reused`` and
appends nothing. The log length in Redis is the witness.
"""

from __future__ import annotations

import threading
import uuid

import pytest

from service.web.app import create_app
from service.web.services import services
from tests.support.games import create, new_game, to_move_view, view
from tests.support.http import Api, ok, problem
from tests.support.log import log_head
from tests.support.paths import SECRET


def game_logs(redis_client) -> set[bytes]:
    return set(redis_client.scan_iter(match="sch:{*}:log", count=1000))


def test_a_retried_create_creates_one_game(client, redis_client):
    api = Api(client)
    key = f"create-{uuid.uuid4()}"
    body = {"variant": "tracked", "seed": 77}
    before = game_logs(redis_client)
    first = api.post("/v1/games", json_body=body, headers={"Idempotency-Key": key})
    second = api.post("/v1/games", json_body=body, headers={"Idempotency-Key": key})
    assert first.status == second.status == 201
    assert first.json() == second.json()
    assert second.headers.get("Idempotent-Replayed") == "true"
    assert first.headers["Location"] == second.headers["Location"]
    created = first.json()
    assert created["token"] and created["invite"]
    assert game_logs(redis_client) - before == {f"sch:{{{created['game_id']}}}:log".encode()}
    assert log_head(redis_client, created["game_id"]) == created["version"] == 3
    # The answer's token and invite still work: they are the game's own.
    assert view(Api(client), created["game_id"], created["token"])["seat"] == 0


def test_a_create_key_reused_with_another_body_is_refused(client, redis_client):
    api = Api(client)
    key = f"create-{uuid.uuid4()}"
    created = create(api, {"variant": "head"}, key=key)
    before = game_logs(redis_client)
    reply = api.post(
        "/v1/games", json_body={"variant": "tracked"}, headers={"Idempotency-Key": key}
    )
    problem(reply, 422, "idempotency_key_reused")
    assert game_logs(redis_client) == before
    assert log_head(redis_client, created["game_id"]) == created["version"]


def test_a_retried_join_joins_once_and_answers_the_same_token(client, redis_client):
    api = Api(client)
    created = create(api)
    gid = created["game_id"]
    key = f"join-{uuid.uuid4()}"
    path = f"/v1/games/{gid}/join"
    first = api.post(
        path, json_body={"invite": created["invite"]}, headers={"Idempotency-Key": key}
    )
    head = log_head(redis_client, gid)
    second = api.post(
        path, json_body={"invite": created["invite"]}, headers={"Idempotency-Key": key}
    )
    assert first.status in (200, 201) and second.status == first.status
    assert first.json() == second.json()
    assert second.headers.get("Idempotent-Replayed") == "true"
    assert head == created["version"] + 1 == log_head(redis_client, gid)
    assert view(api, gid, second.json()["token"])["seat"] == 1
    # Without the key the same join is a second join: refused, nothing appended.
    problem(api.post(path, json_body={"invite": created["invite"]}), 409, "seat_taken")
    assert log_head(redis_client, gid) == head


def test_a_retried_action_is_appended_once_and_answers_the_same_view(client, redis_client):
    api = Api(client)
    game = new_game(api, variant="head", seed=5)
    seen = to_move_view(api, game)
    seat, action = seen["seat"], seen["deal"]["legal_actions"][0]
    key = f"act-{uuid.uuid4()}"
    path = f"{game.path}/actions"
    headers = {"Idempotency-Key": key}
    first = api.post(path, json_body=action, token=game.tokens[seat], headers=headers)
    after_first = log_head(redis_client, game.game_id)
    assert after_first == seen["version"] + 1
    second = api.post(path, json_body=action, token=game.tokens[seat], headers=headers)
    assert first.status == second.status == 200
    assert first.json() == second.json()
    assert second.headers.get("Idempotent-Replayed") == "true"
    assert second.headers["ETag"] == first.headers["ETag"]
    assert log_head(redis_client, game.game_id) == after_first

    # The game moves on; a late retry still answers the first answer, appends nothing.
    nxt = to_move_view(api, game)
    ok(api.post(path, json_body=nxt["deal"]["legal_actions"][0], token=game.tokens[nxt["seat"]]))
    moved = log_head(redis_client, game.game_id)
    third = api.post(path, json_body=action, token=game.tokens[seat], headers=headers)
    assert third.status == 200 and third.json() == first.json()
    assert log_head(redis_client, game.game_id) == moved


def test_an_action_key_reused_with_another_body_is_refused(client, redis_client):
    api = Api(client)
    game = new_game(api, variant="head", seed=6)
    seen = to_move_view(api, game)
    seat = seen["seat"]
    plays = [a for a in seen["deal"]["legal_actions"] if a["type"] == "play"]
    key = f"act-{uuid.uuid4()}"
    headers = {"Idempotency-Key": key}
    path = f"{game.path}/actions"
    ok(api.post(path, json_body=plays[0], token=game.tokens[seat], headers=headers))
    head = log_head(redis_client, game.game_id)
    # The other seat is to move now and plays a legal card, but with the first key.
    other = to_move_view(api, game)
    legal = other["deal"]["legal_actions"][0]
    reply = api.post(path, json_body=plays[1], token=game.tokens[seat], headers=headers)
    problem(reply, 422, "idempotency_key_reused")
    assert log_head(redis_client, game.game_id) == head
    # Keys belong to a seat: the other seat may use the same key for its own action.
    ok(api.post(path, json_body=legal, token=game.tokens[other["seat"]], headers=headers))
    assert log_head(redis_client, game.game_id) > head


def test_an_invalid_idempotency_key_is_refused(client, redis_client):
    api = Api(client)
    game = new_game(api)
    seen = to_move_view(api, game)
    head = log_head(redis_client, game.game_id)
    reply = api.post(
        f"{game.path}/actions",
        json_body=seen["deal"]["legal_actions"][0],
        token=game.tokens[seen["seat"]],
        headers={"Idempotency-Key": "with spaces"},
    )
    problem(reply, 400, "invalid_idempotency_key")
    assert log_head(redis_client, game.game_id) == head


# -- a retry that overlaps its original ------------------------------------


class Interleave:
    """Runs a retried request and its original in a chosen order around the retry's read.

    ``pause="before_read"``: the retry waits until the original has appended,
    then reads the game. ``pause="after_read"``: the retry reads the game
    first, then waits until the original has appended, then decides and
    appends on what it read. The store's ``load`` and ``append`` are wrapped
    on the test's own app instance only; Redis itself is real and untouched.
    """

    def __init__(self, store, pause: str):
        self.retry_read = threading.Event()
        self.original_done = threading.Event()
        real_load, real_append = store.load, store.append
        first_read = []

        def load(*args, **kwargs):
            retry = threading.current_thread().name == "retry" and not first_read
            if retry:
                first_read.append(True)
                if pause == "before_read":
                    self.retry_read.set()
                    assert self.original_done.wait(10)
            loaded = real_load(*args, **kwargs)
            if retry and pause == "after_read":
                self.retry_read.set()
                assert self.original_done.wait(10)
            return loaded

        def append(*args, **kwargs):
            try:
                return real_append(*args, **kwargs)
            finally:
                if threading.current_thread().name == "original":
                    self.original_done.set()

        store.load, store.append = load, append

    def run(self, app, method: str, path: str, **kwargs):
        replies = {}

        def send(name: str) -> None:
            replies[name] = Api(app.test_client()).request(method, path, **kwargs)

        retry = threading.Thread(target=send, args=("retry",), name="retry")
        retry.start()
        assert self.retry_read.wait(10)
        original = threading.Thread(target=send, args=("original",), name="original")
        original.start()
        original.join(15)
        retry.join(15)
        return replies["original"], replies["retry"]


def assert_same_answer(original, retry) -> None:
    """The retry answers the original's answer, told that it is a replay."""
    assert retry.status == original.status, (original, retry)
    assert retry.json() == original.json()
    assert retry.headers.get("Idempotent-Replayed") == "true", retry.headers


@pytest.mark.parametrize("pause", ["before_read", "after_read"])
def test_a_retry_overlapping_its_original_action_answers_like_it(redis_url, redis_client, pause):
    app = create_app({"REDIS_URL": redis_url, "SECRET_KEY": SECRET})
    api = Api(app.test_client())
    game = new_game(api, variant="head", seed=8, first_dealer=1)
    seen = to_move_view(api, game)
    play = next(a for a in seen["deal"]["legal_actions"] if a["type"] == "play")
    interleave = Interleave(services(app).store, pause)
    original, retry = interleave.run(
        app,
        "POST",
        f"{game.path}/actions",
        json_body=play,
        token=game.tokens[seen["seat"]],
        headers={"Idempotency-Key": f"overlapping-retry-{pause}"},
    )
    assert original.status == 200, original
    assert_same_answer(original, retry)
    assert log_head(redis_client, game.game_id) == seen["version"] + 1


@pytest.mark.parametrize("pause", ["before_read", "after_read"])
def test_a_retry_overlapping_its_original_join_answers_like_it(redis_url, redis_client, pause):
    app = create_app({"REDIS_URL": redis_url, "SECRET_KEY": SECRET})
    api = Api(app.test_client())
    created = create(api)
    interleave = Interleave(services(app).store, pause)
    original, retry = interleave.run(
        app,
        "POST",
        f"/v1/games/{created['game_id']}/join",
        json_body={"invite": created["invite"]},
        headers={"Idempotency-Key": f"overlapping-join-{pause}"},
    )
    assert original.status in (200, 201), original
    assert_same_answer(original, retry)
    assert log_head(redis_client, created["game_id"]) == created["version"] + 1
