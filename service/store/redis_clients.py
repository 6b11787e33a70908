"""Which Redis a URL names, a plain one or a Redis Cluster, and the clients of each.

``REDIS_URL`` names the event log's Redis:

- ``redis://host:port/0``, ``rediss://...``, ``unix:///path/redis.sock``: one Redis
  (``redis.Redis``), as always;
- ``redis+cluster://host:port[,host:port...]`` (``rediss+cluster://`` with TLS): a
  Redis Cluster (``redis.cluster.RedisCluster``); the nodes listed are where the
  client starts, it discovers the others. A password goes before the first node
  (``redis+cluster://:secret@host:port``).

Every key of one game shares the game's hash tag, so each script touches one
slot (``service.store.events``). RQ does not run on Redis Cluster: the queues need a
plain Redis of their own (``QUEUE_REDIS_URL``).
"""

from __future__ import annotations

import contextlib
import select
import sys
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote, urlsplit

import redis
from redis.cluster import ClusterNode, RedisCluster
from redis.exceptions import RedisClusterException

#: URL schemes that name a Redis Cluster.
CLUSTER_SCHEMES = ("redis+cluster", "rediss+cluster")

#: Either kind of client; the code that uses it calls only what both have.
AnyRedis = redis.Redis | RedisCluster


class QueuesNotConfigured(redis.exceptions.ConnectionError):
    """The log is on a Redis Cluster and ``QUEUE_REDIS_URL`` names no plain Redis for RQ."""

    MESSAGE = (
        "QUEUE_REDIS_URL is not set: REDIS_URL names a Redis Cluster, and RQ needs a "
        "plain Redis for its queues"
    )

    def __init__(self) -> None:
        super().__init__(self.MESSAGE)


def is_cluster(url: str | None) -> bool:
    """Whether ``url`` names a Redis Cluster."""
    return bool(url) and urlsplit(url).scheme in CLUSTER_SCHEMES


def startup_nodes(url: str) -> list[ClusterNode]:
    """The nodes a cluster URL lists (``host:port``, comma-separated; port 6379 by default)."""
    netloc = urlsplit(url).netloc.rpartition("@")[2]
    nodes = []
    for address in filter(None, netloc.split(",")):
        host, _, port = address.rpartition(":") if ":" in address else (address, "", "6379")
        nodes.append(ClusterNode(host.strip("[]"), int(port)))
    if not nodes:
        raise ValueError(f"no cluster node in {url!r}")
    return nodes


def connect(url: str, **options: Any) -> AnyRedis:
    """The client of ``url``: a ``RedisCluster`` for a cluster URL, else ``redis.Redis``.

    ``options`` are redis-py's connection options (timeouts, ``retry``,
    ``max_connections``, ``connection_pool_class``); a cluster passes them to
    the client of each node.
    """
    if not is_cluster(url):
        pool_class = options.pop("connection_pool_class", None)
        if pool_class is not None:
            return redis.Redis(connection_pool=pool_class.from_url(url, **options))
        return redis.Redis.from_url(url, **options)
    parts = urlsplit(url)
    credentials = parts.netloc.rpartition("@")[0]
    if credentials:
        username, _, password = credentials.partition(":")
        options.setdefault("username", unquote(username) or None)
        options.setdefault("password", unquote(password) or None)
    if parts.scheme == "rediss+cluster":
        options.setdefault("ssl", True)
    if "timeout" in options:  # a pool's wait for a free connection: the pool's own setting
        options["connection_pool_class"] = _waiting_pool(
            options.get("connection_pool_class", redis.BlockingConnectionPool),
            options.pop("timeout"),
        )
    return RedisCluster(startup_nodes=startup_nodes(url), **options)


def _waiting_pool(pool_class: type[redis.ConnectionPool], timeout: float) -> type:
    """``pool_class`` whose pools wait ``timeout`` s for a free connection (a cluster makes
    a pool per node from connection options alone, and ``Redis`` takes no ``timeout``)."""

    class WaitingPool(pool_class):  # type: ignore[valid-type, misc]
        def __init__(self, *args: Any, **kwargs: Any):
            kwargs.setdefault("timeout", timeout)
            super().__init__(*args, **kwargs)

    return WaitingPool


def _os_poll() -> Callable[[], Any] | None:
    """The operating system's ``select.poll``, also in a process gevent has patched."""
    monkey = sys.modules.get("gevent.monkey")
    if monkey is not None and monkey.is_object_patched("select", "poll"):
        return monkey.get_original("select", "poll")
    return getattr(select, "poll", None)


#: Taken when this module is imported: before gevent patches ``select``, it is the
#: OS's own; after, gevent keeps the original.
_OS_POLL = _os_poll()


class QuickCheckPool(redis.BlockingConnectionPool):
    """A blocking pool whose check of an idle connection asks the OS, not gevent.

    Before it hands out a pooled connection, redis-py checks that nothing is
    waiting to be read on it (a reply left unread, or the end of a connection
    the server closed) and connects it again if there is. With hiredis that
    check is a ``poll`` of timeout 0, and under gevent's patch that ``poll``
    arms a watcher and turns the hub once: about 18 µs of CPU on every Redis
    call of every request, two on an action. A ``poll`` of timeout 0 never
    waits, so it needs no hub: here the usual case (a connected hiredis
    connection with nothing buffered, not TLS) is answered by the OS's
    ``poll`` in about a microsecond, and anything it finds, or any other
    case, goes to redis-py's own check as before.
    """

    def ensure_connection(self, connection: Any) -> None:
        if not _idle(connection):
            super().ensure_connection(connection)


def _idle(connection: Any) -> bool:
    """Whether ``connection`` is connected, has nothing buffered and nothing on its socket
    (POLLHUP and POLLERR are reported whatever is asked for, so a closed one is not)."""
    sock = getattr(connection, "_sock", None)
    reader = getattr(getattr(connection, "_parser", None), "_reader", None)
    if _OS_POLL is None or sock is None or reader is None or hasattr(sock, "pending"):
        return False
    if reader.has_data():
        return False
    poller = _OS_POLL()
    poller.register(sock, select.POLLIN)
    return not poller.poll(0)


def primary_of(client: AnyRedis, key: str) -> redis.Redis:
    """A plain client of the node that holds ``key`` (the client itself when not a cluster).

    For what must run on one connection of that node: a script and the
    ``WAIT`` after it (``WAIT`` counts the replicas that have the writes of
    its own connection).
    """
    if not isinstance(client, RedisCluster):
        return client
    node = client.get_node_from_key(key)
    connection = client.get_redis_connection(node)
    assert connection is not None
    return connection


def refresh(client: AnyRedis) -> None:
    """Read the cluster's slots again (after a node answered MOVED or died)."""
    if isinstance(client, RedisCluster):
        # No node answers now: the next command tries again.
        with contextlib.suppress(redis.RedisError, RedisClusterException):
            client.nodes_manager.initialize()


__all__ = [
    "CLUSTER_SCHEMES",
    "AnyRedis",
    "QueuesNotConfigured",
    "QuickCheckPool",
    "connect",
    "is_cluster",
    "primary_of",
    "refresh",
    "startup_nodes",
]
