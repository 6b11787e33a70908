"""The one place errors become answers: RFC 9457 ``application/problem+json``.

Every 4xx and 5xx of the service goes through ``problem_response``: refused
commands (``service.game.problems.Problem``, answered with the status of
``service.web.statuses``), an unreachable Redis (503 ``store_unavailable``), a
full one that refuses a write (503 ``store_full``: nothing was written),
Werkzeug's HTTP errors (404, 405 with ``Allow``, 413, malformed JSON), request
validation (422) and unhandled exceptions (500, logged, never with a traceback
in the body).
"""

from __future__ import annotations

import json
import logging
from http import HTTPStatus
from typing import Any

import redis
from flask import Flask, Response, current_app, request
from flask_smorest import Api
from werkzeug.exceptions import HTTPException

from schemas.problems import ProblemSchema
from service.game.problem_codes import ProblemCode
from service.game.problems import Problem
from service.store.full import refused_for_memory
from service.store.records_db import RecordsUnavailable
from service.web.statuses import status_of

PROBLEM_JSON = "application/problem+json"
log = logging.getLogger(__name__)

#: The code of an HTTP error raised without one of its own (Werkzeug's, a bare status).
_CODES_BY_STATUS: dict[int, ProblemCode] = {
    400: ProblemCode.BAD_REQUEST,
    401: ProblemCode.UNAUTHORIZED,
    403: ProblemCode.FORBIDDEN,
    404: ProblemCode.NOT_FOUND,
    405: ProblemCode.METHOD_NOT_ALLOWED,
    406: ProblemCode.NOT_ACCEPTABLE,
    409: ProblemCode.CONFLICT,
    412: ProblemCode.PRECONDITION_FAILED,
    413: ProblemCode.PAYLOAD_TOO_LARGE,
    415: ProblemCode.UNSUPPORTED_MEDIA_TYPE,
    422: ProblemCode.INVALID_REQUEST,
    429: ProblemCode.TOO_MANY_REQUESTS,
    500: ProblemCode.INTERNAL_ERROR,
    503: ProblemCode.SERVICE_UNAVAILABLE,
}


