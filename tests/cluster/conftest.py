"""One local topology for every cluster test: a Redis Cluster, a Redis for the queues,
three API replicas and two RQ workers, all real processes (no Docker).

- the event log: a Redis Cluster of 3 primaries and 3 replicas on loopback ports
  (``service.devtools.embedded_cluster``; ``cluster-node-timeout`` 1 s, so a replica takes
  over within seconds of its primary's death);
- the queues: a plain Redis of their own (RQ does not run on a cluster);
- 3 API replicas: separate gunicorn instances on separate ports, with replica acks
  on (``SCHNAPSEN_REPLICA_ACKS=1``), as a load balancer would spread them;
- 2 RQ workers on every queue.

Started once per session (it takes seconds), and handed out only once every replica
is ready (``/readyz`` 200: its workers are listening on every queue), so no test meets
a replica whose workers have not registered yet. The failover drill kills a primary
and starts it again as a replica, so the topology is whole for whoever comes after.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis
import requests
from redis.cluster import RedisCluster

from service.devtools.embedded_cluster import LocalCluster
from service.devtools.embedded_redis import EmbeddedRedis
from service.store.redis_clients import connect
from tests.support.servers import LiveServer, WorkerProcess
from tests.support.topology import API_REPLICAS, SETTINGS, WORKERS, Topology
from tests.support.waiting import wait_until


@pytest.fixture(scope="session")
def topology(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Topology]:
    folder = tmp_path_factory.mktemp("cluster")
    cluster = LocalCluster(folder / "log", node_timeout_ms=1000).start()
    queues = EmbeddedRedis(folder / "queues").start()
    servers: list[LiveServer] = []
    workers: list[WorkerProcess] = []
    env = dict(SETTINGS, QUEUE_REDIS_URL=queues.url)
    try:
        for _ in range(API_REPLICAS):
            servers.append(LiveServer(cluster.url, workers=1, env=env))
        for _ in range(WORKERS):
            workers.append(WorkerProcess(cluster.url, **env))
        log = connect(cluster.url, socket_timeout=5)
        assert isinstance(log, RedisCluster)
        for server in servers:
            wait_until(lambda url=server.url: ready(url), 120, f"{server.url}/readyz to answer 200")
        yield Topology(cluster, queues, servers, workers, log)
    finally:
        for worker in workers:
            worker.stop()
        for server in servers:
            server.stop()
        queues.stop()
        cluster.stop()


def ready(url: str) -> bool:
    """Whether the replica at ``url`` says it is ready (its workers listen on every queue)."""
    try:
        return requests.get(f"{url}/readyz", timeout=10).status_code == 200
    except requests.RequestException:
        return False


@pytest.fixture(scope="session")
def queue_client(topology: Topology) -> redis.Redis:
    return redis.Redis.from_url(topology.queues.url)
