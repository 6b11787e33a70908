"""What an operator sees: JSON logs with request ids, Prometheus metrics, readiness.

- Logs: one JSON object per line (``time``, ``level``, ``logger``, ``message``,
  ``request_id``; request lines add ``method``, ``path``, ``status``,
  ``duration_ms``). A request's id is its ``X-Request-ID`` when that is sane
  (1 to 128 visible ASCII characters), else a new one; every answer carries
  it back in ``X-Request-ID``, errors too.
- Metrics: process counters and histograms (summed over gunicorn's processes
  when ``PROMETHEUS_MULTIPROC_DIR`` is set), and gauges read from Redis at
  scrape time: jobs queued and failed per queue, live workers, games
  created, finished and active.
- Readiness: the log's Redis and the queues' Redis answer a ping, and a worker
  is registered on every queue; each check waits at most
  ``READINESS_TIMEOUT_SECONDS``.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import time
import uuid
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any

import redis
from flask import Flask, g, has_request_context, request
from prometheus_client import (
    CONTENT_TYPE_PLAIN_0_0_4,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
    values,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector
from redis.backoff import NoBackoff
from redis.retry import Retry
from rq.registry import FailedJobRegistry
from rq.worker import Worker

from service.commands import Acted, Current, GameService, Seated
from service.queue_names import QUEUES
from workers.queues import queue

log = logging.getLogger(__name__)
access_log = logging.getLogger("service.access")

REQUEST_ID_HEADER = "X-Request-ID"
_SANE_REQUEST_ID = re.compile(r"[\x21-\x7e]{1,128}")
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})

METRICS_CONTENT_TYPE = CONTENT_TYPE_PLAIN_0_0_4

# -- logs ------------------------------------------------------------------

#: Attributes of a LogRecord that are not ``extra`` fields.
_RECORD_FIELDS = frozenset(
    vars(logging.LogRecord("", 0, "", 0, "", None, None)).keys() | {"message", "asctime"}
)


def current_request_id() -> str | None:
    """The id of the request being answered, if any."""
    if has_request_context():
        return g.get("request_id")
    return None


class JsonFormatter(logging.Formatter):
    """One JSON object per line; ``extra`` fields become members."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        request_id = getattr(record, "request_id", None) or current_request_id()
        if request_id:
            entry["request_id"] = request_id
        for name, value in vars(record).items():
            if name not in _RECORD_FIELDS and name not in entry:
                entry[name] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            entry["exception"] = record.exc_text
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry, default=str)


def configure_logging(level: str | int = "INFO", stream: Any = None) -> logging.Handler:
    """JSON lines on stderr from the root logger (once per process), at ``level``."""
    root = logging.getLogger()
    handler = next((h for h in root.handlers if getattr(h, "_schnapsen_json", False)), None)
    if handler is None:
        handler = logging.StreamHandler(stream or sys.stderr)
        handler.setFormatter(JsonFormatter())
        handler._schnapsen_json = True  # type: ignore[attr-defined]
        root.addHandler(handler)
    root.setLevel(level.upper() if isinstance(level, str) else level)
    return handler


def request_id_from(header: str | None) -> str:
    """The client's request id when it is sane, else a new one."""
    if header and _SANE_REQUEST_ID.fullmatch(header):
        return header
    return uuid.uuid4().hex


# -- metrics ---------------------------------------------------------------


def multiprocess_metrics() -> bool:
    """Whether prometheus_client writes its values to PROMETHEUS_MULTIPROC_DIR."""
    return bool(getattr(values.ValueClass, "_multiprocess", False))


# No `_created` series: they double the output and no dashboard here reads them.
disable_created_metrics()

# prometheus_client's multiprocess folder must exist before the first value is written.
if multiprocess_metrics() and os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    os.makedirs(os.environ["PROMETHEUS_MULTIPROC_DIR"], exist_ok=True)

