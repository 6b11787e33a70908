"""A worker started on a full store waits to register instead of exiting, and once there is
room it registers and plays the bot's move that waited.

A real worker process (the run command's worker of bot moves) on a Redis of
the test's own, held full before the worker starts: Redis refuses its
registration. The waits' timeouts only bound a hang.
"""

from __future__ import annotations

import redis
from rq import Worker

from service.jobs.names import MOVES
from service.serve.worker_commands import worker_command
from service.store.events import EventStore
from service.web.app import create_app
from tests.support.full_store import hold_full, make_room
from tests.support.http import Api, ok
from tests.support.paths import SECRET
from tests.support.servers import WorkerProcess
from tests.support.waiting import wait_until

HANG_BOUND = 60
#: Refused registrations the worker must live through.
REFUSALS = 3


def attempts(client: redis.Redis) -> int:
    """The transactions (MULTI) Redis has been asked to start: RQ registers a worker in one."""
    return int(client.info("commandstats").get("cmdstat_multi", {}).get("calls", 0))


def test_a_worker_started_on_a_full_store_waits_to_register_then_plays(own_redis):
    client = redis.Redis.from_url(own_redis)
    api = Api(create_app({"REDIS_URL": own_redis, "SECRET_KEY": SECRET}).test_client())
    # The bot (seat 1) leads: its move's job is queued, and no worker runs yet.
    created = ok(
        api.post(
            "/v1/games",
            json_body={"opponent": {"type": "bot", "level": "random"}, "first_dealer": 0},
        ),
        201,
    )
    game_id, version = created["game_id"], created["version"]
    store = EventStore(client)
    client.config_set("maxmemory", 64 * 1024 * 1024)
    hold_full(client)
    tried_before = attempts(client)

    worker = WorkerProcess(own_redis, worker_command([MOVES], log_level="WARNING"))
    try:
        wait_until(
            lambda: (
                worker.process.poll() is not None or attempts(client) >= tried_before + REFUSALS
            ),
            HANG_BOUND,
            f"{REFUSALS} refused registrations",
        )
        assert worker.process.poll() is None, "the worker exited on a full store"
        assert Worker.all(connection=client) == [], "registered on a full store"
        assert store.head(game_id) == version, "nothing is appended while the store is full"

        make_room(client)
        # At least one move: a bot that exchanges the trump jack or declares a marriage
        # is to move again, and its next move may land before the test looks.
        wait_until(lambda: store.head(game_id) > version, HANG_BOUND, "the bot's move")
        assert [w.name for w in Worker.all(connection=client)], "the worker registered"
        assert worker.process.poll() is None
    finally:
        make_room(client)
        worker.stop()
