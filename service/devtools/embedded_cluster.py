"""A local Redis Cluster of ``redis-server`` child processes, for tests and benchmarks.

Three primaries and one replica each on loopback ports, made into a cluster
with ``redis-cli --cluster create --cluster-replicas 1``. Nothing is kept on
disk but what cluster mode needs (each node's ``nodes.conf`` in its folder).
A small ``cluster-node-timeout`` makes a replica take over within seconds of
its primary's death.
"""

from __future__ import annotations

import contextlib
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import redis

from service.devtools.embedded_redis import redis_server_binary
from service.ops.processes import end_process


def free_ports(count: int) -> list[int]:
    """``count`` TCP ports on loopback that nothing listens on now (and their +10000 bus ports)."""
    ports: list[int] = []
    while len(ports) < count:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        if port + 10000 > 65535 or port in ports:
            continue
        with socket.socket() as bus:
            try:
                bus.bind(("127.0.0.1", port + 10000))
            except OSError:
                continue
        ports.append(port)
    return ports


@dataclass
class ClusterNodeProcess:
    """One ``redis-server --cluster-enabled yes`` on a loopback port."""

    port: int
    folder: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def client(self, timeout: float = 2.0) -> redis.Redis:
        return redis.Redis(
            host="127.0.0.1", port=self.port, socket_timeout=timeout, socket_connect_timeout=timeout
        )

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """``kill -9``: no shutdown, no clean-up."""
        if self.alive():
            assert self.process is not None
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()


