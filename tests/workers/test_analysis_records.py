"""A game's analysis is kept in the database of record, not in Redis's memory.

An analysis costs a worker seconds of search, never changes once made, and is
read again days later; Redis holds what is live. With a database, the
analysis of a game (in play or finished) is written there: once the game is
archived and past its grace, Redis holds no key of it at all, and the
analysis still answers, the same, without a new job. (A job's report stays
for ``GET /v1/jobs/{id}``, an hour at most.)

Through real processes: the API under gunicorn and an RQ worker, both on the
test's own Redis and one SQLite database.
"""

from __future__ import annotations

import random

import redis

from service.jobs.queues import RESULT_TTL
from service.store.events import keys
from tests.support.games import new_game, to_move_view
from tests.support.http import Api, ok
from tests.support.servers import LiveServer, WorkerProcess
from tests.support.waiting import wait_until

GRACE_SECONDS = 1
HANG_BOUND = 120


def _analysed(api: Api, game_id: str) -> dict:
    """Ask for the whole game's analysis, wait for its job: the analysis."""
    job = ok(api.post(f"/v1/games/{game_id}/analysis"), 202)

    def finished() -> bool:
        report = ok(api.get(f"/v1/jobs/{job['id']}?wait=5"))
        assert report["status"] != "failed", report
        return report["status"] == "finished"

    wait_until(finished, HANG_BOUND, "the analysis job")
    return ok(api.get(f"/v1/games/{game_id}/analysis"))


def _keys_of(client: redis.Redis, game_id: str) -> list[str]:
    return sorted(key.decode() for key in client.scan_iter(match=f"*{game_id}*", count=1000))


def test_an_analysis_lives_in_the_database_and_redis_keeps_nothing_of_an_archived_game(
    own_redis, tmp_path
):
    env = {
        "SCHNAPSEN_ARCHIVE_URL": f"sqlite:///{tmp_path / 'archive.sqlite3'}",
        "SCHNAPSEN_ARCHIVE_GRACE_SECONDS": str(GRACE_SECONDS),
    }
    client = redis.Redis.from_url(own_redis)
    server = LiveServer(own_redis, workers=1, env=env)
    worker = WorkerProcess(own_redis, **env)
    try:
        api = Api.live(server.url)
        game = new_game(api, seed=11)
        rng = random.Random(11)
        for _ in range(6):  # a few decisions of the first deal, then a resign ends the game
            seen = to_move_view(api, game)
            assert seen is not None
            action = rng.choice(seen["deal"]["legal_actions"])
            ok(api.post(f"{game.path}/actions", json_body=action, token=game.tokens[seen["seat"]]))
        seen = to_move_view(api, game)
        assert seen is not None
        ok(api.post(f"{game.path}/resign", token=game.tokens[seen["seat"]]))

        analysed = _analysed(api, game.game_id)
        assert analysed["game_finished"] and analysed["decisions"], analysed

        # Archived, past its grace, forgotten: nothing of the game stays in Redis's memory.
        log = keys(game.game_id)["log"]
        wait_until(lambda: not client.exists(log), HANG_BOUND, "the archived game forgotten")
        # A job's report stays for GET /v1/jobs/{id}, an hour at most; nothing else does.
        left = [key for key in _keys_of(client, game.game_id) if not key.startswith("rq:")]
        assert left == [], f"Redis still holds {left}"
        reports = {key: client.ttl(key) for key in _keys_of(client, game.game_id)}
        assert all(0 < ttl <= RESULT_TTL for ttl in reports.values()), reports
        # ...and its analysis answers as before, from the database, with no new job.
        again = api.get(f"/v1/games/{game.game_id}/analysis")
        assert again.status == 200, again
        assert again.json() == analysed
    finally:
        worker.stop()
        server.stop()
