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

import redis
from redis import Redis

from service.bots.catalog import CATALOG
from service.game.bot_levels import LEVELS
from service.game.commands import AppendListener, Current, GameService
from service.game.rematch_service import RematchService
from service.game.transaction import KnownGames
from service.jobs.archiving import ArchiveWhenEnded
from service.jobs.clocks import ClockKeeper
from service.jobs.dispatch import BotDispatcher
from service.jobs.ratings import RateWhenEnded
from service.jobs.tournaments import CountWhenEnded
from service.jobs.webhook_outbox import AppOutboxes
from service.jobs.webhooks import RETRY_SECONDS, WebhookEvents
from service.store.analyses import Analyses, AnalysisStore
from service.store.analysis_records import AnalysisRecords
from service.store.archive import Archive, open_archive
from service.store.archived_log import ArchivedLog
from service.store.archiving import GameArchiver
from service.store.client_games import ClientGames, ClientGamesWithArchive
from service.store.events import EventStore
from service.store.exports import ExportStore
from service.store.full import refused_for_memory
from service.store.player_records import PlayerRecords, Players
from service.store.players import PlayerStore
from service.store.ratings import RatedGames
from service.store.records_db import RecordsDatabase, open_records_database
from service.store.redis_clients import AnyRedis
from service.store.rematches import RematchOffers
from service.store.stats import GameStats
from service.store.webhook_records import WebhookRecords
from service.store.webhooks import Delivery, WebhookStore

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Services:
    """What serving games needs, wired once."""

    games: GameService
    #: The games' logs: Redis, and the archive behind it when there is one.
    store: EventStore | ArchivedLog
    exports: ExportStore
    stats: GameStats
    dispatcher: BotDispatcher
    #: Rematch offers of finished games, and the rematches they make.
    rematches: RematchService
    #: Games' analyses: rows of the database of record when there is one, else Redis.
    analyses: Analyses
    #: Schedules a clocked game's deadlines (None in services built before clocks).
    clocks: ClockKeeper | None = None
    #: Finished games kept for good, and what moves them there (None: no archive).
    archive: Archive | None = None
    archiver: GameArchiver | None = None
    #: The players of client apps, and the ratings their rated games write.
    players: Players | None = None
    ratings: RatedGames | None = None
    #: Client apps' webhook endpoints and deliveries, and the listener that makes them.
    webhooks: WebhookStore | None = None
    webhook_events: WebhookEvents | None = None

    def seen(self, current: Current) -> None:
        """A read path saw the game: ask again for a due bot move, and count a finish.

        A full store refuses the ask (``service.store.full``); the read still
        answers, and a read once there is room asks again.
        """
        try:
            self.dispatcher.ensure_bot_moves(current)
            if self.clocks is not None and current.seats.clock is not None:
                reading = self.games.clock_reading(current)
                self.clocks.ensure(current, None if reading is None else reading.deadline_ms)
        except redis.exceptions.ResponseError as error:
            if not refused_for_memory(error):
                raise
            log.warning("the store is full: no bot move asked for in game %s", current.game_id)
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
    archive: Archive | None = None,
    archive_grace_seconds: float = 3600.0,
    players_per_client: int = 1_000_000,
    records: RecordsDatabase | None = None,
    webhook_retry_seconds: Sequence[int] = RETRY_SECONDS,
    webhooks_per_client: int = 10,
    webhook_redeliveries_per_app: int = 50,
) -> Services:
    """The service on the log's Redis (one, or a cluster), enqueueing on the queues' Redis.

    ``also``: more append listeners, told first (the API's memory of games,
    ``service.live.memory``: it keeps the new events before anything else of the
    request waits for I/O, so the waiters the append wakes in this process find
    them there). With ``replica_acks``, an append is acknowledged once that many
    replicas have it. With an ``archive``, a game that ends is moved there
    (``service.store.archiving``) and its reads come from there once Redis has
    forgotten it, ``archive_grace_seconds`` after its end.
    """
    live = EventStore(
        log_client,
        replica_acks=replica_acks,
        replica_ack_timeout_ms=replica_ack_timeout_ms,
        action_counter=GameStats.ACTIONS,
    )
    stats = GameStats(
        log_client, counts_actions=live.action_counter is None, marks_finishes=archive is None
    )
    dispatcher = BotDispatcher(queue_client)
    clocks = ClockKeeper(queue_client)
    # After an append: the next bot move if a bot is to move, the deadline of a clocked
    # person's move, then the counters, the ratings of a rated game that ended, and the
    # notices its app's webhooks asked for.
    # Endpoints live in the database of record when there is one, else in Redis.
    webhooks = (
        WebhookStore(log_client, endpoints_per_client=webhooks_per_client)
        if records is None
        else WebhookRecords(log_client, records, endpoints_per_client=webhooks_per_client)
    )
    webhook_events = WebhookEvents(
        AppOutboxes(queue_client, redeliveries_per_app=webhook_redeliveries_per_app),
        webhooks,
        Delivery.of,
        retry_seconds=webhook_retry_seconds,
    )
    listeners: tuple[AppendListener, ...] = (
        *also,
        dispatcher,
        clocks,
        stats,
        RateWhenEnded(queue_client),
        CountWhenEnded(queue_client),
        webhook_events,
    )
    store: EventStore | ArchivedLog = live
    listing: ClientGames | ClientGamesWithArchive = ClientGames(log_client)
    archiver = None
    if archive is not None:
        listing = ClientGamesWithArchive(listing, archive)
        store = ArchivedLog(live, archive)
        archiver = GameArchiver(
            log_client, archive, grace_seconds=archive_grace_seconds, on_written=stats.count_finish
        )
        # ...and once a game has ended, its move to the archive.
        listeners = (*listeners, ArchiveWhenEnded(queue_client, archiver.note_ended))
    games = GameService(
        store,
        secret,
        listing=listing,
        bot_levels=LEVELS,
        listeners=listeners,
        known=known,
    )
    # The players live in the database of record when there is one, else in Redis.
    players: Players = (
        PlayerStore(log_client, players_per_client=players_per_client)
        if records is None
        else PlayerRecords(records, players_per_client=players_per_client)
    )
    # An offer lives about as long as its game stays in Redis (the archive's grace).
    offers = RematchOffers(log_client, ttl_seconds=archive_grace_seconds)
    return Services(
        games,
        store,
        ExportStore(log_client),
        stats,
        dispatcher,
        RematchService(games, offers),
        clocks=clocks,
        archive=archive,
        archiver=archiver,
        players=players,
        ratings=RatedGames(players, bot_ratings()),
        webhooks=webhooks,
        webhook_events=webhook_events,
        # Made once, read for as long as the game: Redis holds what is live.
        analyses=AnalysisStore(log_client) if records is None else AnalysisRecords(records),
    )


def retry_seconds(settings: Mapping[str, Any]) -> tuple[int, ...]:
    """``WEBHOOK_RETRY_SECONDS``: the pauses before each retry of a delivery."""
    text = str(settings["WEBHOOK_RETRY_SECONDS"]).strip()
    if not text:
        return RETRY_SECONDS
    return tuple(int(part) for part in text.split(","))


def bot_ratings() -> dict[str, float]:
    """Each bot level's ladder Elo (``random`` at 0), the fixed rating of a rated bot game."""
    return {info.name: info.strength.elo if info.strength else 0.0 for info in CATALOG}


def archive_from(settings: Mapping[str, Any]) -> Archive | None:
    """The archive ``ARCHIVE_URL`` names, opened; None when it names none."""
    url = settings["ARCHIVE_URL"]
    return open_archive(url) if url else None


def records_from(settings: Mapping[str, Any]) -> RecordsDatabase | None:
    """The database of record ``ARCHIVE_URL`` names (players, ratings, their games);
    None when it names none (Redis alone then keeps them)."""
    url = settings["ARCHIVE_URL"]
    return open_records_database(url) if url else None


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


__all__ = [
    "Services",
    "archive_from",
    "records_from",
    "build_services",
    "secret_key",
]
