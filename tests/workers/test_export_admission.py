"""Replay exports are built once and kept once; export and analysis jobs are admitted with
a cap per caller and a bounded queue.

Real gunicorn, real RQ worker processes, each test on a Redis of its own, so the
keys it counts are its own. Callers are told apart by their 127.x address.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import redis
import requests

from service.devtools.embedded_redis import EmbeddedRedis
from service.jobs.names import EXPORTS
from tests.support.http import auth, session_from
from tests.support.servers import LiveServer, WorkerProcess
from tests.support.waiting import wait_until

SPECTATOR = "127.0.0.2"
SEAT_0 = "127.0.0.3"
SEAT_1 = "127.0.0.4"
STRANGER = "127.0.0.5"


@pytest.fixture
def own_redis(tmp_path) -> Iterator[tuple[str, redis.Redis]]:
    server = EmbeddedRedis(tmp_path / "redis").start()
    try:
        yield server.url, redis.Redis.from_url(server.url)
    finally:
        server.stop()


def serve(url: str, **settings: int) -> LiveServer:
    env = {f"SCHNAPSEN_{name}": str(value) for name, value in settings.items()}
    return LiveServer(url, env={"SCHNAPSEN_LOG_LEVEL": "WARNING", **env})


def export_keys(connection: redis.Redis) -> list[bytes]:
    return sorted(connection.scan_iter(match="sch:export:*", count=1000))


def job_keys(connection: redis.Redis) -> list[bytes]:
    return sorted(connection.scan_iter(match="rq:job:*", count=1000))


def two_seat_game(base: str) -> dict[str, Any]:
    """A game between two people: its id and both seats' tokens."""
    created = session_from(SEAT_0).post(f"{base}/v1/games", json={"seed": 5}, timeout=10)
    assert created.status_code == 201, created.text
    game = created.json()
    joined = session_from(SEAT_1).post(
        f"{base}/v1/games/{game['game_id']}/join", json={"invite": game["invite"]}, timeout=10
    )
    assert joined.status_code == 201, joined.text
    return {"game_id": game["game_id"], 0: game["token"], 1: joined.json()["token"]}


def finished_game(base: str, address: str) -> str:
    """A game seat 0 resigned at once: over, so anyone may export and analyse it."""
    game = two_seat_game(base)
    resigned = session_from(address).post(
        f"{base}/v1/games/{game['game_id']}/resign", headers=auth(game[0]), timeout=10
    )
    assert resigned.status_code == 200, resigned.text
    return game["game_id"]


def request_export(
    session: requests.Session, base: str, game_id: str, export_format: str, token: str | None = None
) -> requests.Response:
    return session.post(
        f"{base}/v1/games/{game_id}/exports",
        json={"format": export_format},
        headers=auth(token) if token else {},
        timeout=30,
    )


def finished_job(base: str, job_id: str) -> dict[str, Any]:
    def done() -> dict[str, Any] | None:
        job = requests.get(f"{base}/v1/jobs/{job_id}?wait=5", timeout=15).json()
        return job if job["status"] in ("finished", "failed") else None

    job = wait_until(done, 120, f"job {job_id} to finish")
    assert job["status"] == "finished", job
    return job


def assert_refused(answer: requests.Response, status: int, code: str) -> None:
    assert answer.status_code == status, answer.text
    assert answer.headers["Content-Type"].startswith("application/problem+json")
    assert answer.json()["code"] == code
    assert int(answer.headers["Retry-After"]) >= 1


def test_a_thousand_export_requests_store_one_export_per_version_visibility_and_format(
    own_redis,
):
    url, connection = own_redis
    server = serve(url)
    worker = WorkerProcess(url, SCHNAPSEN_LOG_LEVEL="WARNING")
    try:
        base = server.url
        game = two_seat_game(base)
        game_id = game["game_id"]
        local = threading.local()

        def spectator_export(_: int) -> requests.Response:
            if not hasattr(local, "session"):
                local.session = session_from(SPECTATOR)
            return request_export(local.session, base, game_id, "json")

        with ThreadPoolExecutor(16) as pool:
            answers = list(pool.map(spectator_export, range(1000)))
        assert {answer.status_code for answer in answers} == {202}
        export_ids = {answer.json()["export_id"] for answer in answers}
        assert len(export_ids) == 1, f"{len(export_ids)} exports for one game and viewer"
        job_ids = {answer.json()["id"] for answer in answers}
        assert len(job_ids) == 1, f"{len(job_ids)} jobs for one export"
        finished_job(base, job_ids.pop())
        stored = export_keys(connection)
        size = sum(connection.memory_usage(key) or 0 for key in stored)
        print(f"1000 requests for one export: {len(stored)} export key(s), {size} bytes")
        assert len(stored) == 1
        spectator_json = export_ids.pop()

        # Each visibility and each format is an export of its own, stored once.
        kinds = [
            (SEAT_0, "json", game[0]),
            (SEAT_1, "json", game[1]),
            (SPECTATOR, "ndjson", None),
            (SPECTATOR, "text", None),
        ]
        made = {}
        for address, export_format, token in kinds * 3:
            answer = request_export(session_from(address), base, game_id, export_format, token)
            assert answer.status_code == 202, answer.text
            made.setdefault((address, export_format), set()).add(answer.json()["export_id"])
        assert all(len(ids) == 1 for ids in made.values()), made
        new_ids = {ids.pop() for ids in made.values()}
        assert len(new_ids) == 4 and spectator_json not in new_ids
        for export_id in new_ids:
            finished_job(base, f"export-{export_id}")
        assert len(export_keys(connection)) == 5
        # A seat's export is that seat's: the other seat's token does not download it.
        seat_0_export = request_export(session_from(SEAT_0), base, game_id, "json", game[0]).json()
        downloaded = session_from(SEAT_1).get(
            f"{base}{seat_0_export['export_url']}", headers=auth(game[1]), timeout=10
        )
        assert downloaded.status_code == 401

        # A new version of the game is a new export.
        view = (
            session_from(SEAT_0)
            .get(f"{base}/v1/games/{game_id}", headers=auth(game[0]), timeout=10)
            .json()
        )
        mover = view["to_move"]
        seat_view = (
            session_from(SEAT_0)
            .get(f"{base}/v1/games/{game_id}", headers=auth(game[mover]), timeout=10)
            .json()
        )
        acted = session_from(SEAT_0).post(
            f"{base}/v1/games/{game_id}/actions",
            json=seat_view["deal"]["legal_actions"][0],
            headers=auth(game[mover]),
            timeout=10,
        )
        assert acted.status_code == 200, acted.text
        later = request_export(session_from(SPECTATOR), base, game_id, "json")
        assert later.status_code == 202
        assert later.json()["export_id"] != spectator_json
        finished_job(base, later.json()["id"])
        again = request_export(session_from(SPECTATOR), base, game_id, "json")
        assert again.json()["export_id"] == later.json()["export_id"]
        assert len(export_keys(connection)) == 6
    finally:
        worker.stop()
        server.stop()


