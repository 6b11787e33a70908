"""GET /metrics: Prometheus text that moves with requests, actions, jobs and games."""

from __future__ import annotations

import random

import pytest
import redis
import requests
from prometheus_client.parser import text_string_to_metric_families
from rq import SimpleWorker
from rq.serializers import JSONSerializer

from service.engine import ActionTaken
from service.jobs.names import DECISIONS, EXPORTS
from service.jobs.queues import queue
from service.web.app import create_app
from tests.support.bot_games import play_against_bot
from tests.support.games import create, new_game, play_random_game
from tests.support.http import Api
from tests.support.log import log_events
from tests.support.paths import SECRET
from tests.support.servers import LiveServer, WorkerProcess


def scrape(client) -> dict[tuple[str, frozenset], float]:
    response = client.get("/metrics")
    assert response.status_code == 200
    return parse(response.get_data(as_text=True))


def parse(text: str) -> dict[tuple[str, frozenset], float]:
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def test_metrics_are_prometheus_text(client):
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    text = response.get_data(as_text=True)
    assert "# TYPE schnapsen_http_requests_total counter" in text
    assert "# TYPE schnapsen_http_request_duration_seconds histogram" in text
    parse(text)  # the official parser reads all of it


def test_the_request_counter_and_latency_move_by_route_template(client):
    before = scrape(client)
    for _ in range(3):
        assert client.get("/v1/games/not-a-game").status_code == 404
    after = scrape(client)
    labels = {"method": "GET", "route": "/v1/games/<game_id>", "status": "404"}
    assert (
        value(after, "schnapsen_http_requests_total", **labels)
        - value(before, "schnapsen_http_requests_total", **labels)
        == 3
    )
    count = "schnapsen_http_request_duration_seconds_count"
    route = {"method": "GET", "route": "/v1/games/<game_id>"}
    assert value(after, count, **route) - value(before, count, **route) == 3
    # No label per game id: the path's id never becomes a series.
    assert not any("not-a-game" in str(key) for key in after)


def test_unknown_paths_share_one_series(client):
    before = scrape(client)
    client.get("/nowhere/1")
    client.get("/nowhere/2")
    after = scrape(client)
    labels = {"method": "GET", "route": "<unmatched>", "status": "404"}
    name = "schnapsen_http_requests_total"
    assert value(after, name, **labels) - value(before, name, **labels) == 2


def test_actions_and_games_are_counted(client):
    api = Api(client)
    before = scrape(client)
    game = new_game(api)
    middle = scrape(client)
    assert (
        value(middle, "schnapsen_games_created_total")
        == value(before, "schnapsen_games_created_total") + 1
    )
    assert value(middle, "schnapsen_games_active") == value(before, "schnapsen_games_active") + 1

    play_random_game(api, game, random.Random(7))
    after = scrape(client)
    actions = value(after, "schnapsen_actions_appended_total") - value(
        middle, "schnapsen_actions_appended_total"
    )
    assert actions == len(game.sent) > 0
    assert (
        value(after, "schnapsen_games_finished_total")
        == value(middle, "schnapsen_games_finished_total") + 1
    )
    assert value(after, "schnapsen_games_active") == value(before, "schnapsen_games_active")

    # Seeing the finished game again counts its finish once only.
    for seat in (0, 1):
        assert api.get(game.path, token=game.tokens[seat]).status == 200
    again = scrape(client)
    for name in ("schnapsen_games_finished_total", "schnapsen_games_active"):
        assert value(again, name) == value(after, name), name


def test_an_idempotent_replay_of_a_create_counts_one_game(client):
    api = Api(client)
    before = scrape(client)
    first = create(api, {}, key="metrics-once-000001")
    again = create(api, {}, key="metrics-once-000001")
    assert first["game_id"] == again["game_id"]
    after = scrape(client)
    name = "schnapsen_games_created_total"
    assert value(after, name) - value(before, name) == 1


def test_jobs_queued_failed_and_workers_are_read_from_redis(lone_redis, lone_app):
    connection = redis.Redis.from_url(lone_redis.url)
    client = lone_app.test_client()
    empty = scrape(client)
    assert value(empty, "schnapsen_jobs_queued", queue=DECISIONS) == 0
    assert value(empty, "schnapsen_workers", queue=DECISIONS) == 0
    assert value(empty, "schnapsen_redis_up", role="log") == 1

    decisions = queue(DECISIONS, connection)
    decisions.enqueue("builtins.len", [1, 2])
    decisions.enqueue("builtins.int", "not a number")  # fails when run
    queued = scrape(client)
    assert value(queued, "schnapsen_jobs_queued", queue=DECISIONS) == 2
    assert value(queued, "schnapsen_jobs_queued", queue=EXPORTS) == 0

    # A real RQ worker runs both: one finishes, one fails.
    SimpleWorker([decisions], connection=connection, serializer=JSONSerializer).work(burst=True)
    ran = scrape(client)
    assert value(ran, "schnapsen_jobs_queued", queue=DECISIONS) == 0
    assert value(ran, "schnapsen_jobs_failed", queue=DECISIONS) == 1
    assert value(ran, "schnapsen_jobs_failed", queue=EXPORTS) == 0


def test_metrics_answer_when_redis_is_down():
    app = create_app({"REDIS_URL": "redis://127.0.0.1:1/0", "SECRET_KEY": SECRET})
    samples = scrape(app.test_client())
    assert value(samples, "schnapsen_redis_up", role="log") == 0
    assert value(samples, "schnapsen_redis_up", role="queues") == 0
    assert not any(key[0] == "schnapsen_jobs_queued" for key in samples)


@pytest.mark.slow
def test_multiprocess_mode_sums_every_gunicorn_process(redis_url, tmp_path):
    folder = tmp_path / "metrics"
    folder.mkdir()
    server = LiveServer(redis_url, workers=2, env={"PROMETHEUS_MULTIPROC_DIR": str(folder)})
    try:
        for _ in range(40):
            # A new connection each time, so both processes answer some.
            answer = requests.get(f"{server.url}/docs/init.js", headers={"Connection": "close"})
            assert answer.status_code == 200
        samples = parse(requests.get(f"{server.url}/metrics", timeout=10).text)
        files = {path.name for path in folder.iterdir()}
    finally:
        server.stop()
    # Every gunicorn process writes its values to the folder (files named by pid; the
    # actions counter no longer makes a counter file in each process at import, since it
    # is counted in Redis), and the scrape sums them all.
    assert len({name.removesuffix(".db").rsplit("_", 1)[-1] for name in files}) >= 2, files
    labels = {"method": "GET", "route": "/docs/init.js", "status": "200"}
    assert value(samples, "schnapsen_http_requests_total", **labels) == 40


def test_a_bot_move_appended_by_a_worker_counts_like_a_players(lone_redis, lone_app):
    """The API and the workers are built by one composition root: both count actions."""
    client = lone_app.test_client()
    before = scrape(client)
    worker = WorkerProcess(lone_redis.url)
    try:
        game_id, final = play_against_bot(client, "random", seed=11)
    finally:
        worker.stop()
    assert final["status"] == "finished"
    actions = [
        e
        for e in log_events(redis.Redis.from_url(lone_redis.url), game_id)
        if isinstance(e, ActionTaken)
    ]
    by_bot = [e for e in actions if e.seat == 1]
    assert by_bot, "the bot never moved"
    after = scrape(client)
    name = "schnapsen_actions_appended_total"
    assert value(after, name) - value(before, name) == len(actions)
