"""One local deployment of the cluster tests: what it runs, and clients to look at it.

tests/cluster/conftest.py starts it (``topology``); the numbers and settings
here are the ones its tests reason about.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from redis.cluster import RedisCluster

from service.devtools.embedded_cluster import LocalCluster
from service.devtools.embedded_redis import EmbeddedRedis
from tests.support.servers import LiveServer, WorkerProcess

API_REPLICAS = 3
WORKERS = 2
#: Every API replica and worker of the topology runs with these.
SETTINGS = {
    "SCHNAPSEN_REPLICA_ACKS": "1",
    "SCHNAPSEN_REPLICA_ACK_TIMEOUT_MS": "500",
    # The drill's event streams wait for one action across a failover and a restart,
    # however slow the machine: no heartbeat ends their wait before it.
    "SCHNAPSEN_SSE_HEARTBEAT_SECONDS": "150",
    # The drill makes every replica log its 503s; the tests judge the answers themselves.
    "SCHNAPSEN_LOG_LEVEL": "CRITICAL",
}


@dataclass
class Topology:
    """The processes of one local deployment and clients to look at them."""

    cluster: LocalCluster
    queues: EmbeddedRedis
    servers: list[LiveServer]
    workers: list[WorkerProcess]
    log: RedisCluster
    _turn: itertools.count = field(default_factory=itertools.count)

    @property
    def urls(self) -> list[str]:
        return [server.url for server in self.servers]

    def next_url(self) -> str:
        """The API replicas in turn, as a round-robin load balancer sends requests."""
        return self.urls[next(self._turn) % len(self.urls)]
