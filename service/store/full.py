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
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TypeVar

import redis

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


__all__ = ["REFUSAL", "refused_for_memory", "when_there_is_room"]
