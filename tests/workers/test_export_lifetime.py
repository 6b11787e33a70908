"""A built replay export is a short-lived cache in Redis: an hour, then built again.

An export is a pure function of the game, built in milliseconds from Redis or
the archive, and downloaded right after its job ends; kept a week, every
export asked for would hold its bytes in Redis's memory all that time. So the
export and its job's report are kept an hour at most, and an export asked for
after that is built again, with the same id and the same bytes.

Through real processes: the API under gunicorn and an RQ worker on the test's
own Redis.
"""

from __future__ import annotations

import random

import redis

from service.jobs.queues import RESULT_TTL
from tests.support.games import new_game, play_random_game
from tests.support.http import Api, ok
from tests.support.servers import LiveServer, WorkerProcess
from tests.support.waiting import wait_until

HANG_BOUND = 60


def _export(api: Api, game_id: str) -> dict:
    """Ask for a spectator's json export, wait for its job: the job's result."""
    job = ok(api.post(f"/v1/games/{game_id}/exports", json_body={"format": "json"}), 202)

    def finished() -> dict | None:
        report = ok(api.get(f"/v1/jobs/{job['id']}?wait=5"))
        assert report["status"] != "failed", report
        return report if report["status"] == "finished" else None

    return wait_until(finished, HANG_BOUND, "the export job")


def test_an_export_and_its_jobs_report_stay_in_redis_an_hour_at_most_then_are_built_again(
    own_redis,
):
    client = redis.Redis.from_url(own_redis)
    server = LiveServer(own_redis, workers=1)
    worker = WorkerProcess(own_redis)
    try:
        api = Api.live(server.url)
        game = new_game(api, seed=7)
        play_random_game(api, game, random.Random(7))
        made = _export(api, game.game_id)
        export_id = made["result"]["export_id"]
        download = api.get(f"/v1/exports/{export_id}")
        assert download.status == 200, download

        kept = {
            key.decode(): client.ttl(key)
            for pattern in (f"*{export_id}*",)
            for key in client.scan_iter(match=pattern, count=1000)
        }
        assert f"sch:export:{{{export_id}}}" in kept, kept
        assert all(0 < ttl <= RESULT_TTL for ttl in kept.values()), kept

        # Its hour over (the keys expired), the same export is built again, the same.
        client.delete(*kept)
        assert api.get(f"/v1/exports/{export_id}").status == 404
        again = _export(api, game.game_id)
        assert again["result"] == made["result"]
        rebuilt = api.get(f"/v1/exports/{export_id}")
        assert rebuilt.status == 200 and rebuilt.text == download.text
    finally:
        worker.stop()
        server.stop()
