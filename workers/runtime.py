"""What a worker process needs, built once from the environment (see README's settings)."""

from __future__ import annotations

import functools
import secrets
from dataclasses import dataclass

import redis

from service.bots import LEVELS
from service.commands import GameService
from service.dispatch import BotDispatcher
from service.observability import GameStats, ObservedDispatcher
from service.settings import from_env
from service.store import EventStore, ExportStore


@dataclass(frozen=True)
class Runtime:
    games: GameService
    store: EventStore
    exports: ExportStore
    #: Think time of bot opponents per move (ms); None: each level's default.
    bot_budget_ms: int | None
    #: A bot opponent's move takes at least this long (ms), so it feels like a player's.
    bot_delay_ms: int


@functools.cache
def runtime() -> Runtime:
    settings = from_env()
    log = redis.Redis.from_url(settings["REDIS_URL"] or "redis://127.0.0.1:6379/0")
    queues = redis.Redis.from_url(
        settings["QUEUE_REDIS_URL"] or settings["REDIS_URL"] or "redis://127.0.0.1:6379/0"
    )
    store = EventStore(log)
    secret = (settings["SECRET_KEY"] or secrets.token_hex(32)).encode()
    # After a bot's move: the next bot move if the bot is still to move, and the
    # games-finished count when the bot's move ended the game.
    hook = ObservedDispatcher(BotDispatcher(queues), GameStats(log))
    games = GameService(store, secret, bot_levels=LEVELS, after_append=hook)
    return Runtime(
        games=games,
        store=store,
        exports=ExportStore(log),
        bot_budget_ms=settings["BOT_BUDGET_MS"] or None,
        bot_delay_ms=settings["BOT_DELAY_MS"],
    )


def reset() -> None:
    """Forget the cached runtime (after the environment changed)."""
    runtime.cache_clear()


__all__ = ["Runtime", "reset", "runtime"]
