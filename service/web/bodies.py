"""The gate every request body passes before a view: JSON, bounded, parseable.

One ``before_request`` hook, so no blueprint can forget it:

- A request for a path or method the API does not have is refused (404, 405)
  without reading its body: nothing waits for a body no view will take.
- A POST, PUT or PATCH that carries a body must say ``application/json``
  (else 415). A body is announced by ``Content-Length`` or by
  ``Transfer-Encoding`` (chunked: no length is announced at all, which is why
  checking ``Content-Length`` alone let chunked bodies of any type through).
- The body is at most ``MAX_CONTENT_LENGTH`` bytes however it is framed
  (else 413). Werkzeug refuses a longer ``Content-Length`` itself but stops
  reading a chunked body at the limit without a word, so the truncated JSON
  then failed as "malformed"; here one byte past the limit is a 413.
- A body that cannot be read (broken chunk framing) or that ends before its
  ``Content-Length`` is a 400.
- A body that does not arrive within ``SCHNAPSEN_BODY_TIMEOUT_SECONDS`` of its
  head is a 408 (``service.web.body_deadline``: the server's body stops waiting),
  and the connection closes.
- The JSON parses within ``service.web.safejson``'s bounds (else 400 with
  ``malformed_json``, ``json_too_deep`` or ``number_too_large``).

The JSON parsed here is the one the views' argument parser (webargs) loads
(``GatedBodyParser``): a body is parsed once, and only within the bounds.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, Request, Response, g, request
from webargs.flaskparser import FlaskParser
from werkzeug.exceptions import ClientDisconnected, HTTPException, RequestEntityTooLarge

from service.game.problem_codes import ProblemCode
from service.game.problems import Problem
from service.web import safejson
from service.web.body_deadline import BodyTimedOut
from service.web.errors import handle_problem

log = logging.getLogger(__name__)

JSON_TYPES = ("application/json",)
#: A body framed in chunks (``Transfer-Encoding``), as the WSGI environ names the header.
_CHUNKED = "HTTP_TRANSFER_ENCODING"
_BODY_METHODS = ("POST", "PUT", "PATCH")


def install(app: Flask) -> None:
    app.before_request(check_body)
    app.register_error_handler(BodyTimedOut, _late_anywhere)


def check_body() -> None:
    """Refuse the request's body unless it is JSON within the limits (a 4xx problem)."""
    if request.routing_exception is not None:
        return  # no such path or method: Flask refuses it next, the body unread
    if request.method not in _BODY_METHODS or not announces_body(request):
        return
    if request.mimetype not in JSON_TYPES:
        raise Problem(
            f"send the body as application/json, not {request.mimetype or 'untyped'}",
            code=ProblemCode.UNSUPPORTED_MEDIA_TYPE,
        )
    data = read_whole(request)
    if data:
        try:
            g.gated_json = safejson.loads(data)
        except safejson.JsonRefused as refused:
            raise Problem(refused.detail, code=refused.code) from None


def gated_json() -> Any:
    """The JSON body ``check_body`` parsed for this request; None when it parsed none."""
    return g.get("gated_json")


class GatedBodyParser(FlaskParser):
    """webargs' Flask parser, loading the JSON body ``check_body`` parsed rather than
    parsing it again (a request without a gated body is parsed as webargs does)."""

    def _raw_load_json(self, req: Request) -> Any:
        if req is request._get_current_object() and "gated_json" in g:
            return g.gated_json
        return super()._raw_load_json(req)


def announces_body(req: Request) -> bool:
    """Whether the request says it has a body (RFC 9112 6.3: Content-Length or
    Transfer-Encoding)."""
    return bool(req.content_length) or "Transfer-Encoding" in req.headers


def read_whole(req: Request) -> bytes:
    """The whole body (cached for the views), or 413 past ``max_content_length``."""
    limit = req.max_content_length
    try:
        data = _announced(req, limit)
        if data is None:
            data = req.get_data(cache=True)
        # A chunked body is cut at the limit silently: one more byte means it was longer.
        streamed = req.content_length is None
        if streamed and limit is not None and len(data) >= limit and _more(req):
            raise RequestEntityTooLarge()
        # gunicorn ends the input where the client stopped: short of Content-Length, the
        # request is incomplete (RFC 9112 8) and must not be acted on.
        if not streamed and len(data) < req.content_length:
            raise _unreadable()
    except RequestEntityTooLarge:
        raise Problem(
            f"the body may be at most {limit} bytes",
            code=ProblemCode.PAYLOAD_TOO_LARGE,
        ) from None
    except ClientDisconnected:  # the body ended before its announced end
        raise _unreadable() from None
    except BodyTimedOut as late:
        raise too_late(late) from None
    except HTTPException:
        raise
    except Exception as error:  # the server's body reader: broken framing is the client's
        log.info("unreadable request body: %s: %s", type(error).__name__, error)
        raise _unreadable() from None
    return data


def _announced(req: Request, limit: int | None) -> bytes | None:
    """A body of a ``Content-Length`` within the limit, read in one read of the server's
    input and kept as ``get_data`` keeps it; None for any other body (Werkzeug's stream
    reads it). The server's input ends at ``Content-Length``, so one read takes the whole
    body, where Werkzeug's stream reads once more to find the end, each read bounded by
    the body's deadline (a timer armed and cancelled): a small body cost twice the reads."""
    length = req.content_length
    if length is None or (limit is not None and length > limit) or _CHUNKED in req.environ:
        return None
    data = req.environ["wsgi.input"].read(length)
    req._cached_data = data  # what get_data(cache=True) reads back
    return data


def too_late(late: BodyTimedOut) -> Problem:
    return Problem(str(late), code=ProblemCode.BODY_TIMEOUT)


def _late_anywhere(late: BodyTimedOut) -> Response:
    """A body read past its deadline outside this gate (a view's own read): 408 too."""
    return handle_problem(too_late(late))


def _unreadable() -> Problem:
    return Problem(
        "the body could not be read: its framing is broken (a chunk size) or it ended early",
        code=ProblemCode.MALFORMED_BODY,
    )


def _more(req: Request) -> bool:
    """Whether the server's input holds a byte past what Werkzeug read."""
    return bool(req.environ["wsgi.input"].read(1))
