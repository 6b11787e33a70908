"""What the app's views use, wired once by ``create_app``: one typed container per app.

The container is the one ``service.ops.composition.build`` makes for every
process (``Services``), with what only a web process holds added
(``WebServices``: its waiting slots, its subscriptions, the OpenAPI document).
Flask keeps per-app objects in ``app.extensions``, a dict of anything; this
module is the only one that touches it, so every view names what it uses by
a typed field (``services().games``, ``services().settings.long_poll_max_seconds``)
rather than by a string key, and no view imports another view to reach a
shared object.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, cast

from flask import Flask, current_app

from service.ops.composition import Services

if TYPE_CHECKING:  # types only: the modules below import this one to find their services
    from prometheus_client import CollectorRegistry
    from redis import Redis

    from service.game.commands import GameService
    from service.jobs.watch import JobWatcher
    from service.live.memory import GameMemory
    from service.live.watcher import LogWatcher, OneRead
    from service.ops.settings import Settings
    from service.web.rendered_views import RenderedViews
    from service.web.waiting import WaitingAdmission

#: The key of the container in ``app.extensions``: named here and nowhere else.
_EXTENSION = "schnapsen"


@dataclass(frozen=True, slots=True, kw_only=True)
class WebServices(Services):
    """The built services, and what a web process holds besides: everything a request of
    this app reaches besides its own arguments."""

    #: The one subscription of this process that wakes its job waits (``service.jobs.watch``).
    job_watcher: JobWatcher
    #: The waiting slots of this process and each caller's and game's share of them.
    waiting: WaitingAdmission
    #: The one subscription of this process that wakes its waiters (``service.live.watcher``).
    watcher: LogWatcher
    #: Games at recent versions this process read or appended (``service.live.memory``).
    memory: GameMemory
    one_read: OneRead[Any]
    #: The answers of recent game views, kept as sent (``service.web.rendered_views``).
    rendered_views: RenderedViews
    #: The OpenAPI document as YAML (built once, on first use).
    openapi_yaml: Callable[[], str]
    #: Clients that give up within a second, for /readyz and the scrape-time gauges.
    log_probe: Redis
    queue_probe: Redis
    #: The scrape-time gauges read from Redis (``service.ops.metrics``).
    metrics_registry: CollectorRegistry

    @classmethod
    def of(cls, built: Services, **web: Any) -> WebServices:
        """``built`` with the web process's own parts (``web``, by field name) added."""
        return cls(**{field.name: getattr(built, field.name) for field in fields(built)}, **web)


def init_app(app: Flask, wired: WebServices) -> None:
    """Give ``app`` its services; ``services()`` finds them during its requests."""
    app.extensions[_EXTENSION] = wired


def services(app: Flask | None = None) -> WebServices:
    """The services of ``app``, by default the app of the current request."""
    return cast(WebServices, (app or current_app).extensions[_EXTENSION])


def games() -> GameService:
    """The command service of the current app."""
    return services().games


def settings() -> Settings:
    """The settings of the current app (``settings().long_poll_max_seconds``)."""
    return services().settings


def queues() -> Redis:
    """The queues' Redis of the current app."""
    return services().queues


def job_watcher() -> JobWatcher:
    """The process's one listener for ended jobs: job waits hold no Redis connection."""
    return services().job_watcher


__all__ = ["WebServices", "games", "init_app", "job_watcher", "queues", "services", "settings"]
