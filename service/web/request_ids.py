"""Every request's id and its one access-log line, and the request metrics.

A request's id is its ``X-Request-ID`` when that is sane (1 to 128 visible
ASCII characters), else a new one; every answer carries it back, errors
too, and every log line written while answering carries it
(``service.ops.logs``). Request lines add ``method``, ``path``, ``status`` and
``duration_ms``; the request counter and latency histogram are counted by
route template, never by path.

Every request passes ``_finish``, a long-poll delivery included (most
requests are), so its line and its metrics cost as little as they can:
the metrics' children are looked up once per label values, and the line is
handed to the logger's handlers without ``findCaller`` (which walks the stack
for a file and line number no JSON line shows).
"""

from __future__ import annotations

import logging
import os
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from flask import Flask, g, has_request_context, request

from service.ops import logs
from service.ops.metrics import HTTP_LATENCY, HTTP_REQUESTS

access_log = logging.getLogger("service.access")

REQUEST_ID_HEADER = "X-Request-ID"
#: The header as the WSGI environ names it (what ``request.headers`` would look up).
REQUEST_ID_ENVIRON = "HTTP_X_REQUEST_ID"
_SANE_REQUEST_ID = re.compile(r"[\x21-\x7e]{1,128}")
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


#: The id of the request a path below Flask's answers (``serving``), in this greenlet.
_SERVING: ContextVar[str | None] = ContextVar("serving", default=None)


def current_request_id() -> str | None:
    """The id of the request being answered, if any."""
    if has_request_context():
        return g.get("request_id")
    return _SERVING.get()


@contextmanager
def serving(request_id: str) -> Iterator[None]:
    """Answering a request outside Flask's request context (``service.web.plain_routes``):
    its log lines carry ``request_id`` as those of Flask's requests do."""
    token = _SERVING.set(request_id)
    try:
        yield
    finally:
        _SERVING.reset(token)


def request_id_from(header: str | None) -> str:
    """The client's request id when it is sane, else a new one."""
    if header and _SANE_REQUEST_ID.fullmatch(header):
        return header
    return os.urandom(16).hex()  # 128 random bits, as a uuid4 has (less its object)


class _Children:
    """The request metrics' children by label values, looked up once each.

    ``labels()`` validates and locks on every call; its children never change,
    and a process sees a few dozen label combinations (route templates, not
    paths), so a dict keeps them.
    """

    def __init__(self) -> None:
        self._requests: dict[tuple[str, str, int], Any] = {}
        self._latency: dict[tuple[str, str], Any] = {}

    def count(self, method: str, route: str, status: int, duration: float) -> None:
        requests = self._requests.get((method, route, status))
        if requests is None:
            requests = HTTP_REQUESTS.labels(method, route, str(status))
            self._requests[(method, route, status)] = requests
        latency = self._latency.get((method, route))
        if latency is None:
            latency = self._latency[(method, route)] = HTTP_LATENCY.labels(method, route)
        requests.inc()
        latency.observe(duration)


def log_access(extra: dict[str, Any]) -> None:
    """The request's access line: ``access_log.info`` without its ``findCaller``.

    The record goes through the logger's level, filters and handlers as
    ``info`` would send it; only its file, line and function are left unknown
    (no JSON line carries them).
    """
    if not access_log.isEnabledFor(logging.INFO):
        return
    args = (extra["method"], extra["path"], extra["status"])
    record = access_log.makeRecord(
        access_log.name, logging.INFO, "(unknown file)", 0, "%s %s %s", args, None, extra=extra
    )
    access_log.handle(record)


#: The request metrics' children of this process (the metrics are the process's too).
_CHILDREN = _Children()


def account(
    request_id: str, method: str, route: str, path: str, status: int, started: float | None
) -> None:
    """A request's metrics and its access line, once its answer's status is known: the
    duty of every answer, whichever path served it (Flask's hooks, ``service.web.plain_routes``)."""
    duration = time.perf_counter() - started if started is not None else 0.0
    _CHILDREN.count(method if method in _METHODS else "OTHER", route, status, duration)
    log_access(
        {
            "request_id": request_id,
            "method": method,
            "path": path,
            "route": route,
            "status": status,
            "duration_ms": round(duration * 1000, 2),
        }
    )


def init_app(app: Flask) -> None:
    """Request ids, request logs and request metrics for ``app``; call before other hooks."""
    logs.use_request_ids(current_request_id)

    @app.before_request
    def _start() -> None:
        here = g._get_current_object()  # one proxy lookup, not one per attribute
        here.request_id = request_id_from(request.environ.get(REQUEST_ID_ENVIRON))
        here.request_started = time.perf_counter()

    @app.after_request
    def _finish(response):
        here, asked = g._get_current_object(), request._get_current_object()
        request_id = here.get("request_id") or request_id_from(None)
        response.headers[REQUEST_ID_HEADER] = request_id
        rule = asked.url_rule
        route = rule.rule if rule is not None else "<unmatched>"
        account(
            request_id,
            asked.method,
            route,
            asked.path,
            response.status_code,
            here.get("request_started"),
        )
        return response


__all__ = [
    "REQUEST_ID_ENVIRON",
    "REQUEST_ID_HEADER",
    "account",
    "current_request_id",
    "init_app",
    "request_id_from",
    "serving",
]
