"""A bot's turn is never claimed on time (RX3): the workers make its move.

The bot takes a while over its move here (``SCHNAPSEN_BOT_DELAY_MS``) and the
turn timeout is short, so the human waiting for it could claim the game while
the bot still thinks. The claim is refused with 409 ``bot_turn_not_claimable``
and appends nothing; the bot's move then arrives from the worker as usual.
Log, queues, gunicorn and the RQ worker are this module's own, so no other
worker of the test run makes the bot's move.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from service.devtools.embedded_redis import EmbeddedRedis
from tests.support.http import Api, ok, problem
from tests.support.log import log_head, log_unchanged
from tests.support.servers import LiveServer, WorkerProcess
from tests.support.waiting import wait_until

TIMEOUT_SECONDS = 0.3
BOT_DELAY_MS = 4000


@pytest.fixture(scope="module")
def own_redis(tmp_path_factory) -> Iterator[EmbeddedRedis]:
    server = EmbeddedRedis(tmp_path_factory.mktemp("bot-turn-redis")).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def server(own_redis) -> Iterator[LiveServer]:
    env = {"SCHNAPSEN_TURN_TIMEOUT_SECONDS": str(TIMEOUT_SECONDS)}
    live = LiveServer(own_redis.url, workers=1, env=env)
    try:
        yield live
    finally:
        live.stop()


@pytest.fixture(scope="module")
def slow_bot_worker(own_redis) -> Iterator[WorkerProcess]:
    worker = WorkerProcess(own_redis.url, SCHNAPSEN_BOT_DELAY_MS=str(BOT_DELAY_MS))
    try:
        yield worker
    finally:
        worker.stop()


@pytest.fixture(scope="module")
def redis_client(own_redis):
    import redis

    return redis.Redis.from_url(own_redis.url)


def bot_game_with_the_bot_to_move(api: Api) -> dict:
    """A game against the random bot in which the bot leads the first trick."""
    for first_dealer in (0, 1):
        created = ok(
            api.post(
                "/v1/games",
                json_body={
                    "opponent": {"type": "bot", "level": "random"},
                    "first_dealer": first_dealer,
                },
            ),
            201,
        )
        if created["game"]["to_move"] == 1:
            return created
    raise AssertionError("no first dealer lets the bot lead")


def test_a_lost_bot_move_is_asked_for_again_by_the_next_read(own_redis, server, redis_client):
    """The bot's job vanished from the queues (a queue Redis that lost its data): the
    next read of the game asks a worker again, and the bot moves."""
    from rq.job import Job

    from service.jobs.queues import bot_move_job_id

    api = Api.live(server.url)
    created = bot_game_with_the_bot_to_move(api)
    gid, version = created["game_id"], created["version"]
    job_id = bot_move_job_id(gid, version)
    Job.fetch(job_id, connection=redis_client).delete(remove_from_queue=True)
    assert not Job.exists(job_id, connection=redis_client)
    worker = WorkerProcess(own_redis.url)
    try:
        ok(api.get(f"/v1/games/{gid}", token=created["token"]))
        assert Job.exists(job_id, connection=redis_client)
        wait_until(
            lambda: log_head(redis_client, gid) > version,
            timeout=60,
            what="the bot's move asked for again",
        )
    finally:
        worker.stop()


def test_a_bot_move_that_failed_for_good_is_asked_for_again(own_redis, server, redis_client):
    """Every try of the bot's job failed (its worker could not reach the game store):
    the next read asks again, and a worker that can reach it makes the move."""
    from rq.job import Job, JobStatus
    from rq.serializers import JSONSerializer

    from service.jobs.queues import bot_move_job_id

    api = Api.live(server.url)
    created = bot_game_with_the_bot_to_move(api)
    gid, version = created["game_id"], created["version"]
    job_id = bot_move_job_id(gid, version)

    def status() -> JobStatus:
        job = Job.fetch(job_id, connection=redis_client, serializer=JSONSerializer)
        return job.get_status()

    cut_off = WorkerProcess("unix:///nonexistent/redis.sock", QUEUE_REDIS_URL=own_redis.url)
    try:
        wait_until(
            lambda: status() == JobStatus.FAILED, timeout=60, what="the job to fail for good"
        )
    finally:
        cut_off.stop()
    assert log_head(redis_client, gid) == version
    worker = WorkerProcess(own_redis.url)
    try:
        ok(api.get(f"/v1/games/{gid}", token=created["token"]))
        wait_until(
            lambda: log_head(redis_client, gid) > version,
            timeout=60,
            what="the bot's move asked for again",
        )
    finally:
        worker.stop()


def test_the_waiting_human_cannot_claim_a_bots_turn(server, slow_bot_worker, redis_client):
    api = Api.live(server.url)
    created = bot_game_with_the_bot_to_move(api)
    gid, token = created["game_id"], created["token"]
    version = created["version"]
    path = f"/v1/games/{gid}/claim-timeout"
    # Past the turn timeout while the bot still thinks (its move takes BOT_DELAY_MS).
    time.sleep(TIMEOUT_SECONDS * 3)
    with log_unchanged(redis_client, gid):
        body = problem(api.post(path, token=token), 409, "bot_turn_not_claimable")
    assert "bot" in body["detail"]
    assert log_head(redis_client, gid) == version, "the bot moved before the claim: no proof"
    # The worker's move arrives; then it is the human's turn, and the game runs on.
    wait_until(
        lambda: log_head(redis_client, gid) > version,
        timeout=60,
        what="the bot's move from the worker",
    )
    seen = ok(api.get(f"/v1/games/{gid}", token=token))
    assert seen["status"] == "active" and seen["ending"] is None


def test_a_humans_turn_against_a_bot_is_not_claimed_by_the_bot_side(server, redis_client):
    """The human to move is no waiting seat: 409 ``not_waiting`` as between people."""
    api = Api.live(server.url)
    for first_dealer in (0, 1):
        created = ok(
            api.post(
                "/v1/games",
                json_body={
                    "opponent": {"type": "bot", "level": "random"},
                    "first_dealer": first_dealer,
                },
            ),
            201,
        )
        if created["game"]["to_move"] == 0:
            break
    else:
        raise AssertionError("no first dealer lets the human lead")
    gid = created["game_id"]
    with log_unchanged(redis_client, gid):
        reply = api.post(f"/v1/games/{gid}/claim-timeout", token=created["token"])
        problem(reply, 409, "not_waiting")
