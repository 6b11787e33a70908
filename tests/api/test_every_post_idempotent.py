"""Idempotency-Key on every POST, against gunicorn and a real Redis.

Resign, abort and a timeout claim append one event each: a retry with the
same key answers the first answer again (``Idempotent-Replayed: true``) and
appends nothing, even though the game is over by then. Hints, exports and
analysis requests start a job each: a retry answers the first answer (the
same job) and starts no other. The same key with another request is 422
``idempotency_key_reused``. The log's length and RQ's job keys are the
witnesses; openapi.yaml documents the header on every POST.
"""

from __future__ import annotations

import concurrent.futures
import uuid
from collections.abc import Iterator

import pytest

from service.web.openapi import OPENAPI_FILE, generate
from tests.support.games import Game, new_game, to_move_view
from tests.support.http import Api, ok, problem, session_from
from tests.support.log import log_head, log_unchanged
from tests.support.openapi_document import load_yaml
from tests.support.servers import LiveServer
from tests.support.waiting import wait_until

#: Turns time out quickly here, so a timeout claim can be retried.
TIMEOUT = "0.5"


@pytest.fixture(scope="module")
def server(redis_url: str) -> Iterator[LiveServer]:
    live = LiveServer(redis_url, workers=1, env={"SCHNAPSEN_TURN_TIMEOUT_SECONDS": TIMEOUT})
    try:
        yield live
    finally:
        live.stop()


@pytest.fixture
def api(server: LiveServer) -> Api:
    return Api.live(server.url)


def key() -> dict[str, str]:
    return {"Idempotency-Key": str(uuid.uuid4())}


def assert_replayed(first, second) -> None:
    """``second`` is ``first`` again, marked as a replay."""
    assert second.status == first.status, (first, second)
    assert second.json() == first.json()
    assert second.headers.get("Idempotent-Replayed") == "true", second.headers
    assert "Idempotent-Replayed" not in first.headers
    for name in ("ETag", "Location"):
        assert second.headers.get(name) == first.headers.get(name), name


def jobs(redis_client, kind: str) -> set[bytes]:
    return set(redis_client.scan_iter(match=f"rq:job:{kind}-*", count=1000))


# -- ending a game ----------------------------------------------------------


@pytest.mark.parametrize("ending", ["resign", "abort"])
def test_a_retried_ending_answers_the_first_answer_and_appends_once(api, redis_client, ending):
    game = new_game(api, seed=41)
    path, headers = f"{game.path}/{ending}", key()
    first = api.post(path, token=game.tokens[1], headers=headers)
    assert ok(first)["status"] == "finished"
    head = log_head(redis_client, game.game_id)
    with log_unchanged(redis_client, game.game_id):
        second = api.post(path, token=game.tokens[1], headers=headers)
    assert_replayed(first, second)
    assert head == first.json()["version"]
    # Without the key it is a new request, refused: the game is over.
    problem(api.post(path, token=game.tokens[1]), 409, "game_over")


def test_a_retried_timeout_claim_answers_the_first_answer(api, redis_client):
    game = new_game(api, seed=42, first_dealer=1)
    seen = to_move_view(api, game)
    assert seen is not None
    waiter = 1 - seen["seat"]
    path, headers = f"{game.path}/claim-timeout", key()
    first = wait_until(
        lambda: (
            (r := api.post(path, token=game.tokens[waiter], headers=headers)).status == 200 and r
        ),
        timeout=30,
        what="the turn to time out",
    )
    assert first.json()["ending"] == {"reason": "timed_out", "seat": waiter}
    with log_unchanged(redis_client, game.game_id):
        second = api.post(path, token=game.tokens[waiter], headers=headers)
    assert_replayed(first, second)


def test_a_refused_ending_is_not_remembered(api, redis_client):
    """A refusal stores nothing: the same key works once the request can succeed."""
    game = new_game(api, seed=43, first_dealer=1)
    seen = to_move_view(api, game)
    assert seen is not None
    mover = seen["seat"]
    path, headers = f"{game.path}/claim-timeout", key()
    with log_unchanged(redis_client, game.game_id):
        problem(api.post(path, token=game.tokens[mover], headers=headers), 409, "not_waiting")
    ok(api.post(f"{game.path}/resign", token=game.tokens[mover], headers=headers))


def test_a_lifecycle_key_reused_for_another_request_is_refused(api, redis_client):
    game = new_game(api, seed=44)
    headers = key()
    ok(api.post(f"{game.path}/abort", token=game.tokens[0], headers=headers))
    with log_unchanged(redis_client, game.game_id):
        reply = api.post(f"{game.path}/resign", token=game.tokens[0], headers=headers)
        problem(reply, 422, "idempotency_key_reused")


def test_an_ending_key_belongs_to_its_seat(api, redis_client):
    """The other seat's same key is its own request: refused here, the game being over."""
    game = new_game(api, seed=45)
    headers = key()
    ok(api.post(f"{game.path}/resign", token=game.tokens[0], headers=headers))
    with log_unchanged(redis_client, game.game_id):
        reply = api.post(f"{game.path}/resign", token=game.tokens[1], headers=headers)
        problem(reply, 409, "game_over")


# -- jobs: hints, exports, analysis -------------------------------------------


def seat_to_move(api: Api, game: Game) -> int:
    seen = to_move_view(api, game)
    assert seen is not None
    return seen["seat"]


