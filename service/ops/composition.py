"""The one composition root: the game service as the API and the workers both run it.

``create_app`` and the workers' runtime each bring their own Redis clients
(the API's give up within a request's budget, a worker's wait) and get the
same store, counters, bot dispatcher and command service, with the same
append listeners, from ``build_services``.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from redis import Redis

from service.game.bot_levels import LEVELS
from service.game.commands import AppendListener, Current, GameService
from service.game.transaction import KnownGames
from service.jobs.dispatch import BotDispatcher
from service.store.client_games import ClientGames
from service.store.events import EventStore
from service.store.exports import ExportStore
from service.store.redis_clients import AnyRedis
from service.store.stats import GameStats

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Services:
    """What serving games needs, wired once."""

    games: GameService
    store: EventStore
    exports: ExportStore
    stats: GameStats
    dispatcher: BotDispatcher

    def seen(self, current: Current) -> None:
        """A read path saw the game: ask again for a due bot move, and count a finish."""
        try:
            self.dispatcher.ensure_bot_moves(current)
        finally:
            self.stats.observe(current)


def build_services(
    log_client: AnyRedis,
    queue_client: Redis,
    secret: bytes,
    *,
    also: Sequence[AppendListener] = (),
    known: KnownGames | None = None,
    replica_acks: int = 0,
    replica_ack_timeout_ms: int = 500,
) -> Services:
    """The service on the log's Redis (one, or a cluster), enqueueing on the queues' Redis.

    ``also``: more append listeners, told first (the API's memory of games,
    ``service.live.memory``: it keeps the new events before anything else of the
    request waits for I/O, so the waiters the append wakes in this process find
    them there). With ``replica_acks``, an append is acknowledged once that many
    replicas have it.
    """
    store = EventStore(
        log_client,
        replica_acks=replica_acks,
        replica_ack_timeout_ms=replica_ack_timeout_ms,
        action_counter=GameStats.ACTIONS,
    )
    stats = GameStats(log_client, counts_actions=store.action_counter is None)
    dispatcher = BotDispatcher(queue_client)
    # After an append: the next bot move if a bot is to move, then the counters.
    listeners: tuple[AppendListener, ...] = (*also, dispatcher, stats)
    games = GameService(
        store,
        secret,
        listing=ClientGames(log_client),
        bot_levels=LEVELS,
        listeners=listeners,
        known=known,
    )
    return Services(games, store, ExportStore(log_client), stats, dispatcher)


def secret_key(settings: Mapping[str, Any], *, warn: bool = True) -> bytes:
    """``SECRET_KEY``, else a random one that dies with the process.

    The API warns: its tokens die with it. A worker issues no token, and
    builds its service once per job, so it does not.
    """
    secret = settings["SECRET_KEY"]
    if not secret:
        if warn:
            log.warning("SCHNAPSEN_SECRET_KEY is not set; tokens of this process die with it")
        secret = secrets.token_hex(32)
    return secret.encode()


__all__ = ["Services", "build_services", "secret_key"]
