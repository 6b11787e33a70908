"""Cluster benchmark: the same full-game load on one Redis and on a Redis Cluster, in one run.

    python benchmarks/cluster.py [--clients 6] [--seconds 10] [--rounds 2]

Starts one redis-server and a local Redis Cluster (3 primaries, 3 replicas;
``service.devtools.embedded_cluster``), and one API under gunicorn (gevent, 2
processes) per configuration: the log on the single Redis, on the cluster,
and on the cluster with replica acks (``SCHNAPSEN_REPLICA_ACKS=1``). In
rounds (single, cluster, cluster + acks, again), ``--clients`` client
processes play whole games between people for ``--seconds`` against one
configuration, so a drift of this shared machine's speed falls on all three.

Prints per configuration: actions/s, p50/p99 of an action, errors; the Redis
CPU time per action (the servers' own user + system time over the actions
they served, summed over the primaries), hence actions/s one primary's core
would carry; how the games spread over slots and primaries; and an estimate
of the games one primary carries.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import redis
import requests
from redis.cluster import RedisCluster

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from gunicorns import start_api  # noqa: E402  (a module beside this script)

from service.devtools.embedded_cluster import LocalCluster  # noqa: E402
from service.devtools.embedded_redis import EmbeddedRedis  # noqa: E402
from service.store.events import keys  # noqa: E402
from service.store.redis_clients import connect  # noqa: E402

#: For the estimate: a game between people sends one action every this many seconds
#: (a move of a person who thinks).
SECONDS_PER_ACTION_PER_GAME = 5.0
#: The CPU share of its core a primary may use before its latency grows (a margin).
PRIMARY_CPU_SHARE = 0.5


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_cluster_api(
    redis_url: str, queue_url: str, acks: int
) -> tuple[subprocess.Popen[bytes], str]:
    settings = {"REDIS_URL": redis_url, "QUEUE_REDIS_URL": queue_url,
                "SCHNAPSEN_REPLICA_ACKS": str(acks)}  # fmt: skip
    return start_api(free_port(), settings, connections=1000)


def play(args: tuple[str, float, int]) -> tuple[list[float], list[str], int]:
    """Whole games between people for ``seconds``: action latencies, game ids, errors."""
    url, seconds, seed = args
    rng = random.Random(seed)
    session = requests.Session()
    latencies: list[float] = []
    games: list[str] = []
    errors = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            created = session.post(f"{url}/v1/games", json={}).json()
            game = created["game_id"]
            games.append(game)
            joined = session.post(f"{url}/v1/games/{game}/join",
                                  json={"invite": created["invite"]}).json()  # fmt: skip
            tokens = {0: created["token"], 1: joined["token"]}
            view = joined["game"]
            while view["status"] != "finished" and time.monotonic() < deadline:
                seat = view["to_move"]
                headers = {"Authorization": f"Bearer {tokens[seat]}"}
                if view["seat"] != seat:
                    view = session.get(f"{url}/v1/games/{game}", headers=headers).json()
                action = rng.choice(view["deal"]["legal_actions"])
                started = time.perf_counter()
                answer = session.post(f"{url}/v1/games/{game}/actions", json=action,
                                      headers=headers)  # fmt: skip
                if answer.status_code != 200:
                    errors += 1
                    break
                latencies.append(time.perf_counter() - started)
                view = answer.json()
        except (requests.RequestException, KeyError, ValueError):
            errors += 1
    return latencies, games, errors


def cpu_seconds(clients: list[redis.Redis]) -> float:
    """User + system CPU time the servers used so far."""
    total = 0.0
    for client in clients:
        info = client.info("cpu")
        total += float(info["used_cpu_user"]) + float(info["used_cpu_sys"])
    return total


@dataclass
class Configuration:
    name: str
    url: str
    primaries: list[redis.Redis]
    latencies: list[float] = field(default_factory=list)
    games: list[str] = field(default_factory=list)
    seconds: float = 0.0
    errors: int = 0
    redis_cpu: float = 0.0
    #: Bytes the primaries' data grew by (the single Redis: no replication backlog).
    memory: int = 0


def run(config: Configuration, clients: int, seconds: float, seed: int) -> None:
    before = cpu_seconds(config.primaries)
    memory = sum(int(client.info("memory")["used_memory"]) for client in config.primaries)
    started = time.monotonic()
    with multiprocessing.Pool(clients) as pool:
        results = pool.map(play, [(config.url, seconds, seed + i) for i in range(clients)])
    config.seconds += time.monotonic() - started
    config.redis_cpu += cpu_seconds(config.primaries) - before
    config.memory += (
        sum(int(client.info("memory")["used_memory"]) for client in config.primaries) - memory
    )
    for latencies, games, errors in results:
        config.latencies += latencies
        config.games += games
        config.errors += errors


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else 0.0


def primaries_of(cluster: LocalCluster) -> list[redis.Redis]:
    return [node.client() for node in cluster.nodes if cluster.roles()[node.port] == "master"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=6)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="schnapsen-cluster-bench-"))
    single = EmbeddedRedis(folder / "single").start()
    cluster = LocalCluster(folder / "cluster").start()
    servers: list[subprocess.Popen[bytes]] = []
    try:
        single_client = redis.Redis.from_url(single.url)
        configs = []
        for name, url, acks, primaries in (
            ("single Redis", single.url, 0, [single_client]),
            ("cluster", cluster.url, 0, primaries_of(cluster)),
            ("cluster + replica acks", cluster.url, 1, primaries_of(cluster)),
        ):
            process, api = start_cluster_api(url, single.url, acks)
            servers.append(process)
            configs.append(Configuration(name, api, primaries))
        for round_number in range(args.rounds):
            for config in configs:
                run(config, args.clients, args.seconds, seed=1000 * round_number)
        report(configs, cluster, args)
    finally:
        for process in servers:
            process.terminate()
        for process in servers:
            process.wait(timeout=15)
        cluster.stop()
        single.stop()
    return 0


def report(configs: list[Configuration], cluster: LocalCluster, args: argparse.Namespace) -> None:
    print(f"{args.clients} client processes, {args.rounds} rounds of {args.seconds:.0f} s per "
          f"configuration, whole games between people, 1 API (gunicorn, 2 gevent processes)")  # fmt: skip
    print()
    print("| configuration | actions/s | p50 | p99 | errors | Redis CPU per action |")
    print("| --- | --- | --- | --- | --- | --- |")
    for config in configs:
        actions = len(config.latencies)
        per_action = 1000 * config.redis_cpu / actions if actions else 0.0
        print(f"| {config.name} | {actions / config.seconds:.1f} | "
              f"{1000 * percentile(config.latencies, 0.5):.1f} ms | "
              f"{1000 * percentile(config.latencies, 0.99):.1f} ms | {config.errors} | "
              f"{per_action:.3f} ms |")  # fmt: skip
    base = configs[0]
    base_rate = len(base.latencies) / base.seconds
    for config in configs[1:]:
        rate = len(config.latencies) / config.seconds
        print(f"ratio {config.name} / single Redis: {rate / base_rate:.2f} actions/s, "
              f"p50 {percentile(config.latencies, 0.5) / percentile(base.latencies, 0.5):.2f}")  # fmt: skip

    log = connect(cluster.url)
    assert isinstance(log, RedisCluster)
    games = configs[1].games + configs[2].games
    slots = Counter(log.keyslot(keys(game)["log"]) for game in games)
    nodes = Counter(log.get_node_from_key(keys(game)["log"]).name for game in games)
    print()
    print(f"spread: {len(games)} games on {len(slots)} slots (at most "
          f"{max(slots.values())} games in one slot); per primary: "
          + ", ".join(f"{name} {count} ({100 * count / len(games):.0f}%)"
                      for name, count in sorted(nodes.items())))  # fmt: skip

    # The estimate: a primary at PRIMARY_CPU_SHARE of its core carries that share over the
    # CPU per action, actions/s (Redis runs commands on one thread).
    bytes_per_game = base.memory / len(base.games) if base.games else 0
    print()
    for config in configs:
        actions = len(config.latencies)
        if not actions:
            continue
        cpu_per_action = config.redis_cpu / actions
        per_primary = PRIMARY_CPU_SHARE / cpu_per_action
        playing = per_primary * SECONDS_PER_ACTION_PER_GAME
        print(f"estimate, {config.name}: one primary at {100 * PRIMARY_CPU_SHARE:.0f}% of a core "
              f"carries about {per_primary:,.0f} actions/s, i.e. {playing:,.0f} games in play "
              f"at one action per {SECONDS_PER_ACTION_PER_GAME:.0f} s per game")  # fmt: skip
    print(f"memory (single Redis): about {bytes_per_game / 1024:.1f} KiB per game played "
          f"(log, seats, snapshots, idempotency records), so 1 GiB of a primary keeps about "
          f"{2**30 / bytes_per_game:,.0f} games" if bytes_per_game else "memory: not measured")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
