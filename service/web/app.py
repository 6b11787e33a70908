"""The Flask application factory: ``create_app(config)``.

Reads the settings once (``from_env``, then ``config``'s overrides), builds the
Redis clients of a request's budget, the services (from the one composition
root, ``service.ops.composition.build``, as the workers do) and the
blueprints. Nothing connects to a plain Redis until the first request, so the
app (and its OpenAPI document) can be built without a server; a Redis Cluster
client reads the cluster's slots when it is built, so with a cluster
``REDIS_URL`` one of its nodes must answer then.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping
from typing import Any

import redis
from flask import Flask
from flask.sessions import SessionInterface
from redis.backoff import ExponentialBackoff, NoBackoff
from redis.retry import Retry
from werkzeug.middleware.proxy_fix import ProxyFix

from service.jobs.watch import JobWatcher
from service.live.cluster import ShardedLogWatcher
from service.live.memory import GameMemory
from service.live.watcher import LogWatcher, OneRead
from service.ops import metrics
from service.ops.composition import RedisClients, build
from service.ops.logs import configure_logging
from service.ops.readiness import quick_client
from service.ops.settings import (
    DEFAULT_REDIS_URL,
    DEFAULTS,
    from_env,
    queue_redis_url,
    redis_url,
)
from service.ops.shares import overreaching_shares
from service.store.redis_clients import (
    AnyRedis,
    QueuesNotConfigured,
    QuickCheckPool,
    connect,
    is_cluster,
)
from service.web import bodies, limits, plain_routes, request_ids, response_headers
from service.web import services as web_services
from service.web.callers import check_declared
from service.web.cors import cors_origins, init_cors
from service.web.errors import ProblemApi, register_error_handlers
from service.web.idempotency import KeyedOperations
from service.web.links import CreateLinks
from service.web.rendered_views import RenderedViews
from service.web.schemes import SCHEME_DOCS
from service.web.services import WebServices
from service.web.spec import ContractPlugin, register_components
from service.web.views import (
    analysis,
    bots,
    challenges,
    docs,
    exports,
    game_feed,
    live,
    meta,
    pages,
    players,
    problem_pages,
    rematch,
    seeks,
    tournaments,
    webhooks,
)
from service.web.waiting import WaitingAdmission

log = logging.getLogger(__name__)

API_SETTINGS = {
    "API_TITLE": "Schnapsen",
    "API_VERSION": "1",
    "OPENAPI_VERSION": "3.1.0",
    "ETAG_DISABLED": True,
    "API_SPEC_OPTIONS": {
        "info": {
            "description": "Play Schnapsen, the Austrian two-player card game, over HTTP. "
            "Rules: docs/rules.md; every action is an event in the game's log.",
            "license": {"name": "MIT", "identifier": "MIT"},
        },
        # "/" first: the docs page's "Try it out" calls the server that serves it.
        "servers": [
            {"url": "/", "description": "The server that serves this document"},
            {"url": "http://127.0.0.1:8000", "description": "schnapsen-serve on this machine"},
        ],
    },
}

#: How many call timeouts a request waits for a free pooled Redis connection.
POOL_WAIT_FACTOR = 3


class _NoSessions(SessionInterface):
    """The API keeps no cookie session (clients hold bearer tokens): opening none
    saves a signing serializer on every request."""

    def open_session(self, app: Flask, request: Any) -> None:
        return None

    def save_session(self, app: Flask, session: Any, response: Any) -> None:
        return None


class SchnapsenApp(Flask):
    """Flask, minus what a synchronous API without sessions never needs per request."""

    session_interface = _NoSessions()

    def ensure_sync(self, func: Any) -> Any:
        # No view or hook here is a coroutine function: skip Flask's check of each
        # one on every request (it is a measurable part of a long-poll's cost).
        return func


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """The app on the settings of the environment, with ``config``'s in place of any of them
    (keyed as ``service.ops.settings.DEFAULTS``; how the tests point the app at their own
    Redis). Raises ``SettingError`` naming the variable of a setting that is no value of
    its kind."""
    settings = from_env().overridden(config or {})
    app = SchnapsenApp(__name__)
    # "//" in an API path is an empty id (404 problem), not an HTML redirect to another path.
    app.url_map.merge_slashes = False
    # Flask reads MAX_CONTENT_LENGTH there; nothing of the service reads its settings there.
    app.config.update(settings.as_config())
    app.config.update(API_SETTINGS)
    app.config.update({key: value for key, value in (config or {}).items() if key not in DEFAULTS})
    app.json.sort_keys = False
    configure_logging(settings.log_level)
    for warning in overreaching_shares(settings):  # a share that keeps nobody from all
        log.warning(warning)

    # Every Redis call of a request gives up after REDIS_TIMEOUT_SECONDS (a paused or
    # lost Redis answers 503 at once). Waiting clients cost no connection: one watcher
    # per process listens (service.live.watcher), and one more for ended jobs (service.jobs.watch).
    timeout = settings.redis_timeout_seconds
    pool_size = settings.redis_pool_size
    log_url, queue_url = redis_url(settings), queue_redis_url(settings)
    client = _redis(log_url, timeout, pool_size)
    if queue_url is None:  # the log is on a Redis Cluster: RQ has no Redis (see /readyz)
        log.error(QueuesNotConfigured.MESSAGE)
        queue_client = _no_queues()
    else:
        queue_client = _redis(queue_url, timeout, pool_size) if settings.queue_redis_url else client
    if not settings.redis_url:
        log.warning("REDIS_URL is not set; using %s", DEFAULT_REDIS_URL)
    # Games at recent versions: the feed's readers share them, and this process's
    # appends fill it, so a waiter woken by one reads nothing (service.live.memory).
    memory = GameMemory()
    built = build(settings, RedisClients(client, queue_client), also=[memory], known=memory)
    # Readiness and scrape-time gauges use clients that give up within a second.
    ready_timeout = settings.readiness_timeout_seconds
    quick_log = quick_client(log_url, ready_timeout)
    if queue_url is None:
        quick_queues = _no_queues()
    elif settings.queue_redis_url:
        quick_queues = quick_client(queue_url, ready_timeout)
    else:
        quick_queues = quick_log
    # Request ids, JSON request logs and request metrics: before every other hook.
    request_ids.init_app(app)
    init_cors(app, settings.cors_origins)
    response_headers.install(app)  # nosniff everywhere; the pages may not be framed
    request_limits = limits.install(app, client, settings)

    api = ProblemApi(
        app,
        spec_kwargs={
            "marshmallow_plugin": ContractPlugin(),
            # Idempotency-Key on job requests; links from what an answer makes
            "extra_plugins": [KeyedOperations(), CreateLinks()],
        },
    )
    register_components(api.spec)
    for name, scheme in SCHEME_DOCS.items():
        api.spec.components.security_scheme(name, scheme)
    # The games' blueprint, with its feed's routes after its own (game_feed imports games).
    api.register_blueprint(game_feed.blp)
    api.register_blueprint(live.blp)
    api.register_blueprint(rematch.blp)
    api.register_blueprint(bots.blp)
    api.register_blueprint(exports.blp)
    api.register_blueprint(analysis.blp)
    api.register_blueprint(players.blp)
    api.register_blueprint(seeks.blp)
    api.register_blueprint(challenges.blp)
    api.register_blueprint(tournaments.blp)
    api.register_blueprint(webhooks.blp)
    api.register_blueprint(meta.blp)
    api.register_blueprint(problem_pages.blp)
    app.register_blueprint(pages.blp)
    app.register_blueprint(docs.blp)
    check_declared(app)
    register_error_handlers(app)
    web_services.init_app(
        app,
        WebServices.of(
            built,
            job_watcher=_job_watcher(queue_url, timeout),
            waiting=WaitingAdmission.from_settings(settings),
            watcher=_watcher(log_url, timeout),
            memory=memory,
            one_read=OneRead(),
            rendered_views=RenderedViews(),
            openapi_yaml=functools.cache(lambda: api.spec.to_yaml()),
            log_probe=quick_log,
            queue_probe=quick_queues,
            metrics_registry=metrics.scrape_registry(
                quick_log,
                quick_queues,
                built.stats,
                multiproc_dir=settings.metrics_multiproc_dir,
            ),
        ),
    )

    bodies.install(app)  # JSON only, bounded however framed, parsed within bounds

    if cors_origins(settings.cors_origins) is None:  # CORS answers are Flask's
        plain_routes.install(app, request_limits)  # a plain action and view below Flask's hooks
    if settings.proxy_hops:
        # Behind load balancers: the client's address is the one they report.
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=settings.proxy_hops)  # type: ignore[method-assign]
    return app


def _watcher(url: str, connect_timeout: float) -> LogWatcher:
    """The process's watcher: one subscription (it blocks on it, so no read timeout), or on
    a Redis Cluster a shard subscription per watched game (service.live.cluster)."""
    if is_cluster(url):
        return ShardedLogWatcher(
            lambda: connect(url, socket_connect_timeout=connect_timeout, socket_timeout=5)
        )
    options = {"socket_connect_timeout": connect_timeout, "health_check_interval": 30}
    return LogWatcher(lambda: redis.Redis.from_url(url, **options))


def _job_watcher(queue_url: str | None, connect_timeout: float) -> JobWatcher:
    """The process's listener for ended jobs, on the queues' Redis (always a plain one)."""
    if queue_url is None:  # no queues: nothing ends, and a wait's first read answers 503
        return JobWatcher(_no_queues)
    options = {"socket_connect_timeout": connect_timeout, "health_check_interval": 30}
    return JobWatcher(lambda: redis.Redis.from_url(queue_url, **options))


class _RefusingPool(redis.ConnectionPool):
    """A pool that never connects: the queues' Redis is not configured."""

    def get_connection(self, *args: Any, **kwargs: Any) -> Any:
        raise QueuesNotConfigured()