class LocalCluster:
    """``primaries`` primaries with ``replicas`` replicas each, in ``folder``.

    ``node_timeout_ms`` is ``cluster-node-timeout``: how long a primary may be
    unreachable before its replica is promoted.
    """

    def __init__(
        self,
        folder: Path | str,
        *,
        primaries: int = 3,
        replicas: int = 1,
        node_timeout_ms: int = 1000,
    ):
        self.folder = Path(folder).resolve()
        self.primaries = primaries
        self.replicas = replicas
        self.node_timeout_ms = node_timeout_ms
        self.nodes: list[ClusterNodeProcess] = []

    @property
    def url(self) -> str:
        """``REDIS_URL`` for this cluster: every node, so a client starts from any live one."""
        return "redis+cluster://" + ",".join(node.address for node in self.nodes)

    def start(self, timeout: float = 60.0) -> LocalCluster:
        count = self.primaries * (1 + self.replicas)
        for port in free_ports(count):
            folder = self.folder / str(port)
            folder.mkdir(parents=True, exist_ok=True)
            node = ClusterNodeProcess(port, folder)
            self._spawn(node)
            self.nodes.append(node)
        try:
            self._wait(lambda: all(_pings(node) for node in self.nodes), timeout, "nodes to start")
            subprocess.run(
                [
                    _redis_cli(),
                    "--cluster",
                    "create",
                    *(node.address for node in self.nodes),
                    "--cluster-replicas",
                    str(self.replicas),
                    "--cluster-yes",
                ],  # fmt: skip
                check=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                timeout=timeout,
            )
            self._wait(self.healthy, timeout, "the cluster to be ok on every node")
            self._wait(self.replicated, timeout, "every replica to be in sync")
        except BaseException:
            self.stop()
            raise
        return self

    def _spawn(self, node: ClusterNodeProcess) -> None:
        node.process = subprocess.Popen(
            self._server_args(node.port, node.folder),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

    def restart(self, node: ClusterNodeProcess, timeout: float = 60.0) -> None:
        """Start a killed node again: it reads its ``nodes.conf``, rejoins, and (its slots
        now served by its former replica) becomes that primary's replica."""
        assert not node.alive()
        self._spawn(node)
        self._wait(lambda: _pings(node), timeout, f"node {node.port} to start again")
        self._wait(self.healthy, timeout, "the cluster to be ok on every node")
        self._wait(self.replicated, timeout, "every replica to be in sync")

    def _server_args(self, port: int, folder: Path) -> list[str]:
        return [
            redis_server_binary(),
            "--port", str(port),
            "--bind", "127.0.0.1",
            "--dir", str(folder),
            "--cluster-enabled", "yes",
            "--cluster-config-file", str(folder / "nodes.conf"),
            "--cluster-node-timeout", str(self.node_timeout_ms),
            # The slots of live primaries stay served while a dead one's replica takes over.
            "--cluster-require-full-coverage", "no",
            "--appendonly", "no",
            "--save", "",
            "--maxmemory-policy", "noeviction",
            # A new replica syncs at once (Redis 7 waits 5 s for more replicas by default).
            "--repl-diskless-sync", "yes",
            "--repl-diskless-sync-delay", "0",
            "--logfile", str(folder / "redis.log"),
            "--daemonize", "no",
        ]  # fmt: skip

    def healthy(self) -> bool:
        """Every live node says ``cluster_state:ok``, every slot is served by a live primary."""
        live = {node.port for node in self.nodes if node.alive()}
        for node in self.nodes:
            if node.port not in live:
                continue
            try:
                client = node.client()
                info = client.execute_command("CLUSTER", "INFO")
                shards = client.execute_command("CLUSTER", "SHARDS")
            except redis.RedisError:
                return False
            text = info.decode() if isinstance(info, bytes) else str(info)
            fields = dict(line.split(":", 1) for line in text.split() if ":" in line)
            if fields.get("cluster_state") != "ok" or fields.get("cluster_slots_ok") != "16384":
                return False
            for shard in map(_pairs, shards):
                if not shard[b"slots"]:
                    continue
                primaries = [_pairs(entry) for entry in shard[b"nodes"]]
                serving = [
                    entry
                    for entry in primaries
                    if entry[b"role"] == b"master" and int(entry[b"port"]) in live
                ]
                if not serving:
                    return False
        return True

    def replicated(self) -> bool:
        """Every live primary has each of its replicas online (synced, streaming)."""
        for node in self.nodes:
            if not node.alive():
                continue
            try:
                info = node.client().info("replication")
            except redis.RedisError:
                return False
            if info.get("role") == "master" and int(info.get("connected_slaves", 0)) > 0:
                replicas = [info[f"slave{i}"] for i in range(int(info["connected_slaves"]))]
                if any(replica.get("state") != "online" for replica in replicas):
                    return False
            if info.get("role") == "slave" and info.get("master_link_status") != "up":
                return False
        return True

    def roles(self) -> dict[int, str]:
        """Per live node's port: ``master`` or ``slave``, as the node itself says."""
        found = {}
        for node in self.nodes:
            if node.alive():
                with contextlib.suppress(redis.RedisError):
                    found[node.port] = node.client().execute_command("ROLE")[0].decode()
        return found

    def node_of(self, key: str) -> ClusterNodeProcess:
        """The primary that holds ``key`` now."""
        for node in self.nodes:
            if node.alive() and self.roles().get(node.port) == "master":
                slot = node.client().execute_command("CLUSTER", "KEYSLOT", key)
                owner = node.client().execute_command("CLUSTER", "SHARDS")
                for shard in owner:
                    shard = _pairs(shard)
                    slots = shard[b"slots"]
                    if any(slots[i] <= slot <= slots[i + 1] for i in range(0, len(slots), 2)):
                        for entry in shard[b"nodes"]:
                            entry = _pairs(entry)
                            if entry[b"role"] == b"master" and entry[b"health"] == b"online":
                                return self._by_port(int(entry[b"port"]))
        raise LookupError(f"no live primary holds {key!r}")

    def _by_port(self, port: int) -> ClusterNodeProcess:
        return next(node for node in self.nodes if node.port == port)

    def stop(self) -> None:
        for node in self.nodes:
            if node.alive():
                assert node.process is not None
                node.process.terminate()
        for node in self.nodes:  # all asked first, so they stop together
            if node.process is not None:
                end_process(node.process, timeout=10)

    def _wait(self, predicate, timeout: float, what: str) -> None:  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise RuntimeError(f"timed out after {timeout} s waiting for {what}")
            time.sleep(0.05)

    def __enter__(self) -> LocalCluster:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def _pings(node: ClusterNodeProcess) -> bool:
    try:
        return bool(node.client(0.5).ping())
    except redis.RedisError:
        return False


def _pairs(flat: list) -> dict:  # type: ignore[type-arg]
    """A RESP2 map (``[k1, v1, k2, v2, ...]``) as a dict."""
    if isinstance(flat, dict):
        return flat
    return dict(zip(flat[::2], flat[1::2], strict=True))


def _redis_cli() -> str:
    """The redis-cli beside the redis-server the nodes run (of the same version), else
    the first on PATH."""
    beside = Path(redis_server_binary()).with_name("redis-cli")
    if beside.exists():
        return str(beside)
    found = shutil.which("redis-cli")
    if found:
        return found
    raise RuntimeError("redis-cli is not on PATH (it comes with Debian's redis-tools)")


__all__ = ["ClusterNodeProcess", "LocalCluster", "free_ports"]
