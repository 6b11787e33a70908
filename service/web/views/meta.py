"""Service endpoints: the OpenAPI document, liveness, readiness and metrics."""

from __future__ import annotations

from flask import Response
from flask_smorest import Blueprint

from schemas.meta import HealthSchema, ReadinessSchema
from service.game.problem_codes import ProblemCode
from service.game.problems import Problem
from service.ops.metrics import METRICS_CONTENT_TYPE, metrics_text
from service.ops.readiness import readiness
from service.web.operations import NONE, SERVER, operation
from service.web.services import services

blp = Blueprint("meta", __name__, description="The API's description, health and metrics")


@blp.route("/openapi.yaml", methods=["GET"])
@blp.response(200, content_type="application/yaml", description="This API, OpenAPI 3.1")
@operation(blp, "getOpenapiDocument", security=NONE, problems=SERVER)
def openapi_yaml():
    """The OpenAPI 3.1 document of this API (the same as the committed openapi.yaml)."""
    text = services().openapi_yaml()
    return Response(text, mimetype="application/yaml")


@blp.route("/healthz", methods=["GET"])
@blp.response(200, HealthSchema, description="The process is up", example={"status": "ok"})
@operation(blp, "getHealth", security=NONE, problems=SERVER)
def healthz():
    """Liveness: answers as long as the process serves requests (no Redis call)."""
    return {"status": "ok"}


@blp.route("/readyz", methods=["GET"])
@blp.response(
    200,
    ReadinessSchema,
    description="Ready to play: Redis and a worker answer",
    example={
        "status": "ready",
        "checks": {
            "redis": "ok",
            "queue_redis": "ok",
            "store": "ok",
            "workers": {"moves": 2, "decisions": 1},
        },
    },
)
@blp.alt_response(503, response="SERVICE_UNAVAILABLE", description="Not ready; `missing` says why")
@operation(blp, "getReadiness", security=NONE, problems=SERVER + (503,))
def readyz():
    """Readiness: the log's Redis and the queues' Redis answer and have room, and a worker
    runs on every queue.

    Each Redis check gives up after `SCHNAPSEN_READINESS_TIMEOUT_SECONDS`
    (1 s), so this never hangs. Not ready answers 503 with a problem whose
    `missing` lists the failed checks (`redis`, `queue_redis`, `store_full`:
    a Redis past its `maxmemory` refuses writes, `workers`, `workers:<queue>`).
    """
    wired = services()
    checks, missing = readiness(wired.log_probe, wired.queue_probe)
    if missing:
        raise Problem(
            "not ready: " + ", ".join(missing),
            code=ProblemCode.NOT_READY,
            extra={"missing": missing, "checks": checks},
            headers={"Retry-After": "5"},
        )
    return {"status": "ready", "checks": checks}


@blp.route("/metrics", methods=["GET"])
@blp.response(
    200,
    content_type="text/plain",
    description="Prometheus text format 0.0.4 (`text/plain; version=0.0.4`)",
)
@operation(blp, "getMetrics", security=NONE, problems=SERVER)
def metrics():
    """Metrics for Prometheus: requests, latency, actions, jobs queued and failed, games.

    With `PROMETHEUS_MULTIPROC_DIR` set, the counters are summed over all
    server processes; without it, each scrape sees the one process answering.
    Gauges read from Redis (jobs, workers, games) are the same for every process.
    """
    return Response(
        metrics_text(services().metrics_registry, services().settings.metrics_multiproc_dir),
        content_type=METRICS_CONTENT_TYPE,
    )
