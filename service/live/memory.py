"""What one server process remembers of games: the game at a version, and the events
from one version to another. Facts of versions, so a hit is as true as a read of Redis.

The feed's readers (long-polls, SSE streams, ``GET /events``) ask here before
asking Redis. Two things fill it: readers, with what they read, and this
process's own appends (``GameMemory`` is an append listener of the API's
game service, ``service.ops.composition``). So when a player's action lands in a
process, the waiters of that game in the same process, woken by the
announcement a moment later, take the new events from memory and send no read
to Redis at all (``tests/live``: no XRANGE for such a delivery).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from service.engine import Event
from service.live.watcher import Recent

if TYPE_CHECKING:  # a type only: commands imports nothing of the serving side
    from service.game.commands import Current

#: The events after a version, and the game they lead to.
Since = tuple[list[Event], "Current"]


class GameMemory:
    """Games at versions and the events between them, the newest kept longest."""

    def __init__(self, size: int = 10_000) -> None:
        self._recent: Recent[object] = Recent(size)
        self._newest: Recent[Current] = Recent(size)

    def newest(self, game_id: str) -> Current | None:
        """The newest version of the game this process holds, if any (a load asks
        Redis whether it is still the head: ``service.game.transaction.KnownGames``)."""
        return self._newest.get(game_id)

    def game_at(self, game_id: str, version: int) -> Current | None:
        return self._recent.get((game_id, version))  # type: ignore[return-value]

    def since(self, game_id: str, version: int) -> Since | None:
        """The events after ``version`` known here (up to some later version), or None."""
        return self._recent.get(("since", game_id, version))  # type: ignore[return-value]

    def remember_game(self, current: Current) -> None:
        self._recent.put((current.game_id, current.version), current)
        newest = self._newest.get(current.game_id)
        if newest is None or newest.version < current.version:
            self._newest.put(current.game_id, current)

    def remember_since(self, version: int, events: Sequence[Event], latest: Current) -> None:
        """The ``events`` after ``version``, which lead to ``latest``; empty: nothing to keep
        (that nothing came after a version is true only until the next append)."""
        if events:
            self._recent.put(("since", latest.game_id, version), (list(events), latest))
            self.remember_game(latest)

    def appended(self, current: Current, events: Sequence[Event]) -> None:
        """An append listener (``service.game.commands.AppendListener``): keep what was added."""
        self.remember_since(current.version - len(events), events, current)


__all__ = ["GameMemory", "Since"]