HTTP_REQUESTS = Counter(
    "schnapsen_http_requests_total",
    "HTTP requests answered, by method, route template and status",
    ["method", "route", "status"],
)
HTTP_LATENCY = Histogram(
    "schnapsen_http_request_duration_seconds",
    "Time to answer an HTTP request (to the first byte of a stream), by method and route",
    ["method", "route"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
WAITING_REQUESTS = Gauge(
    "schnapsen_waiting_requests",
    "Long-polls and SSE streams waiting for a game's next event now",
    multiprocess_mode="livesum",
)
ACTIONS_APPENDED = Counter(
    "schnapsen_actions_appended_total",
    "Player actions appended to game logs by this API (idempotent replays not counted)",
)


class GameStats:
    """Games created and finished, as two counters in the log's Redis.

    ``created`` counts on create; ``finished`` counts a game once, the first
    time a finished state is seen (after an append or on a read), through a
    marker key kept ``MARK_TTL`` seconds. Active = created - finished: an
    estimate (a game whose finish nobody sees again counts as active).
    """

    CREATED = "sch:stats:games_created"
    FINISHED = "sch:stats:games_finished"
    MARK = "sch:stats:finished:{}"
    MARK_TTL = 30 * 24 * 3600

    def __init__(self, client: redis.Redis):
        self.client = client

    def created(self) -> None:
        self.client.incr(self.CREATED)

    def observe(self, current: Current) -> None:
        if current.state.status != "finished":
            return
        if self.client.set(self.MARK.format(current.game_id), 1, nx=True, ex=self.MARK_TTL):
            self.client.incr(self.FINISHED)

    def counts(self, client: redis.Redis | None = None) -> tuple[int, int]:
        created, finished = (client or self.client).mget(self.CREATED, self.FINISHED)
        return int(created or 0), int(finished or 0)


class ObservedDispatcher:
    """The after-append hook and read-path hook: the bot dispatcher, then ``GameStats``."""

    def __init__(self, dispatcher: Callable[[Current], None], stats: GameStats):
        self.dispatcher = dispatcher
        self.stats = stats

    def __call__(self, current: Current) -> None:
        try:
            self.dispatcher(current)
        finally:
            self._observe(current)

    def ensure_bot_moves(self, current: Current) -> None:
        try:
            getattr(self.dispatcher, "ensure_bot_moves", self.dispatcher)(current)
        finally:
            self._observe(current)

    def _observe(self, current: Current) -> None:
        try:
            self.stats.observe(current)
        except redis.RedisError:
            log.warning("could not count the finish of game %s", current.game_id)


class CountingGameService(GameService):
    """The game service, counting games created and actions appended."""

    def __init__(self, *args: Any, stats: GameStats | None = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.stats = stats

    def create(self, *args: Any, **kwargs: Any) -> Seated:
        seated = super().create(*args, **kwargs)
        if not seated.replayed and self.stats is not None:
            try:
                self.stats.created()
            except redis.RedisError:
                log.warning("could not count the creation of game %s", seated.current.game_id)
        return seated

    def act(self, *args: Any, **kwargs: Any) -> Acted:
        acted = super().act(*args, **kwargs)
        if not acted.replayed:
            ACTIONS_APPENDED.inc()
        return acted


class RedisCollector(Collector):
    """Gauges read from Redis at scrape time (short timeouts; a failure shows as 0 up)."""

    def __init__(self, log_client: redis.Redis, queue_client: redis.Redis, stats: GameStats):
        self.log_client = log_client
        self.queue_client = queue_client
        self.stats = stats

    def collect(self) -> Iterable[Any]:
        up = GaugeMetricFamily(
            "schnapsen_redis_up", "Whether the Redis answered this scrape", labels=["role"]
        )
        try:
            created, finished = self.stats.counts(self.log_client)
        except redis.RedisError:
            up.add_metric(["log"], 0)
        else:
            up.add_metric(["log"], 1)
            games_created = CounterMetricFamily(
                "schnapsen_games_created", "Games created (all API processes)"
            )
            games_created.add_metric([], created)
            games_finished = CounterMetricFamily(
                "schnapsen_games_finished", "Games seen finished (all API processes)"
            )
            games_finished.add_metric([], finished)
            active = GaugeMetricFamily(
                "schnapsen_games_active", "Games created and not yet seen finished (an estimate)"
            )
            active.add_metric([], max(created - finished, 0))
            yield from (games_created, games_finished, active)
        try:
            queued, failed, workers = _queue_gauges(self.queue_client)
        except redis.RedisError:
            up.add_metric(["queues"], 0)
        else:
            up.add_metric(["queues"], 1)
            yield from (queued, failed, workers)
        yield up


def _queue_gauges(client: redis.Redis) -> tuple[GaugeMetricFamily, ...]:
    queued = GaugeMetricFamily("schnapsen_jobs_queued", "Jobs waiting in a queue", labels=["queue"])
    failed = GaugeMetricFamily(
        "schnapsen_jobs_failed", "Jobs in a queue's failed registry", labels=["queue"]
    )
    workers = GaugeMetricFamily(
        "schnapsen_workers", "Live RQ workers listening on a queue", labels=["queue"]
    )
    live = live_workers(client)
    for name in QUEUES:
        q = queue(name, client)
        queued.add_metric([name], q.count)
        failed.add_metric([name], FailedJobRegistry(queue=q).get_job_count(cleanup=False))
        workers.add_metric([name], live[name])
    return queued, failed, workers


def metrics_text(app: Flask) -> bytes:
    """The exposition text: this process's (or all processes') metrics and Redis gauges."""
    ops = app.extensions["schnapsen_ops"]
    directory = app.config.get("METRICS_MULTIPROC_DIR")
    if directory and multiprocess_metrics():
        registry = CollectorRegistry()
        MultiProcessCollector(registry, path=directory)
        own = generate_latest(registry)
    else:
        from prometheus_client import REGISTRY

        own = generate_latest(REGISTRY)
    return own + generate_latest(ops["metrics_registry"])


# -- readiness --------------------------------------------------------------


def quick_client(url: str, timeout: float) -> redis.Redis:
    """A Redis client that gives up after ``timeout`` seconds, without retries."""
    return redis.Redis.from_url(
        url,
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
        retry=Retry(NoBackoff(), 0),
        retry_on_timeout=False,
    )


def live_workers(client: redis.Redis) -> dict[str, int]:
    """Per queue, the registered workers whose key has not expired (read-only)."""
    keys = {name: sorted(Worker.all_keys(queue=queue(name, client))) for name in QUEUES}
    with client.pipeline(transaction=False) as pipe:
        for name in QUEUES:
            for key in keys[name]:
                pipe.exists(key)
        alive = iter(pipe.execute())
    return {name: sum(1 for _ in keys[name] if next(alive)) for name in QUEUES}


def readiness(log_client: redis.Redis, queue_client: redis.Redis) -> tuple[dict[str, Any], list]:
    """The checks of GET /readyz and the names of those that fail."""
    checks: dict[str, Any] = {}
    missing: list[str] = []
    checks["redis"] = _ping(log_client)
    if queue_client is log_client:
        checks["queue_redis"] = checks["redis"]
    else:
        checks["queue_redis"] = _ping(queue_client)
    if checks["redis"] != "ok":
        missing.append("redis")
    if checks["queue_redis"] != "ok":
        missing.append("queue_redis")
        checks["workers"] = "unknown: the queues' Redis is unreachable"
        missing.append("workers")
        return checks, missing
    try:
        workers = live_workers(queue_client)
    except redis.RedisError as error:
        checks["workers"] = f"unknown: {error}"
        missing.append("workers")
        return checks, missing
    checks["workers"] = workers
    missing += [f"workers:{name}" for name, count in workers.items() if count == 0]
    return checks, missing


def _ping(client: redis.Redis) -> str:
    try:
        client.ping()
    except redis.RedisError as error:
        return f"unreachable: {error.__class__.__name__}: {error}"
    return "ok"


# -- wiring ----------------------------------------------------------------


def init_app(
    app: Flask, log_client: redis.Redis, queue_client: redis.Redis, stats: GameStats
) -> None:
    """Request ids, request logs and request metrics for ``app``; call before other hooks.

    ``log_client`` and ``queue_client`` are the short-timeout clients of
    readiness and scrape-time gauges.
    """
    if app.config.get("METRICS_MULTIPROC_DIR") and not multiprocess_metrics():
        log.warning(
            "PROMETHEUS_MULTIPROC_DIR is set in the app's config but was not in the environment "
            "when prometheus_client was imported; /metrics shows this process only"
        )
    registry = CollectorRegistry(auto_describe=False)
    registry.register(RedisCollector(log_client, queue_client, stats))
    app.extensions["schnapsen_ops"] = {
        "log_redis": log_client,
        "queue_redis": queue_client,
        "stats": stats,
        "metrics_registry": registry,
    }

    @app.before_request
    def _start() -> None:
        g.request_id = request_id_from(request.headers.get(REQUEST_ID_HEADER))
        g.request_started = time.perf_counter()

    @app.after_request
    def _finish(response):
        request_id = g.get("request_id") or request_id_from(None)
        response.headers[REQUEST_ID_HEADER] = request_id
        started = g.get("request_started")
        duration = time.perf_counter() - started if started is not None else 0.0
        method = request.method if request.method in _METHODS else "OTHER"
        route = request.url_rule.rule if request.url_rule is not None else "<unmatched>"
        HTTP_REQUESTS.labels(method, route, str(response.status_code)).inc()
        HTTP_LATENCY.labels(method, route).observe(duration)
        access_log.info(
            "%s %s %s",
            request.method,
            request.path,
            response.status_code,
            extra={
                "request_id": request_id,
                "method": request.method,
                "path": request.path,
                "route": route,
                "status": response.status_code,
                "duration_ms": round(duration * 1000, 2),
            },
        )
        return response


def cors_origins(setting: str | None) -> list[str] | str | None:
    """``SCHNAPSEN_CORS_ORIGINS`` parsed: None (no CORS), ``"*"``, or a list of origins."""
    origins = [origin.strip().rstrip("/") for origin in (setting or "").split(",")]
    origins = [origin for origin in origins if origin]
    if not origins:
        return None
    if "*" in origins:
        return "*"
    return origins


#: Headers a browser script may read, and may send, across origins.
CORS_EXPOSE_HEADERS = [
    "ETag",
    "Location",
    "X-Request-ID",
    "Idempotent-Replayed",
    "Retry-After",
    "Repr-Digest",
    "Content-Disposition",
    "WWW-Authenticate",
]
CORS_ALLOW_HEADERS = [
    "Authorization",
    "Content-Type",
    "Idempotency-Key",
    "If-Match",
    "If-None-Match",
    "Last-Event-ID",
    "X-Client-Key",
    "X-Request-ID",
]


def init_cors(app: Flask) -> None:
    """CORS headers for the origins of ``CORS_ORIGINS``; none when it is empty."""
    origins = cors_origins(app.config.get("CORS_ORIGINS"))
    if origins is None:
        return
    from flask_cors import CORS

    CORS(
        app,
        origins=origins,
        expose_headers=CORS_EXPOSE_HEADERS,
        allow_headers=CORS_ALLOW_HEADERS,
        methods=["GET", "HEAD", "POST", "OPTIONS"],
        max_age=600,
        supports_credentials=False,
        send_wildcard=origins == "*",
        vary_header=True,
    )


__all__ = [
    "ACTIONS_APPENDED",
    "HTTP_LATENCY",
    "HTTP_REQUESTS",
    "CountingGameService",
    "GameStats",
    "JsonFormatter",
    "ObservedDispatcher",
    "configure_logging",
    "init_app",
    "init_cors",
    "metrics_text",
    "quick_client",
    "readiness",
    "request_id_from",
]
