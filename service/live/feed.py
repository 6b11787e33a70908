"""What a reader of a game's feed is sent after a version: from this process's memory,
from the announcement that woke it, or from one read of the log that every reader of
the process woken by the same announcement shares.

Only a registered waiter that was woken (``shared``) may take what memory or the
announcement holds: it knows that nothing newer was appended than what the
listener announced. Any other reader reads the log (read-your-writes). No Flask
here: the views pass the read of the log in (``read``), so this is tested
against a real store without an app.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from service.live.memory import GameMemory, Since
from service.live.watcher import LogWatcher, OneRead

if TYPE_CHECKING:  # a type only: commands imports nothing of the serving side
    from service.game.commands import Current

#: The read of the log after the known version; given the announcement's events (their
#: JSON lines) when it brought them, so that nothing need be read from Redis.
ReadSince = Callable[[bytes | None], Since]


@dataclass(frozen=True)
class FeedReads:
    """The events after a known version, read at most once per process and announcement."""

    watcher: LogWatcher
    memory: GameMemory
    one_read: OneRead[Any]

    def since(self, known: Current, read: ReadSince, *, shared: bool) -> Since:
        """The events after ``known`` and the game they lead to; ``shared``: the caller is a
        waiter that was woken, which may take what memory, the announcement or another
        waiter's read holds, as long as it reaches the version announced."""

        def remembered(news: bytes | None = None) -> Since:
            log, latest = read(news)
            self.memory.remember_since(known.version, log, latest)
            return log, latest

        if not shared:
            return remembered()
        game_id, version = known.game_id, known.version
        announced = self.watcher.announced(game_id) or 0
        hit = self.memory.since(game_id, version)
        if hit is None or hit[1].version < announced:
            news = self.watcher.news(game_id, version)
            if news is not None and news[0] >= announced:
                hit = remembered(news[1])  # what the announcement brought: no read of the log
            else:
                hit = self.one_read.get(("since", game_id, version), remembered)
        return hit if hit[1].version >= announced else remembered()


__all__ = ["FeedReads", "ReadSince"]
