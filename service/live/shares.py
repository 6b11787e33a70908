"""Shares of a server process's waiting slots: how many each caller, each game, may hold.

``SCHNAPSEN_MAX_WAITING`` bounds the long-polls and SSE streams of one server
process (``service.live.watcher.WaitingSlots``). Alone it lets one client address, or
one game's watchers, take every slot, and then every other player's long-poll
is refused. A ``Shares`` counts the slots held per key (a caller, a game) and
refuses one more past its share.

Counted per server process, as ``SCHNAPSEN_MAX_WAITING`` is: a share is a part
of the slots one process holds, so no caller can empty any process, and taking
or giving back a slot costs no Redis call (a long-poll takes one on every
delivery). A share spread over several processes is that many shares; a count in
Redis would bound the sum, but a process that dies would leave its slots counted.
"""

from __future__ import annotations

import threading


class Shares:
    """At most ``size`` waiting slots per key (0: no share, only the process's bound)."""

    def __init__(self, size: int):
        self._size = size
        self._held: dict[str, int] = {}
        self._lock = threading.Lock()

    @property
    def size(self) -> int:
        return self._size

    def take(self, key: str) -> bool:
        """One more slot for ``key`` if its share has room (True), else False at once."""
        if self._size <= 0:
            return True
        with self._lock:
            held = self._held.get(key, 0)
            if held >= self._size:
                return False
            self._held[key] = held + 1
        return True

    def give_back(self, key: str) -> None:
        """Return a slot that ``take`` gave ``key``; a key holding none is forgotten, so the
        counts stay as many as the keys waiting now."""
        if self._size <= 0:
            return
        with self._lock:
            held = self._held.get(key, 0)
            if held <= 0:
                raise ValueError(f"a waiting slot of {key} was given back that was not taken")
            if held == 1:
                del self._held[key]
            else:
                self._held[key] = held - 1

    def held(self, key: str) -> int:
        """The slots ``key`` holds now."""
        with self._lock:
            return self._held.get(key, 0)

    @property
    def keys(self) -> int:
        """How many keys hold a slot now (for tests: none stays counted after it left)."""
        with self._lock:
            return len(self._held)
