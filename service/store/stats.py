"""Games created and finished and actions appended, counted in the log's Redis.

Counted where every API process and every worker sees the same numbers
(``GET /metrics`` reads them at scrape time), so a bot's move appended by a
worker counts like a player's move appended by the API. No Flask and no
Prometheus here: the workers count too.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import redis

from service.engine import ActionTaken, Event, GameCreated, GameStatus
from service.game.commands import Current

log = logging.getLogger(__name__)


class GameStats:
    """Counters in the log's Redis; an append listener (``service.game.commands.AppendListener``).

    ``created`` counts on create; ``actions`` counts each player or bot
    action appended (idempotent replays append nothing and count nothing);
    ``finished`` counts a game once, the first time a finished state is seen
    (after an append or on a read), through a marker key kept ``MARK_TTL``
    seconds. With an archive, a finish is counted instead when the game is
    first marked archived, its row written and checked (``count_finish``,
    once a game, and no marker key left behind in Redis; a worker killed
    between the mark and the count loses that one count). Active = created - finished: an estimate (a
    game whose finish nobody sees again counts as active). A counter that
    cannot be written is a warning, never a failed command.
    """

    CREATED = "sch:stats:games_created"
    FINISHED = "sch:stats:games_finished"
    ACTIONS = "sch:stats:actions_appended"
    MARK = "sch:stats:finished:{}"
    MARK_TTL = 30 * 24 * 3600

    def __init__(
        self, client: redis.Redis, *, counts_actions: bool = True, marks_finishes: bool = True
    ):
        self.client = client
        #: False when the archive counts each finish once, as it writes the game's row.
        self.marks_finishes = marks_finishes
        #: False when the log counts appended actions in its append script itself
        #: (``EventStore.action_counter``), in the same step as the append.
        self.counts_actions = counts_actions

    def appended(self, current: Current, events: Sequence[Event]) -> None:
        if any(isinstance(event, GameCreated) for event in events):
            self._count(self.CREATED, 1, "the creation", current)
        actions = sum(isinstance(event, ActionTaken) for event in events)
        if actions and self.counts_actions:
            self._count(self.ACTIONS, actions, "an action", current)
        self.observe(current)

    def observe(self, current: Current) -> None:
        """Count the game's finish if it is finished and its finish was not counted yet."""
        if not self.marks_finishes or current.state.status is not GameStatus.FINISHED:
            return
        try:
            if self.client.set(self.MARK.format(current.game_id), 1, nx=True, ex=self.MARK_TTL):
                self.client.incr(self.FINISHED)
        except redis.RedisError:
            log.warning("could not count the finish of game %s", current.game_id)

    def count_finish(self) -> None:
        """One more finished game (the archive wrote its row: once a game)."""
        try:
            self.client.incr(self.FINISHED)
        except redis.RedisError:
            log.warning("could not count a finished game")

    def counts(self, client: redis.Redis | None = None) -> tuple[int, int, int]:
        """Games created, games finished, actions appended."""
        # Three GETs, not one MGET: on a Redis Cluster the three keys are in three slots.
        with (client or self.client).pipeline(transaction=False) as pipe:
            for key in (self.CREATED, self.FINISHED, self.ACTIONS):
                pipe.get(key)
            created, finished, actions = pipe.execute()
        return int(created or 0), int(finished or 0), int(actions or 0)

    def _count(self, key: str, amount: int, what: str, current: Current) -> None:
        try:
            self.client.incrby(key, amount)
        except redis.RedisError:
            log.warning("could not count %s of game %s", what, current.game_id)


__all__ = ["GameStats"]
