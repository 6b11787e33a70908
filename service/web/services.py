"""What the app's views use, wired once by ``create_app``: one typed container per app.

Flask keeps per-app objects in ``app.extensions``, a dict of anything; this
module is the only one that touches it, so every view names what it uses by
a typed field (``services().games``) rather than by a string key, and no
view imports another view to reach a shared object.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from flask import Flask, current_app

if TYPE_CHECKING:  # types only: the modules below import this one to find their services
    from prometheus_client import CollectorRegistry
    from redis import Redis

    from service.game.commands import Current, GameService
    from service.game.rematch_service import RematchService
    from service.jobs.watch import JobWatcher
    from service.jobs.webhooks import WebhookEvents
    from service.live.memory import GameMemory
    from service.live.watcher import LogWatcher, OneRead
    from service.store.analyses import Analyses
    from service.store.answers import StoredAnswers
    from service.store.archive import Archive
    from service.store.archived_log import ArchivedLog
    from service.store.challenges import Challenges
    from service.store.clients import ClientRegistry
    from service.store.events import EventStore, ExportStore
    from service.store.player_records import Players
    from service.store.redis_clients import AnyRedis
    from service.store.seeks import SeekPool
    from service.store.tournament_records import TournamentRecords
    from service.store.webhooks import WebhookStore
    from service.web.waiting import WaitingAdmission

#: The key of the container in ``app.extensions``: named here and nowhere else.
_EXTENSION = "schnapsen"


@dataclass(frozen=True, slots=True)
class Services:
    """Everything a request of this app reaches besides its own arguments."""

    #: The command service: create, join, act, read (``service.game.commands``).
    games: GameService
    #: Rematch offers of finished games, and the rematches they make.
    rematches: RematchService
    #: The event log under it (and the archive behind it, when there is one).
    store: EventStore | ArchivedLog
    exports: ExportStore
    #: Games' analyses (the database of record's rows when there is one, else Redis).
    analyses: Analyses
    #: Finished games kept for good: listings and exports of a client's games read it.
    archive: Archive | None
    #: First answers of keyed requests that start a job (``service.web.idempotency``).
    answers: StoredAnswers
    #: The log's Redis, with a request's budget (rate limits share it).
    redis: AnyRedis
    #: The queues' Redis (RQ): the log's own unless ``QUEUE_REDIS_URL`` names another.
    queues: Redis
    #: The one subscription of this process that wakes its job waits (``service.jobs.watch``).
    job_watcher: JobWatcher
    #: What a read path calls with the game it loaded (``service.ops.composition``).
    seen: Callable[[Current], None]
    clients: ClientRegistry
    #: The players of client apps, and the seeks they wait on (matchmaking).
    players: Players
    seeks: SeekPool
    challenges: Challenges
    #: Client apps' webhook endpoints and deliveries, the listener that makes deliveries
    #: (told of notices that are no append: a rematch offer), and the retries' pauses.
    webhooks: WebhookStore
    webhook_events: WebhookEvents
    webhook_retry_seconds: tuple[int, ...]
    #: The waiting slots of this process and each caller's and game's share of them.
    waiting: WaitingAdmission
    #: The one subscription of this process that wakes its waiters (``service.live.watcher``).
    watcher: LogWatcher
    #: Games at recent versions this process read or appended (``service.live.memory``).
    memory: GameMemory
    one_read: OneRead[Any]
    #: The OpenAPI document as YAML (built once, on first use).
    openapi_yaml: Callable[[], str]
    #: Clients that give up within a second, for /readyz and the scrape-time gauges.
    log_probe: Redis
    queue_probe: Redis
    #: The scrape-time gauges read from Redis (``service.ops.metrics``).
    metrics_registry: CollectorRegistry
    #: Tournaments, in the database of record (None: the server has none).
    tournaments: TournamentRecords | None = None


def init_app(app: Flask, wired: Services) -> None:
    """Give ``app`` its services; ``services()`` finds them during its requests."""
    app.extensions[_EXTENSION] = wired


def services(app: Flask | None = None) -> Services:
    """The services of ``app``, by default the app of the current request."""
    return cast(Services, (app or current_app).extensions[_EXTENSION])


def games() -> GameService:
    """The command service of the current app."""
    return services().games


def queues() -> Redis:
    """The queues' Redis of the current app."""
    return services().queues


def job_watcher() -> JobWatcher:
    """The process's one listener for ended jobs: job waits hold no Redis connection."""
    return services().job_watcher


__all__ = ["Services", "games", "init_app", "job_watcher", "queues", "services"]
