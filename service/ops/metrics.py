"""Prometheus metrics: the process's request counters and histograms, and Redis gauges.

Process metrics are summed over gunicorn's processes when
``PROMETHEUS_MULTIPROC_DIR`` is set. Gauges and shared counters are read
from Redis at scrape time, so every process and every worker counts in
the same place: jobs queued and failed per queue, live workers, games
created, finished and active, and actions appended (``service.store.stats``).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from typing import Any

import redis
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
from rq.registry import FailedJobRegistry

from service.jobs.names import QUEUES
from service.jobs.queues import live_workers, queue
from service.ops.settings import from_env
from service.store.stats import GameStats

log = logging.getLogger(__name__)

METRICS_CONTENT_TYPE = CONTENT_TYPE_PLAIN_0_0_4


def multiprocess_metrics() -> bool:
    """Whether prometheus_client writes its values to PROMETHEUS_MULTIPROC_DIR."""
    return bool(getattr(values.ValueClass, "_multiprocess", False))


# No `_created` series: they double the output and no dashboard here reads them.
disable_created_metrics()

# prometheus_client's multiprocess folder must exist before the first value is written,
# which for a gauge without labels is below, at import: before any app is built.
if multiprocess_metrics() and (_MULTIPROC_DIR := from_env().metrics_multiproc_dir):
    os.makedirs(_MULTIPROC_DIR, exist_ok=True)

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
            created, finished, actions = self.stats.counts(self.log_client)
        except redis.RedisError:
            up.add_metric(["log"], 0)
        else:
            up.add_metric(["log"], 1)
            yield from _game_metrics(created, finished, actions)
        try:
            queued, failed, workers = _queue_gauges(self.queue_client)
        except redis.RedisError:
            up.add_metric(["queues"], 0)
        else:
            up.add_metric(["queues"], 1)
            yield from (queued, failed, workers)
        yield up


def _game_metrics(created: int, finished: int, actions: int) -> Iterable[Any]:
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
    appended = CounterMetricFamily(
        "schnapsen_actions_appended",
        "Player and bot actions appended to game logs, by the API and the workers "
        "(idempotent replays not counted)",
    )
    appended.add_metric([], actions)
    return games_created, games_finished, active, appended


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


def scrape_registry(
    log_client: redis.Redis,
    queue_client: redis.Redis,
    stats: GameStats,
    *,
    multiproc_dir: str | None = None,
) -> CollectorRegistry:
    """The scrape-time gauges, on the short-timeout clients of readiness.

    ``multiproc_dir``: the ``METRICS_MULTIPROC_DIR`` setting; set while
    prometheus_client was imported without it, each process counts alone (said once).
    """
    if multiproc_dir and not multiprocess_metrics():
        log.warning(
            "PROMETHEUS_MULTIPROC_DIR is set in the app's config but was not in the environment "
            "when prometheus_client was imported; /metrics shows this process only"
        )
    registry = CollectorRegistry(auto_describe=False)
    registry.register(RedisCollector(log_client, queue_client, stats))
    return registry


def metrics_text(gauges: CollectorRegistry, multiproc_dir: str | None = None) -> bytes:
    """The exposition text: this process's (or, with ``multiproc_dir``, all processes')
    metrics, then the Redis ``gauges``."""
    if multiproc_dir and multiprocess_metrics():
        registry = CollectorRegistry()
        MultiProcessCollector(registry, path=multiproc_dir)
        own = generate_latest(registry)
    else:
        from prometheus_client import REGISTRY

        own = generate_latest(REGISTRY)
    return own + generate_latest(gauges)


__all__ = [
    "HTTP_LATENCY",
    "HTTP_REQUESTS",
    "METRICS_CONTENT_TYPE",
    "WAITING_REQUESTS",
    "RedisCollector",
    "metrics_text",
    "multiprocess_metrics",
    "scrape_registry",
]
