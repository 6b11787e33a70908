"""Every request's id and its one access-log line, and the request metrics.

A request's id is its ``X-Request-ID`` when that is sane (1 to 128 visible
ASCII characters), else a new one; every answer carries it back, errors
too, and every log line written while answering carries it
(``service.logs``). Request lines add ``method``, ``path``, ``status`` and
``duration_ms``; the request counter and latency histogram are counted by
route template, never by path.
"""

from __future__ import annotations

import logging
import re
import time
import uuid

from flask import Flask, g, has_request_context, request

from service import logs
from service.metrics import HTTP_LATENCY, HTTP_REQUESTS

access_log = logging.getLogger("service.access")

REQUEST_ID_HEADER = "X-Request-ID"
_SANE_REQUEST_ID = re.compile(r"[\x21-\x7e]{1,128}")
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def current_request_id() -> str | None:
    """The id of the request being answered, if any."""
    if has_request_context():
        return g.get("request_id")
    return None


def request_id_from(header: str | None) -> str:
    """The client's request id when it is sane, else a new one."""
    if header and _SANE_REQUEST_ID.fullmatch(header):
        return header
    return uuid.uuid4().hex


def init_app(app: Flask) -> None:
    """Request ids, request logs and request metrics for ``app``; call before other hooks."""
    logs.use_request_ids(current_request_id)

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


__all__ = ["REQUEST_ID_HEADER", "current_request_id", "init_app", "request_id_from"]
