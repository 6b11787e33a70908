"""A full store heals: the workers live through it and make room, /readyz says why it waits.

The run command as a user starts it (its embedded Redis, noeviction, its
supervisor, its RQ workers, its SQLite archive), its Redis limited to a little
more memory than it holds at the start. Games are created, every other one
resigned at once, until Redis refuses a write; then Redis is held full (its
limit below what it uses), so that nothing but freed memory lets it take a
write again. The workers are held still (SIGSTOP) while the store fills, so
that /readyz is seen saying ``store_full`` before they make room, and so that
the finished games are still waiting for their archiving when the store is
full. Let go, the workers must stay the same processes, archive finished
games and have Redis forget them until it has room, and the service becomes
ready again by itself. The waits' timeouts only bound a hang.
"""

from __future__ import annotations

import os
import signal

import pytest
import redis

from service.store.archiving import archived_key
from tests.support.full_store import hold_full, limit, limit_to, used_memory
from tests.support.http import Api, ok, problem
from tests.support.processes import supervised
from tests.support.servers import RunCommand, free_port
from tests.support.waiting import wait_until

#: Against a bot, with seat 0 (the creator) to lead: no bot move is queued.
NEW_GAME = {"opponent": {"type": "bot", "level": "random"}, "first_dealer": 1}
#: The room left in Redis for games when the test starts filling it.
ROOM = 2 * 1024 * 1024
#: Far more games than the room holds (bounds the loop).
MAX_GAMES = 5000
#: Bounds every wait for the service to heal (a hang, not a speed).
HANG_BOUND = 120


def redis_url(banner: str) -> str:
    """The embedded Redis's URL, from the run command's start banner."""
    for line in banner.splitlines():
        if line.startswith("embedded Redis at "):
            return line.split()[3]
    raise AssertionError(f"no embedded Redis in the banner:\n{banner}")


def log_key(game_id: str) -> str:
    return f"sch:{{{game_id}}}:log"


def readiness(api: Api) -> tuple[int, dict]:
    reply = api.get("/readyz")
    return reply.status, reply.json()


@pytest.mark.timeout(600)  # bounds a hang
def test_a_full_store_keeps_its_workers_alive_and_they_make_room(tmp_path):
    banner, errors = tmp_path / "stdout.log", tmp_path / "stderr.log"
    service = RunCommand(tmp_path / "var", free_port(), stderr=errors, stdout=banner)
    try:
        api = Api.live(service.url)
        wait_until(lambda: readiness(api)[0] == 200, HANG_BOUND, "the service to be ready")
        workers = supervised(service.process.pid, "workers")
        assert len(workers) == 2, workers  # the bot movers' and a general one
        client = redis.Redis.from_url(redis_url(banner.read_text()))
        limit_to(client, ROOM)

        finished: dict[str, str] = {}  # game id -> its seat's token
        playing: dict[str, str] = {}
        for pid in workers:
            os.kill(pid, signal.SIGSTOP)
        try:
            refused = None
            for number in range(MAX_GAMES):
                reply = api.post("/v1/games", json_body=NEW_GAME)
                if reply.status != 201:
                    refused = reply
                    break
                created = reply.json()
                game_id, token = created["game_id"], created["token"]
                playing[game_id] = token
                if number % 2 == 0:
                    reply = api.post(f"/v1/games/{game_id}/resign", token=token)
                    if reply.status != 200:
                        refused = reply
                        break
                    finished[game_id] = playing.pop(game_id)
            assert refused is not None, f"{MAX_GAMES} games fitted into {ROOM} bytes"
            problem(refused, 503, "store_full")
            assert len(finished) > 10, "the room held finished games before it was full"
            hold_full(client)

            status, body = readiness(api)
            assert status == 503, body
            assert "store_full" in body["missing"], body
        finally:
            for pid in workers:
                os.kill(pid, signal.SIGCONT)

        # Let go on a full store, the workers archive the finished games and Redis
        # forgets them: memory comes back below the limit, and the service is ready.
        wait_until(
            lambda: used_memory(client) < limit(client), HANG_BOUND, "Redis to have room again"
        )
        wait_until(lambda: readiness(api)[0] == 200, HANG_BOUND, "the service to be ready again")
        assert supervised(service.process.pid, "workers") == workers, "a worker was replaced"
        assert "died" not in errors.read_text(), errors.read_text()[-3000:]

        # Every finished game is in the archive: forgotten by Redis to make room, or (once
        # there was room again) archived by its job and kept for its grace period. Each
        # reads the same from wherever it is.
        def in_archive(game_id: str) -> bool:
            return not client.exists(log_key(game_id)) or client.exists(archived_key(game_id))

        wait_until(
            lambda: all(in_archive(game_id) for game_id in finished),
            HANG_BOUND,
            "every finished game to be archived",
        )
        forgotten = [game_id for game_id in finished if not client.exists(log_key(game_id))]
        assert forgotten, "no finished game left Redis"
        for game_id, token in finished.items():
            view = ok(api.get(f"/v1/games/{game_id}", token=token))
            assert view["status"] == "finished", view
        # The games in play stay in Redis, untouched.
        for game_id in playing:
            assert client.exists(log_key(game_id)), game_id
        # New games are taken again (the first may meet the store at its very edge, while
        # the last finished games are still being archived and forgotten).
        wait_until(
            lambda: api.post("/v1/games", json_body=NEW_GAME).status == 201,
            HANG_BOUND,
            "a new game to be created",
        )
        assert readiness(api)[0] == 200
    finally:
        service.interrupt()
