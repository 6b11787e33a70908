"""A full Redis: past its ``maxmemory``, under ``noeviction``, it refuses writes.

Redis then answers every command that may add data with an ``OOM`` error
and goes on serving reads and deletions; evicting keys instead would delete
games. A refused command wrote nothing. Inside a script, Redis refuses the
script's first write when the script started over the limit, and lets a
script that has written once run to its end, so a script whose first write
adds data (the append's XADD) is refused whole or runs whole.

Redis 7 answers the script's caller ``OOM ...`` (redis-py:
``OutOfMemoryError``); Redis 6.2 wraps it in ``ERR Error running script ...
-OOM ...``, a plain ``ResponseError``. Both are a full store here.

Whether a Redis is full can also be read without writing (``room``, from
``INFO memory``): /readyz says so, and a worker takes no job from a full
Redis but makes room instead (``workers/room.py``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import redis
from redis.cluster import RedisCluster

T = TypeVar("T")
log = logging.getLogger(__name__)

#: The first pause before a write refused for memory is tried again (seconds); it
#: doubles with each refusal, up to ``LONGEST_PAUSE``.
FIRST_PAUSE = 0.1
LONGEST_PAUSE = 1.0

#: What Redis says when it refuses a write for memory (after its error code, ``OOM``).
REFUSAL = "command not allowed when used memory > 'maxmemory'"


def refused_for_memory(error: BaseException) -> bool:
    """Whether ``error`` is Redis refusing a write because it is full."""
    if isinstance(error, redis.exceptions.OutOfMemoryError):
        return True
    return isinstance(error, redis.exceptions.ResponseError) and f"OOM {REFUSAL}" in str(error)


@dataclass(frozen=True, slots=True)
class Room:
    """A Redis's memory as it judges a write: what it counts against its limit, the limit
    (0: none) and what it does past the limit."""

    used: int
    limit: int
    policy: str

    @property
    def full(self) -> bool:
        """Whether Redis refuses writes now: past its limit, and evicting nothing."""
        return self.limit > 0 and self.policy == "noeviction" and self.used > self.limit

    def __str__(self) -> str:
        return f"{self.used} bytes used of {self.limit}"


def room(client: redis.Redis | RedisCluster) -> Room:
    """The room in ``client``'s Redis (one ``INFO memory``, a read); on a Redis Cluster,
    the fullest primary's. Redis counts what it uses less its replication and AOF
    buffers (``mem_not_counted_for_evict``) against ``maxmemory``, and so does this."""
    if isinstance(client, RedisCluster):
        answers: Any = client.info("memory", target_nodes=RedisCluster.PRIMARIES)
        infos = [info for info in answers.values() if isinstance(info, dict)]
        return max((_room(info) for info in infos), key=lambda r: r.full, default=Room(0, 0, ""))
    return _room(client.info("memory"))


def _room(info: dict[str, Any]) -> Room:
    used = int(info["used_memory"]) - int(info.get("mem_not_counted_for_evict", 0))
    return Room(used, int(info["maxmemory"]), str(info.get("maxmemory_policy", "")))


def when_there_is_room(write: Callable[[], T], *, within: float, what: str) -> T:
    """``write()``, tried again while a full store refuses it, for ``within`` seconds.

    A refused write wrote nothing, so trying it again is safe when ``write``
    itself is (an append that expects a version). The last refusal is
    raised once ``within`` has passed.
    """
    deadline = time.monotonic() + within
    pause = FIRST_PAUSE
    waited = False
    while True:
        try:
            return write()
        except redis.exceptions.ResponseError as error:
            if not refused_for_memory(error) or time.monotonic() + pause > deadline:
                raise
            if not waited:
                log.warning("the store is full: %s waits for room (%s)", what, error)
                waited = True
        time.sleep(pause)
        pause = min(pause * 2, LONGEST_PAUSE)


__all__ = ["REFUSAL", "Room", "refused_for_memory", "room", "when_there_is_room"]
