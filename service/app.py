"""The Flask application factory: ``create_app(config)``.

Wires the Redis event store, the command service and the blueprints
together. Nothing connects to Redis until the first request, so the app (and
its OpenAPI document) can be built without a server.
"""

from __future__ import annotations

import functools
import logging
import secrets
import threading
from collections.abc import Mapping
from typing import Any

import redis
from flask import Flask

from service import observability
from service.api import bodies, bots, docs, exports, games, limits, meta, pages
from service.api.errors import ProblemApi, handle_problem, register_error_handlers
from service.bots import LEVELS
from service.dispatch import BotDispatcher
from service.problems import Problem
from service.settings import from_env
from service.store import EventStore, ExportStore

log = logging.getLogger(__name__)

API_SETTINGS = {
    "API_TITLE": "Schnapsen",
    "API_VERSION": "1",
    "OPENAPI_VERSION": "3.1.0",
    "ETAG_DISABLED": True,
    "API_SPEC_OPTIONS": {
        "info": {
            "description": "Play Schnapsen, the Austrian two-player card game, over HTTP. "
            "Rules: RULES.md; every action is an event in the game's log.",
        },
        # "/" first: the docs page's "Try it out" calls the server that serves it.
        "servers": [
            {"url": "/", "description": "The server that serves this document"},
            {"url": "http://127.0.0.1:8000", "description": "schnapsen-serve on this machine"},
        ],
    },
}

_DEFAULT_URL = "redis://127.0.0.1:6379/0"


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    app = Flask(__name__)
    # "//" in an API path is an empty id (404 problem), not an HTML redirect to another path.
    app.url_map.merge_slashes = False
    app.config.update(from_env())
    app.config.update(API_SETTINGS)
    app.config.update(config or {})
    app.json.sort_keys = False
    observability.configure_logging(app.config["LOG_LEVEL"])

    client = _redis(app.config["REDIS_URL"], app.config)
    queue_client = (
        _redis(app.config["QUEUE_REDIS_URL"], app.config)
        if app.config["QUEUE_REDIS_URL"]
        else client
    )
    if not app.config["REDIS_URL"]:
        log.warning("REDIS_URL is not set; using redis://127.0.0.1:6379/0")
    secret = app.config["SECRET_KEY"]
    if not secret:
        log.warning("SCHNAPSEN_SECRET_KEY is not set; tokens of this process die with it")
        secret = secrets.token_hex(32)
    store = EventStore(client)
    # Readiness and scrape-time gauges use clients that give up within a second.
    timeout = app.config["READINESS_TIMEOUT_SECONDS"]
    quick_log = observability.quick_client(app.config["REDIS_URL"] or _DEFAULT_URL, timeout)
    quick_queues = (
        observability.quick_client(app.config["QUEUE_REDIS_URL"], timeout)
        if app.config["QUEUE_REDIS_URL"]
        else quick_log
    )
    # Request ids, JSON request logs and request metrics: before every other hook.
    stats = observability.GameStats(client)
    observability.init_app(app, quick_log, quick_queues, stats)
    observability.init_cors(app)
    limits.install(app, client)
    dispatcher = observability.ObservedDispatcher(BotDispatcher(queue_client), stats)
    service = observability.CountingGameService(
        store, secret.encode(), bot_levels=LEVELS, after_append=dispatcher, stats=stats
    )

    api = ProblemApi(app)
    api.spec.components.security_scheme(
        "bearerAuth", {"type": "http", "scheme": "bearer", "description": "A seat's token"}
    )
    api.register_blueprint(games.blp)
    api.register_blueprint(bots.blp)
    api.register_blueprint(exports.blp)
    api.register_blueprint(meta.blp)
    app.register_blueprint(pages.blp)
    app.register_blueprint(docs.blp)
    register_error_handlers(app)
    app.extensions["schnapsen"] = {
        "games": service,
        "store": store,
        "redis": client,
        "queues": queue_client,
        "dispatcher": dispatcher,
        "exports": ExportStore(client),
        "sse_slots": threading.BoundedSemaphore(app.config["SSE_MAX_STREAMS"]),
        "openapi_yaml": functools.cache(lambda: api.spec.to_yaml()),
    }

    bodies.install(app)  # JSON only, bounded however framed, parsed within bounds

    @app.errorhandler(redis.exceptions.ConnectionError)
    @app.errorhandler(redis.exceptions.TimeoutError)
    def _redis_down(error: Exception):
        # Returned, not raised: Flask does not handle errors raised by error handlers.
        log.error("redis unavailable: %s", error)
        return handle_problem(
            Problem(
                "the game store is unreachable right now; try again shortly",
                status=503,
                code="store_unavailable",
                headers={"Retry-After": "2"},
            )
        )

    return app


def _redis(url: str | None, config: Mapping[str, Any]) -> redis.Redis:
    return redis.Redis.from_url(
        url or _DEFAULT_URL,
        socket_connect_timeout=2,
        # Long-polls block in XREAD for up to LONG_POLL_MAX_SECONDS.
        socket_timeout=max(config["LONG_POLL_MAX_SECONDS"], config["JOB_WAIT_MAX_SECONDS"]) + 10,
        health_check_interval=30,
    )
