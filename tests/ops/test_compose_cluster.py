"""docker-compose.cluster.yml, the scaled-out topology of docs/deployment.md, checked offline.

Validated against the Compose Specification like docker-compose.yml, then
checked for the topology itself: six cluster nodes made into three primaries
with a replica each, the queues on a Redis of their own, API replicas behind
a load balancer with one secret and replica acks, workers by count.
"""

from __future__ import annotations

import pytest
import yaml

from service.store.redis_clients import is_cluster, startup_nodes
from tests.support.compose import validate
from tests.support.paths import REPO

pytestmark = pytest.mark.cluster

COMPOSE = REPO / "docker-compose.cluster.yml"
NODES = [f"redis-{n}" for n in range(1, 7)]


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def test_cluster_compose_file_matches_the_compose_specification():
    result = validate(COMPOSE)
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_reference_names_a_service_or_a_file(compose):
    services = compose["services"]
    for name, service in services.items():
        for other in service.get("depends_on", {}):
            assert other in services, f"{name} depends on unknown service {other}"
        for volume in service.get("volumes", []):
            source = volume.split(":", 1)[0]
            if source.startswith("./"):
                assert (REPO / source).is_file(), f"{name} mounts a missing {source}"
            else:
                assert source in compose["volumes"], f"{name} mounts an undeclared {source}"


def test_six_cluster_nodes_become_three_primaries_with_a_replica_each(compose):
    services = compose["services"]
    config = (REPO / "deploy" / "redis-cluster.conf").read_text().split("\n")
    assert "cluster-enabled yes" in config
    assert "cluster-require-full-coverage no" in config
    for node in NODES:
        command = services[node]["command"]
        assert command[:2] == ["redis-server", "/etc/redis/cluster.conf"]
        assert command[-2:] == ["--cluster-announce-hostname", node]
    init = (REPO / "deploy" / "cluster-init.sh").read_text()
    assert "--cluster-replicas 1" in init
    assert all(node in init for node in NODES)
    assert set(services["cluster-init"]["depends_on"]) == set(NODES)


def test_the_log_is_on_the_cluster_and_the_queues_on_their_own_redis(compose):
    services = compose["services"]
    for name in ("api", "worker", "mover"):
        env = services[name]["environment"]
        assert is_cluster(env["REDIS_URL"])
        assert [node.host for node in startup_nodes(env["REDIS_URL"])] == NODES
        assert env["QUEUE_REDIS_URL"] == "redis://queues:6379/0"
        assert not is_cluster(env["QUEUE_REDIS_URL"])
        assert env["SCHNAPSEN_REPLICA_ACKS"] == "1"
        assert "SCHNAPSEN_SECRET_KEY" in env  # one key: a token opens its game on every replica
    assert "cluster-enabled" not in " ".join(services["queues"]["command"])


def test_api_replicas_sit_behind_a_load_balancer_and_workers_scale(compose):
    services = compose["services"]
    assert services["api"]["deploy"]["replicas"] >= 2
    assert "ports" not in services["api"]  # only the load balancer is published
    assert services["lb"]["ports"] == ["8000:8000"]
    conf = (REPO / "deploy" / "lb.conf").read_text()
    assert "server api:8000;" in conf and "proxy_pass http://schnapsen_api;" in conf
    assert services["worker"]["deploy"]["replicas"] >= 2
    assert "container_name" not in services["worker"]