def problem_response(
    status: int,
    code: str,
    title: str,
    detail: str,
    *,
    extra: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> Response:
    body: dict[str, Any] = {
        "type": f"/problems/{code}",
        "title": title,
        "status": status,
        "detail": detail,
        "code": code,
    }
    if request:
        body["instance"] = request.path
    body.update(extra or {})
    response = current_app.response_class(json.dumps(body), status=status, mimetype=PROBLEM_JSON)
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def handle_problem(problem: Problem) -> Response:
    """A refusal's answer, with the status the one table gives (``service.web.statuses``)."""
    status = status_of(problem)
    return problem_response(
        status,
        problem.code,
        problem.title or HTTPStatus(status).phrase,
        problem.detail,
        extra=problem.extra,
        headers=dict(problem.headers),
    )


class ProblemApi(Api):
    """flask-smorest's Api, answering every HTTP error as problem+json.

    Its own handler drops the ``Allow`` header of 405 answers and speaks its
    own JSON error format; this subclass keeps Werkzeug's headers and
    documents ``ProblemSchema`` as the error body.
    """

    ERROR_SCHEMA = ProblemSchema
    DEFAULT_ERROR_RESPONSE_NAME = "DEFAULT_ERROR"

    def _register_responses(self) -> None:
        """One shared response per status (lazily, as flask-smorest does), each error
        documented as a Problem in ``application/problem+json`` with an example."""
        from service.web.operations import problem_example

        for status in HTTPStatus:
            response: dict[str, Any] = {"description": status.phrase}
            if status >= 400:
                response["content"] = {
                    PROBLEM_JSON: {
                        "schema": {"$ref": "#/components/schemas/Problem"},
                        "example": problem_example(status),
                    }
                }
            self.spec.components.response(status.name, response, lazy=True)
        self.spec.components.response(
            self.DEFAULT_ERROR_RESPONSE_NAME,
            {
                "description": "Any other error",
                "content": {PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/Problem"}}},
            },
            lazy=True,
        )

    def handle_http_exception(self, error: HTTPException) -> Response:
        status = error.code or 500
        headers = {
            name: value for name, value in error.get_headers() if name.lower() != "content-type"
        }
        code = _CODES_BY_STATUS.get(status, f"http_{status}")
        detail = error.description or error.name
        extra: dict[str, Any] = {}
        data = getattr(error, "data", None) or {}
        messages = data.get("messages") or data.get("errors")
        if messages:
            # webargs puts validation errors per location: {"json": {...}}
            if status == 400 and "json" in messages and _is_json_syntax_error(messages["json"]):
                code, detail = ProblemCode.MALFORMED_JSON, "the body is not valid JSON"
            else:
                errors = messages.get("json", messages) if isinstance(messages, dict) else messages
                extra["errors"] = errors
                detail = "the request does not match the schema: " + _summarize(errors)
        headers.update(data.get("headers") or {})
        if status >= 500:
            original = getattr(error, "original_exception", None)
            if original is not None:
                log.error(
                    "unhandled error on %s %s", request.method, request.path, exc_info=original
                )
            detail = "the server failed to answer this request; it has been logged"
        return problem_response(status, code, error.name, detail, extra=extra, headers=headers)


def _is_json_syntax_error(messages: Any) -> bool:
    return isinstance(messages, list) and any("Invalid JSON" in str(m) for m in messages)


def _summarize(errors: Any) -> str:
    if isinstance(errors, dict):
        parts = [f"{field}: {_summarize(value)}" for field, value in errors.items()]
        return "; ".join(parts)
    if isinstance(errors, list):
        return " ".join(
            str(item) if not isinstance(item, dict | list) else _summarize(item) for item in errors
        )
    return str(errors)


def register_error_handlers(app: Flask) -> None:
    app.register_error_handler(Problem, handle_problem)
    for unreachable in _REDIS_UNREACHABLE:
        app.register_error_handler(unreachable, _store_unavailable)
    app.register_error_handler(RecordsUnavailable, _store_unavailable)
    app.register_error_handler(redis.exceptions.ResponseError, _store_full)
    app.after_request(errors_are_problems)


#: A Redis that does not answer in time, or a Redis Cluster while a replica takes over a
#: dead primary's slots (CLUSTERDOWN, TRYAGAIN, or no node known for a slot yet).
_REDIS_UNREACHABLE: tuple[type[Exception], ...] = (
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    redis.exceptions.ClusterError,
    redis.exceptions.TryAgainError,
    redis.exceptions.RedisClusterException,
)


def _store_unavailable(error: Exception) -> Response:
    # Returned, not raised: Flask does not handle errors raised by error handlers.
    log.error("store unavailable (%s): %s", type(error).__name__, error)
    return handle_problem(
        Problem(
            "the game store is unreachable right now; try again shortly",
            code=ProblemCode.STORE_UNAVAILABLE,
            headers={"Retry-After": "2"},
        )
    )


#: How long a client waits before it writes again to a full store (seconds): making room
#: takes an operator, not a moment.
STORE_FULL_RETRY_AFTER = 30


def _store_full(error: redis.exceptions.ResponseError) -> Response:
    """A write Redis refused because it is full: 503, nothing of the request written.

    Any other refusal by Redis is a failure of the server: raised again, it is
    answered as every unhandled error is (500, logged).
    """
    if not refused_for_memory(error):
        raise error
    log.warning("redis is full: %s", error)
    return handle_problem(
        Problem(
            "the game store is full and takes no new writes; nothing of this request was "
            "written. Reading games still works; try again later",
            code=ProblemCode.STORE_FULL,
            headers={"Retry-After": str(STORE_FULL_RETRY_AFTER)},
        )
    )


def errors_are_problems(response: Response) -> Response:
    """An error answer built outside this module becomes a problem too.

    Werkzeug's conditional answers of static files set 412 (a failed
    If-Match) and keep the file as the body; no error of the service may
    leave as anything but problem+json. Headers other than the body's stay.
    """
    status = response.status_code
    if status < 400 or response.mimetype == PROBLEM_JSON:
        return response
    try:
        title, detail = HTTPStatus(status).phrase, HTTPStatus(status).description
    except ValueError:
        title, detail = "Error", f"the request failed with status {status}"
    problem = problem_response(
        status, _CODES_BY_STATUS.get(status, f"http_{status}"), title, detail or title
    )
    for name, value in response.headers.items():
        if name.lower() not in ("content-type", "content-length"):
            problem.headers.add(name, value)
    response.close()
    return problem
