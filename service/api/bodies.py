"""The gate every request body passes before a view: JSON, bounded, parseable.

One ``before_request`` hook, so no blueprint can forget it:

- A POST, PUT or PATCH that carries a body must say ``application/json``
  (else 415).
- The body is at most ``MAX_CONTENT_LENGTH`` bytes (else 413).
- The JSON parses within ``service.safejson``'s bounds (else 400 with
  ``malformed_json``, ``json_too_deep`` or ``number_too_large``).

The views' argument parser (webargs) parses the body again from the cached
bytes; at 16 KiB at most that costs microseconds, and it can no longer fail
in a way that is not a ``JSONDecodeError``.
"""

from __future__ import annotations

from flask import Flask, Request, request
from werkzeug.exceptions import RequestEntityTooLarge

from service import safejson
from service.problems import Problem

JSON_TYPES = ("application/json",)
_BODY_METHODS = ("POST", "PUT", "PATCH")


def install(app: Flask) -> None:
    app.before_request(check_body)


def check_body() -> None:
    """Refuse the request's body unless it is JSON within the limits (a 4xx problem)."""
    if request.method not in _BODY_METHODS or not announces_body(request):
        return
    if request.mimetype not in JSON_TYPES:
        raise Problem(
            f"send the body as application/json, not {request.mimetype or 'untyped'}",
            status=415,
            code="unsupported_media_type",
        )
    data = read_whole(request)
    if data:
        try:
            safejson.loads(data)
        except safejson.JsonRefused as refused:
            raise Problem(refused.detail, status=400, code=refused.code) from None


def announces_body(req: Request) -> bool:
    """Whether the request says it has a body."""
    return bool(req.content_length)


def read_whole(req: Request) -> bytes:
    """The whole body (cached for the views), or 413 past ``max_content_length``."""
    try:
        return req.get_data(cache=True)
    except RequestEntityTooLarge:
        raise Problem(
            f"the body may be at most {req.max_content_length} bytes",
            status=413,
            code="payload_too_large",
        ) from None
