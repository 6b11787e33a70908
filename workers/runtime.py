"""What a worker process runs jobs on, built once from the environment (see docs/configuration.md).

The service comes from the same composition root as the API's
(``service.ops.composition``), so a bot's move is dispatched and counted as a
player's is. No Flask and no Prometheus are loaded here.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import redis

from service.game.commands import GameService
from service.jobs.outbound import parse_allowances
from service.jobs.webhook_outbox import AppOutboxes
from service.ops.composition import (
    archive_from,
    build_services,
    records_from,
    retry_seconds,
    secret_key,
)
from service.ops.settings import from_env, queue_redis_url, redis_url
from service.store.analyses import Analyses
from service.store.archived_log import ArchivedLog
from service.store.archiving import GameArchiver
from service.store.events import EventStore
from service.store.exports import ExportStore
from service.store.ratings import RatedGames
from service.store.redis_clients import QueuesNotConfigured, connect
from service.store.webhooks import WebhookStore


@dataclass(frozen=True)
class Runtime:
    games: GameService
    store: EventStore | ArchivedLog
    exports: ExportStore
    #: Games' analyses (the database of record's rows when there is one, else Redis).
    analyses: Analyses
    #: Moves ended games to the archive (None: no archive is configured).
    archiver: GameArchiver | None
    #: Games standing still this long (s) are ended as abandoned by the sweep.
    abandoned_after_seconds: float
    #: Seconds between the sweep's scans for stray and abandoned games.
    stray_scan_seconds: float
    #: Think time of bot opponents per move (ms); None: each level's default.
    bot_budget_ms: int | None
    #: A bot opponent's move takes at least this long (ms), so it feels like a player's.
    bot_delay_ms: int
    #: Writes the ratings of ended rated games, once a game.
    ratings: RatedGames
    #: Webhook endpoints and deliveries; the addresses a delivery may reach although they
    #: are not public; a delivery's time bound (s); failed deliveries in a row that disable
    #: an endpoint.
    webhooks: WebhookStore
    webhook_allowances: tuple[Any, ...]
    webhook_timeout: float
    webhook_disable_after: int
    #: Where deliveries wait for their app's turn (the queues' Redis), and the pauses
    #: before each retry of a failed one.
    webhook_outboxes: AppOutboxes
    webhook_retry_seconds: tuple[int, ...]


@functools.cache
def runtime() -> Runtime:
    settings = from_env()
    queue_url = queue_redis_url(settings)
    if queue_url is None:
        raise QueuesNotConfigured()
    log = connect(redis_url(settings))
    queues = redis.Redis.from_url(queue_url)
    services = build_services(
        log,
        queues,
        secret_key(settings, warn=False),
        replica_acks=settings["REPLICA_ACKS"],
        replica_ack_timeout_ms=settings["REPLICA_ACK_TIMEOUT_MS"],
        archive=archive_from(settings),
        archive_grace_seconds=settings["ARCHIVE_GRACE_SECONDS"],
        players_per_client=settings["PLAYERS_PER_CLIENT"],
        records=records_from(settings),
        webhook_retry_seconds=retry_seconds(settings),
        webhooks_per_client=settings["WEBHOOKS_PER_CLIENT"],
        webhook_redeliveries_per_app=settings["WEBHOOK_REDELIVERIES_PER_APP"],
    )
    events = services.webhook_events
    if events is None:  # build_services always makes it
        raise RuntimeError("the service was built without its webhooks' listener")
    return Runtime(
        games=services.games,
        store=services.store,
        exports=services.exports,
        analyses=services.analyses,
        archiver=services.archiver,
        abandoned_after_seconds=settings["ABANDONED_AFTER_SECONDS"],
        stray_scan_seconds=settings["STRAY_SCAN_SECONDS"],
        bot_budget_ms=settings["BOT_BUDGET_MS"] or None,
        bot_delay_ms=settings["BOT_DELAY_MS"],
        ratings=services.ratings,
        webhooks=services.webhooks,
        webhook_allowances=parse_allowances(settings["WEBHOOK_ALLOW_ADDRESSES"]),
        webhook_timeout=settings["WEBHOOK_TIMEOUT_SECONDS"],
        webhook_disable_after=settings["WEBHOOK_DISABLE_AFTER"],
        webhook_outboxes=events.outboxes,
        webhook_retry_seconds=events.retry_seconds,
    )


def reset() -> None:
    """Forget the cached runtime (after the environment changed)."""
    runtime.cache_clear()


__all__ = ["Runtime", "reset", "runtime"]
