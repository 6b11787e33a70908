"""Once a rated game ends, its players' ratings are written by a worker's job."""

from __future__ import annotations

from collections.abc import Sequence

from redis import Redis

from service.engine import Event
from service.game.values import Current
from service.jobs.queues import enqueue_rating


class RateWhenEnded:
    """Enqueues the rating job of every rated game whose append ended it with a winner."""

    def __init__(self, queue_connection: Redis):
        self.connection = queue_connection

    def appended(self, current: Current, events: Sequence[Event]) -> None:
        if current.seats.rated and current.state.over and current.state.winner is not None:
            enqueue_rating(self.connection, current.game_id)


__all__ = ["RateWhenEnded"]