def test_a_retried_hint_answers_the_same_job(api, redis_client):
    game = new_game(api, seed=46)
    seat = seat_to_move(api, game)
    path, headers = f"{game.path}/hint", key()
    before = jobs(redis_client, "hint")
    first = api.post(path, json_body={"level": "random"}, token=game.tokens[seat], headers=headers)
    assert first.status in (200, 202), first
    second = api.post(path, json_body={"level": "random"}, token=game.tokens[seat], headers=headers)
    assert_replayed(first, second)
    assert len(jobs(redis_client, "hint") - before) == 1
    other = api.post(path, json_body={"level": "novice"}, token=game.tokens[seat], headers=headers)
    problem(other, 422, "idempotency_key_reused")
    assert len(jobs(redis_client, "hint") - before) == 1


def test_a_retried_export_answers_the_same_export(api, redis_client):
    game = new_game(api, seed=47)
    path, headers = f"{game.path}/exports", key()
    before = jobs(redis_client, "export")
    first = api.post(path, json_body={"format": "text"}, headers=headers)
    assert first.status == 202, first
    second = api.post(path, json_body={"format": "text"}, headers=headers)
    assert_replayed(first, second)
    assert second.json()["export_id"] == first.json()["export_id"]
    assert len(jobs(redis_client, "export") - before) == 1
    problem(
        api.post(path, json_body={"format": "json"}, headers=headers), 422, "idempotency_key_reused"
    )


def test_a_spectators_export_key_is_scoped_to_its_address(server, redis_client):
    """Another address with the same key is a new request, not a replay of the first (it
    still gets the one stored export of that game, version, visibility and format)."""
    game = new_game(Api.live(server.url), seed=48)
    path, headers = f"{server.url}{game.path}/exports", key()
    first = session_from("127.0.0.21").post(path, json={"format": "json"}, headers=headers)
    other = session_from("127.0.0.22").post(path, json={"format": "json"}, headers=headers)
    assert first.status_code == other.status_code == 202, (first.text, other.text)
    assert "Idempotent-Replayed" not in other.headers
    assert other.json()["export_id"] == first.json()["export_id"]


def test_a_retried_analysis_request_answers_the_first_answer(api, redis_client):
    game = new_game(api, seed=49)
    ok(api.post(f"{game.path}/resign", token=game.tokens[0]))
    path, headers = f"{game.path}/analysis", key()
    first = api.post(path, json_body={"seat": 0}, headers=headers)
    assert first.status == 202, first
    second = api.post(path, json_body={"seat": 0}, headers=headers)
    assert_replayed(first, second)
    problem(api.post(path, json_body={"seat": 1}, headers=headers), 422, "idempotency_key_reused")


def test_a_retried_bot_move_request_answers_the_same_job(api, redis_client):
    from service.web.examples import BOT_MOVE

    headers = key()
    before = jobs(redis_client, "move")
    first = api.post("/v1/bot/moves", json_body=BOT_MOVE, headers=headers)
    assert first.status in (200, 202), first
    second = api.post("/v1/bot/moves", json_body=BOT_MOVE, headers=headers)
    assert_replayed(first, second)
    assert len(jobs(redis_client, "move") - before) == 1
    other = {**BOT_MOVE, "seed": 7}
    problem(
        api.post("/v1/bot/moves", json_body=other, headers=headers), 422, "idempotency_key_reused"
    )
    # Anonymous: the scope is the address, so a short key is refused and starts nothing.
    short = api.post("/v1/bot/moves", json_body=BOT_MOVE, headers={"Idempotency-Key": "move-1"})
    problem(short, 422, "idempotency_key_too_short")
    assert len(jobs(redis_client, "move") - before) == 1


def test_retries_at_once_start_one_job_and_all_answer_it(server, redis_client):
    """Retries that arrive while their original still runs wait for its answer: one
    job, and every caller is told of it (no "in progress" answer)."""
    api = Api.live(server.url)
    game = new_game(api, seed=50)
    path, headers = f"{game.path}/exports", key()
    before = jobs(redis_client, "export")
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        replies = list(
            pool.map(
                lambda _: Api.live(server.url).post(
                    path, json_body={"format": "json"}, headers=headers
                ),
                range(8),
            )
        )
    assert [reply.status for reply in replies] == [202] * 8, replies
    assert len({reply.json()["export_id"] for reply in replies}) == 1
    replayed = [reply for reply in replies if "Idempotent-Replayed" in reply.headers]
    assert len(replayed) == 7
    assert len(jobs(redis_client, "export") - before) == 1


# -- the document -------------------------------------------------------------


def test_the_document_offers_the_idempotency_key_on_every_post():
    for document in (load_yaml(generate()), load_yaml(OPENAPI_FILE.read_text())):
        missing = []
        for path, operations in document["paths"].items():
            post = operations.get("post")
            if post is None:
                continue
            names = {
                (parameter.get("in"), parameter.get("name"))
                for parameter in post.get("parameters", [])
            }
            if ("header", "Idempotency-Key") not in names:
                missing.append(path)
        assert not missing, f"POSTs without Idempotency-Key: {missing}"


def test_a_retry_that_waits_longer_or_not_at_all_is_the_same_request(api, redis_client):
    """``wait`` says how the caller waits, not what it asks for: a retry that changes it
    answers the first answer and starts no other job."""
    from service.web.examples import BOT_MOVE

    headers = key()
    before = jobs(redis_client, "move")
    first = api.post("/v1/bot/moves", json_body=BOT_MOVE, headers=headers)
    assert first.status in (200, 202), first
    for query in ("?wait=1", "?wait=0"):
        again = api.post(f"/v1/bot/moves{query}", json_body=BOT_MOVE, headers=headers)
        assert_replayed(first, again)
    assert len(jobs(redis_client, "move") - before) == 1
