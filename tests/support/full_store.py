"""A Redis that is full: past its ``maxmemory`` under ``noeviction``, it refuses writes.

Redis refuses a command that may add data when the memory it uses is above
``maxmemory`` at the command's start; a refused command's own buffers are
freed after it, so a Redis filled to its limit may take the next small write
again. ``fill_to_limit`` writes until the first refusal (data of the test's
own, ``junk:*``); ``hold_full`` then sets the limit below what Redis uses,
so that every write is refused until ``make_room`` raises it.
"""

from __future__ import annotations

import redis

#: The bytes a Redis kept full by ``hold_full`` is above its limit.
MARGIN = 256 * 1024


def used_memory(client: redis.Redis) -> int:
    return int(client.info("memory")["used_memory"])


def limit(client: redis.Redis) -> int:
    return int(client.config_get("maxmemory")["maxmemory"])


def limit_to(client: redis.Redis, room: int) -> int:
    """Let Redis take ``room`` more bytes than it uses now; returns the limit set."""
    maxmemory = used_memory(client) + room
    client.config_set("maxmemory", maxmemory)
    return maxmemory


def fill_to_limit(client: redis.Redis, chunk: int = 16 * 1024) -> int:
    """Write ``chunk``-byte keys until Redis refuses one for memory; returns the keys written."""
    assert limit(client) > 0, "a Redis without maxmemory is never full"
    written = 0
    while True:
        try:
            client.set(f"junk:{written}", b"x" * chunk)
        except redis.exceptions.OutOfMemoryError:
            return written
        written += 1


def hold_full(client: redis.Redis) -> None:
    """Keep Redis full: its limit ``MARGIN`` below what it uses now."""
    client.config_set("maxmemory", used_memory(client) - MARGIN)


def make_room(client: redis.Redis, room: int = 64 * 1024 * 1024) -> None:
    """Raise the limit ``room`` bytes above what Redis uses, as an operator would: Redis
    takes writes again."""
    limit_to(client, room)