def _no_queues() -> redis.Redis:
    """The queue client when RQ has no Redis: every call fails with ``QueuesNotConfigured``
    (a ConnectionError: 503 ``store_unavailable``), and /readyz names ``queue_redis``."""
    return redis.Redis(connection_pool=_RefusingPool())


def _redis(url: str, socket_timeout: float, pool_size: int) -> AnyRedis:
    """A client whose every call gives up after ``socket_timeout`` seconds.

    At most ``pool_size`` connections per process: under gevent thousands of
    requests may run at once, and they share the pool (waiting for a free
    connection at most ``POOL_WAIT_FACTOR`` times ``socket_timeout``) instead of
    opening a connection each; the pool checks an idle connection with the OS's
    own ``poll`` rather than gevent's (``QuickCheckPool``).
    One retry, at once and only for a lost connection (a Redis restart leaves
    pooled connections dead); never for a timeout, which would double the wait.
    On a Redis Cluster the pool is per node, and the cluster client tries a
    command up to three times, reading the slots again after a node failed
    (a failover takes ``cluster-node-timeout`` and an election).
    """
    options: dict[str, Any] = {
        "connection_pool_class": QuickCheckPool,
        "max_connections": pool_size,
        # A busy process's requests queue for a connection a little longer than a call lasts.
        "timeout": POOL_WAIT_FACTOR * socket_timeout,
        "socket_connect_timeout": socket_timeout,
        "socket_timeout": socket_timeout,
        "health_check_interval": 30,
    }
    if is_cluster(url):
        options["retry"] = Retry(ExponentialBackoff(cap=0.5, base=0.05), 3)
    else:
        options["retry"] = Retry(
            NoBackoff(), 1, supported_errors=(redis.exceptions.ConnectionError,)
        )
    return connect(url, **options)
