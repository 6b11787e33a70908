"""After the append that ends a game: note it for the archive and ask a worker to move it.

An append listener (``service.game.transaction.AppendListener``), as the bot
dispatcher is. The note (``GameArchiver.note_ended``, handed in by the
composition root so this package imports no store) is what the sweep falls
back on when the job is lost; the job is what archives the game within
moments of its end. A process that dies between the append and this
listener leaves the game for the sweep's scan of stray games.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from redis import Redis

from service.engine import Event
from service.game.values import Current
from service.jobs.queues import enqueue_archive


class ArchiveWhenEnded:
    """Notes every game whose append ended it, and enqueues its archiving job."""

    def __init__(self, queue_connection: Redis, note_ended: Callable[[str, int], None]):
        self.connection = queue_connection
        self.note_ended = note_ended

    def appended(self, current: Current, events: Sequence[Event]) -> None:
        if not current.state.over:
            return
        self.note_ended(current.game_id, int(time.time() * 1000))
        enqueue_archive(self.connection, current.game_id)


__all__ = ["ArchiveWhenEnded"]
