"""The one composition root: the game service as the API and the workers both run it.

``build(settings, clients)`` wires every store, queue, listener and the command
service once, from the process's ``Settings``. ``create_app`` and the workers'
runtime each bring their own Redis clients (the API's give up within a
request's budget, a worker's wait) and get the same ``Services``; the web app
adds only what a web process holds (its waiters, its subscriptions,
``service.web.services``). A new store is built here, as a field of ``Services``.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

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
from service.jobs.outbound import IPNetwork, parse_allowances
from service.jobs.ratings import RateWhenEnded
from service.jobs.tournaments import CountWhenEnded
from service.jobs.webhook_outbox import AppOutboxes
from service.jobs.webhooks import RETRY_SECONDS, WebhookEvents
from service.ops.settings import Settings
from service.store.analyses import Analyses, AnalysisStore
from service.store.analysis_records import AnalysisRecords
from service.store.answers import StoredAnswers
from service.store.app_records import AppRecords
from service.store.archive import Archive, open_archive
from service.store.archived_log import ArchivedLog
from service.store.archiving import GameArchiver
from service.store.challenges import Challenges
from service.store.client_games import ClientGames, ClientGamesWithArchive
from service.store.clients import ClientRegistry
from service.store.events import EventStore
from service.store.exports import ExportStore
from service.store.full import refused_for_memory
from service.store.live_games import IndexLiveGames, LiveGames
from service.store.player_records import PlayerRecords, Players
from service.store.players import PlayerStore
from service.store.ratings import RatedGames
from service.store.records_db import RecordsDatabase, open_records_database
from service.store.redis_clients import AnyRedis
from service.store.rematches import RematchOffers
from service.store.seeks import SeekPool, SeekRules
from service.store.stats import GameStats
from service.store.tournament_records import TournamentRecords
from service.store.webhook_records import WebhookRecords
from service.store.webhooks import Delivery, WebhookStore

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Services:
    """What serving games needs, wired once."""

    #: The settings the services were built from, read by attribute (``settings.max_waiting``).
    settings: Settings
    #: The log's Redis, and the queues' (RQ): the log's own unless ``QUEUE_REDIS_URL``
    #: names another.
    redis: AnyRedis
    queues: Redis
    #: The command service: create, join, act, read (``service.game.commands``).
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
    #: The players of client apps, and the ratings their rated games write.
    players: Players
    ratings: RatedGames
    #: Client apps: their keys, and their records when there is a database of record.
    clients: ClientRegistry
    #: Matchmaking: seeks waiting for an opponent, and challenges of one player to another.
    seeks: SeekPool
    challenges: Challenges
    #: First answers of keyed requests that start a job (``service.web.idempotency``).
    answers: StoredAnswers
    #: Client apps' webhook endpoints and deliveries, the listener that makes deliveries
    #: (told of notices that are no append: a rematch offer), the pauses before each
    #: retry, and the addresses a delivery may reach although they are not public.
    webhooks: WebhookStore
    webhook_events: WebhookEvents
    webhook_retry_seconds: tuple[int, ...]
    webhook_allowances: tuple[IPNetwork, ...]
    #: Each app's games in play by rating, kept by an append listener (``live_games``).
    live_games: LiveGames
    #: Each bot level's fixed rating less ``BOT_RATING_BASE``: its ladder Elo.
    bot_elo: dict[str, float]
    #: Schedules a clocked game's deadlines.
    clocks: ClockKeeper | None = None
    #: Finished games kept for good, and what moves them there (None: no archive).
    archive: Archive | None = None
    archiver: GameArchiver | None = None
    #: Tournaments, in the database of record (None: the process has none).
    tournaments: TournamentRecords | None = None

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


@dataclass(frozen=True, slots=True)
class RedisClients:
    """The Redis clients a process builds its services on: its budget is the process's
    (a request's for the API, a job's for a worker)."""

    #: The games' logs (one Redis, or a cluster).
    log: AnyRedis
    #: The queues (RQ): a plain Redis.
    queues: Redis


def build(
    settings: Settings,
    clients: RedisClients,
    *,
    also: Sequence[AppendListener] = (),
    known: KnownGames | None = None,
    archive: Archive | None = None,
    records: RecordsDatabase | None = None,
    warn_without_secret: bool = True,
) -> Services:
    """The services of ``settings`` on the log's Redis, enqueueing on the queues' Redis.

    ``also``: more append listeners, told first (the API's memory of games,
    ``service.live.memory``: it keeps the new events before anything else of the
    request waits for I/O, so the waiters the append wakes in this process find
    them there). With ``REPLICA_ACKS``, an append is acknowledged once that many
    replicas have it. With an archive (the one ``ARCHIVE_URL`` names, unless
    ``archive`` is given), a game that ends is moved there
    (``service.store.archiving``) and its reads come from there once Redis has
    forgotten it, ``ARCHIVE_GRACE_SECONDS`` after its end. ``warn_without_secret``:
    whether a missing ``SECRET_KEY`` is worth a warning (the API's tokens die with it;
    a worker issues none).
    """
    if archive is None:
        archive = archive_from(settings)
    if records is None:
        records = records_from(settings)
    secret = secret_key(settings, warn=warn_without_secret)
    log_client, queue_client = clients.log, clients.queues
    replica_acks = settings.replica_acks
    replica_ack_timeout_ms = settings.replica_ack_timeout_ms
    archive_grace_seconds = settings.archive_grace_seconds
    players_per_client = settings.players_per_client
    webhooks_per_client = settings.webhooks_per_client
    webhook_retry_seconds = retry_seconds(settings)
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
        AppOutboxes(queue_client, redeliveries_per_app=settings.webhook_redeliveries_per_app),
        webhooks,
        Delivery.of,
        retry_seconds=webhook_retry_seconds,
    )
    # The players live in the database of record when there is one, else in Redis.
    players: Players = (
        PlayerStore(log_client, players_per_client=players_per_client)
        if records is None
        else PlayerRecords(records, players_per_client=players_per_client)
    )
    bot_elo = bot_ratings()
    live_games = LiveGames(log_client)
    listeners: tuple[AppendListener, ...] = (
        *also,
        dispatcher,
        clocks,
        stats,
        RateWhenEnded(queue_client),
        CountWhenEnded(queue_client),
        webhook_events,
        # ...and a game that starts or ends enters or leaves its app's games in play.
        IndexLiveGames(live_games, players, bot_elo),
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
    # An offer lives about as long as its game stays in Redis (the archive's grace).
    offers = RematchOffers(log_client, ttl_seconds=archive_grace_seconds)
    return Services(
        settings=settings,
        redis=log_client,
        queues=queue_client,
        games=games,
        store=store,
        exports=ExportStore(log_client),
        stats=stats,
        dispatcher=dispatcher,
        rematches=RematchService(games, offers),
        # Made once, read for as long as the game: Redis holds what is live.
        analyses=AnalysisStore(log_client) if records is None else AnalysisRecords(records),
        players=players,
        ratings=RatedGames(players, bot_elo),
        clients=ClientRegistry(log_client, None if records is None else AppRecords(records)),
        seeks=SeekPool(
            log_client,
            SeekRules(
                alive_seconds=settings.seek_alive_seconds,
                window_start=settings.seek_window_start,
                window_widening=settings.seek_window_widening,
                window_widest=settings.seek_window_widest,
                pool_cap=settings.seeks_per_client,
                record_seconds=settings.seek_record_seconds,
            ),
        ),
        challenges=Challenges(
            log_client,
            open_seconds=settings.challenge_seconds,
            record_seconds=settings.challenge_record_seconds,
            records_per_player=settings.challenge_records_per_player,
        ),
        answers=StoredAnswers(log_client, keep_seconds=settings.idempotency_seconds),
        webhooks=webhooks,
        webhook_events=webhook_events,
        webhook_retry_seconds=webhook_events.retry_seconds,
        webhook_allowances=parse_allowances(settings.webhook_allow_addresses),
        live_games=live_games,
        bot_elo=bot_elo,
        clocks=clocks,
        archive=archive,
        archiver=archiver,
        tournaments=None if records is None else TournamentRecords(records),
    )


def retry_seconds(settings: Settings) -> tuple[int, ...]:
    """``WEBHOOK_RETRY_SECONDS``: the pauses before each retry of a delivery."""
    text = settings.webhook_retry_seconds.strip()
    if not text:
        return RETRY_SECONDS
    return tuple(int(part) for part in text.split(","))


def bot_ratings() -> dict[str, float]:
    """Each bot level's ladder Elo (``random`` at 0), the fixed rating of a rated bot game."""
    return {info.name: info.strength.elo if info.strength else 0.0 for info in CATALOG}


def archive_from(settings: Settings) -> Archive | None:
    """The archive ``ARCHIVE_URL`` names, opened; None when it names none."""
    url = settings.archive_url
    return open_archive(url) if url else None


def records_from(settings: Settings) -> RecordsDatabase | None:
    """The database of record ``ARCHIVE_URL`` names (players, ratings, their games);
    None when it names none (Redis alone then keeps them)."""
    url = settings.archive_url
    return open_records_database(url) if url else None


def secret_key(settings: Settings, *, warn: bool = True) -> bytes:
    """``SECRET_KEY``, else a random one that dies with the process.

    The API warns: its tokens die with it. A worker issues no token, and
    builds its service once per job, so it does not.
    """
    secret = settings.secret_key
    if not secret:
        if warn:
            log.warning("SCHNAPSEN_SECRET_KEY is not set; tokens of this process die with it")
        secret = secrets.token_hex(32)
    return secret.encode()


__all__ = [
    "RedisClients",
    "Services",
    "archive_from",
    "build",
    "records_from",
    "secret_key",
]