def test_the_cap_per_caller_on_export_and_analysis_jobs_answers_429_and_stores_nothing(
    own_redis,
):
    url, connection = own_redis
    # No worker: the admitted jobs stay queued, so what is stored is plain to count.
    server = serve(url, EXPORT_JOBS_PER_CALLER_PER_HOUR=2)
    try:
        base = server.url
        game_id = finished_game(base, SEAT_0)
        caller = session_from(STRANGER)
        for export_format in ("json", "ndjson"):
            assert request_export(caller, base, game_id, export_format).status_code == 202
        jobs, exports, queued = (
            job_keys(connection),
            export_keys(connection),
            connection.llen(f"rq:queue:{EXPORTS}"),
        )

        refused = request_export(caller, base, game_id, "text")
        assert_refused(refused, 429, "too_many_jobs")
        analysis = caller.post(f"{base}/v1/games/{game_id}/analysis", json={}, timeout=10)
        assert_refused(analysis, 429, "too_many_jobs")
        assert job_keys(connection) == jobs
        assert export_keys(connection) == exports
        assert connection.llen(f"rq:queue:{EXPORTS}") == queued

        # Asking again for an export already made (or being made) costs nothing.
        assert request_export(caller, base, game_id, "json").status_code == 202
        # Another caller has a cap of its own.
        assert request_export(session_from(SPECTATOR), base, game_id, "text").status_code == 202
    finally:
        server.stop()


def test_a_full_export_queue_answers_503_with_retry_after_and_stores_nothing(own_redis):
    url, connection = own_redis
    # No worker: the queue fills up.
    server = serve(url, EXPORT_QUEUE_MAX_JOBS=2)
    try:
        base = server.url
        game_id = finished_game(base, SEAT_0)
        first = request_export(session_from(SEAT_0), base, game_id, "json")
        second = request_export(session_from(SEAT_1), base, game_id, "ndjson")
        assert first.status_code == second.status_code == 202
        jobs, exports = job_keys(connection), export_keys(connection)
        assert connection.llen(f"rq:queue:{EXPORTS}") == 2

        caller = session_from(STRANGER)
        assert_refused(request_export(caller, base, game_id, "text"), 503, "queue_full")
        analysis = caller.post(f"{base}/v1/games/{game_id}/analysis", json={}, timeout=10)
        assert_refused(analysis, 503, "queue_full")
        assert job_keys(connection) == jobs
        assert export_keys(connection) == exports
        assert connection.llen(f"rq:queue:{EXPORTS}") == 2

        # An export already queued is still answered: joining it adds no job.
        joined = request_export(caller, base, game_id, "json")
        assert joined.status_code == 202
        assert joined.json()["id"] == first.json()["id"]
    finally:
        server.stop()


def test_an_opponent_cannot_name_a_seats_export_job_from_the_game_alone(own_redis):
    """A seat's export job reports the SHA-256 of bytes holding that seat's hand; with the
    few hands left an opponent could match it, so only the seat learns the job's id."""
    url, _connection = own_redis
    server = serve(url)
    try:
        base = server.url
        game = two_seat_game(base)
        game_id = game["game_id"]
        view = (
            session_from(SEAT_0)
            .get(f"{base}/v1/games/{game_id}", headers=auth(game[0]), timeout=10)
            .json()
        )
        asked = request_export(session_from(SEAT_0), base, game_id, "json", game[0])
        assert asked.status_code == 202
        # What seat 1 can compute from the game's id and version alone.
        name = f"export|{game_id}|{view['version']}|seat0|json"
        guessed = hashlib.sha256(name.encode()).hexdigest()[:32]
        assert asked.json()["export_id"] != guessed
        answer = session_from(SEAT_1).get(f"{base}/v1/jobs/export-{guessed}", timeout=10)
        assert answer.status_code == 404, answer.text
    finally:
        server.stop()
