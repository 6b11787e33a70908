"""After every append: when a bot seat is to move, a worker is asked to move it.

The job id is deterministic (``bot-<game>-<version>``), so asking twice is
harmless, and the worker's append expects that version, so a stale or
retried job never adds a second move. Read paths call ``ensure_bot_moves``
too: if a process died between its append and its enqueue, the next read
asks again.
"""

from __future__ import annotations

from collections.abc import Sequence

from redis import Redis

from service.engine import Event
from service.game.commands import Current, bot_to_move
from service.jobs.queues import enqueue_bot_move


class BotDispatcher:
    """Enqueues bot moves on the queues' Redis (which may differ from the log's).

    An append listener (``service.game.commands.AppendListener``).
    """

    def __init__(self, queue_connection: Redis):
        self.connection = queue_connection

    def ensure_bot_moves(self, current: Current) -> None:
        """Ask a worker for the bot's move if a bot is to move in ``current``."""
        if bot_to_move(current):
            enqueue_bot_move(self.connection, current.game_id, current.version)

    def appended(self, current: Current, events: Sequence[Event]) -> None:
        self.ensure_bot_moves(current)
