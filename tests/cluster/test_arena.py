"""An arena whose games live on the Redis Cluster, behind two API replicas of its own,
with a database of record and two RQ workers on a queue Redis of their own (the
session's workers have no database of record, and would take its jobs and fail them).
A pairing is claimed in the database and its games' keys are hash-tagged as every
game's, so a worker killed mid-arena loses and doubles no pairing here either."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
import requests

from service.devtools.embedded_redis import EmbeddedRedis
from tests.support.arenas import Arena, at_rest, check_arena, driving, entered_arena, records_of
from tests.support.http import auth
from tests.support.players import new_app
from tests.support.servers import LiveServer, WorkerProcess
from tests.support.topology import SETTINGS
from tests.support.waiting import wait_until

pytestmark = pytest.mark.cluster

#: Bounds a hang of the arena's pairing, its end, or its recovery after a kill.
TIMEOUT = 120


@dataclass
class ArenaDeployment:
    urls: list[str]
    env: dict[str, str]
    cluster_url: str
    database: str


@pytest.fixture(scope="module")
def deployment(topology, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ArenaDeployment]:
    folder = tmp_path_factory.mktemp("cluster-arena")
    queues = EmbeddedRedis(folder / "queues").start()
    database = f"sqlite:///{folder / 'records.sqlite3'}"
    env = dict(SETTINGS, QUEUE_REDIS_URL=queues.url, SCHNAPSEN_ARCHIVE_URL=database)
    servers = [LiveServer(topology.cluster.url, workers=1, env=env) for _ in range(2)]
    try:
        yield ArenaDeployment([s.url for s in servers], env, topology.cluster.url, database)
    finally:
        for server in servers:
            server.stop()
        queues.stop()


def test_an_arena_on_the_cluster_pairs_each_player_again_once_through_a_kill(deployment, topology):
    first, second = (WorkerProcess(deployment.cluster_url, **deployment.env) for _ in range(2))
    third = None
    records = records_of(deployment.database)
    try:
        app = new_app(topology.log)
        entered = entered_arena(deployment.urls[0], app, players=10, duration=30, starts_in=2)
        # The driver reads and plays through the other replica.
        arena = Arena(deployment.urls[1], app, entered.tournament_id, entered.tokens)
        token = next(iter(arena.tokens.values()))
        with driving(arena, seed=10, threads=5) as driver:
            wait_until(lambda: len(driver.log.boards) >= 15, TIMEOUT, "some games played")
            assert first.kill(), "the worker was running"
            third = WorkerProcess(deployment.cluster_url, **deployment.env)
            driver.hold()
            rest = wait_until(lambda: at_rest(arena, records), TIMEOUT, "the arena at rest")
            assert len(rest.waiting) <= 2, rest
            driver.go()

            def over() -> bool:
                read = requests.get(f"{arena.url}/v1/tournaments/{arena.tournament_id}",
                                    headers=auth(token), timeout=30).json()  # fmt: skip
                return read["status"] == "finished"

            wait_until(over, TIMEOUT, "the arena's end")
        report = check_arena(arena, records, driver.log, {})
        assert report.failures == []
        assert report.games > len(arena.tokens), report.figures()
    finally:
        first.stop()
        second.stop()
        if third is not None:
            third.stop()
        records.close()
