"""One decorator that gives an endpoint the conventions of openapi.yaml.

Why: generated clients are only as good as the spec, and a convention kept
by hand on each endpoint is soon forgotten. ``@operation(blp, "getGame",
security=SEAT_OR_SPECTATOR, problems=GAME)`` sets the stable ``operationId``
(camelCase; the SDK method name, listed in docs/api.md), the ``security`` it
accepts (which is also all the server reads of a caller's credentials there:
``service.web.callers``), and documents every problem answer (``application/problem+json``,
the shared ``Problem`` schema, an example each) that the request can get.
The summary is the first line of the view's docstring (flask-smorest).

tests/service/test_openapi_conventions.py checks every operation of the
generated document for these, so a new endpoint fails there until it uses
this decorator (or repeats what it does).

Usage, below ``@blp.route(...)`` and the ``arguments``/``response`` decorators::

    @blp.route("/<game_id>/resign", methods=["POST"])
    @blp.response(200, GameViewSchema, example=...)
    @operation(blp, "resignGame", security=SEAT, problems=GAME + (409,))
    def resign(game_id): ...
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from http import HTTPStatus
from typing import Any, TypeVar

from flask_smorest import Blueprint

from service.web.schemes import (
    CLIENT_KEY_BEARER,
    CLIENT_KEY_HEADER,
    PLAYER_TOKEN,
    SEAT_TOKEN,
    Security,
    declare,
)

F = TypeVar("F", bound=Callable[..., Any])

# -- who may call: the alternatives of an operation's `security` ------------
# The server reads exactly the credentials named here (service.web.schemes,
# service.web.callers): a scheme an operation does not name is not read.


def _needs(*schemes: str) -> dict[str, list[str]]:
    """One alternative: these schemes together (a fresh dict each, so the written
    document repeats no shared object)."""
    return {scheme: [] for scheme in schemes}


#: A seat's token, or nobody: a spectator; either with the app's X-Client-Key.
SEAT_OR_SPECTATOR: Security = [_needs(SEAT_TOKEN), _needs(CLIENT_KEY_HEADER), {}]
#: A seat's token only, with the app's X-Client-Key beside it or not.
SEAT: Security = [_needs(SEAT_TOKEN), _needs(SEAT_TOKEN, CLIENT_KEY_HEADER)]
#: A client app's key (as a bearer token or X-Client-Key), one of its players, or
#: anonymous.
CLIENT: Security = [_needs(CLIENT_KEY_BEARER), _needs(CLIENT_KEY_HEADER), _needs(PLAYER_TOKEN), {}]
#: A client app's key only (as a bearer token or X-Client-Key).
CLIENT_KEY: Security = [_needs(CLIENT_KEY_BEARER), _needs(CLIENT_KEY_HEADER)]
#: A player's token only.
PLAYER: Security = [_needs(PLAYER_TOKEN)]
#: A player's token, or its app's key (as a bearer token or X-Client-Key).
PLAYER_OR_APP: Security = [
    _needs(PLAYER_TOKEN),
    _needs(CLIENT_KEY_BEARER),
    _needs(CLIENT_KEY_HEADER),
]
#: Anybody, or a player of an app (an X-Client-Key, when sent, must still be known).
ANYONE_OR_PLAYER: Security = [_needs(PLAYER_TOKEN), _needs(CLIENT_KEY_HEADER), {}]
#: Anybody (an X-Client-Key, when sent, must still be known).
ANYONE: Security = [_needs(CLIENT_KEY_HEADER), {}]
#: Not an API call at all (health, metrics, the document): no credentials read.
NONE: Security = [{}]

# -- the problem answers a request can get ------------------------------------
#: Any request at all: the server failed (logged, never a traceback).
SERVER: tuple[int, ...] = (500,)
#: Any /v1 request: an unknown or revoked client key, a rate limit, the store down.
V1: tuple[int, ...] = (401, 429, 500, 503)
#: A /v1 request with a JSON body: malformed, too slow to arrive, too large, not JSON,
#: invalid.
BODY: tuple[int, ...] = V1 + (400, 408, 413, 415, 422)
#: A /v1 request naming a game (or a job, an export) that may not exist.
GAME: tuple[int, ...] = V1 + (404,)

#: One example problem per status, so the docs show what a client gets.
PROBLEM_EXAMPLES: dict[int, tuple[str, str]] = {
    400: ("malformed_json", "the body is not valid JSON"),
    401: ("invalid_client_key", "this client key is not known"),
    404: ("game_not_found", "there is no game 'g_0'"),
    408: ("body_timeout", "the body did not arrive within 10 s of the request's head"),
    409: ("stale_version", "the game is at version 13, not 12"),
    412: ("precondition_failed", 'the game is at version 13, not "12"'),
    413: ("payload_too_large", "the body may be at most 16384 bytes"),
    415: ("unsupported_media_type", "send the body as application/json, not text/plain"),
    422: ("invalid_request", "the request does not match the schema: card: Must be one of ..."),
    429: ("too_many_requests", "more than 600 requests in 60 s for this address; retry in 7 s"),
    500: ("internal_error", "the server failed to answer this request; it has been logged"),
    503: ("store_unavailable", "the game store is unreachable right now; try again shortly"),
}


def problem_example(status: int) -> dict[str, Any]:
    code, detail = PROBLEM_EXAMPLES.get(status, (f"http_{status}", HTTPStatus(status).phrase))
    return {
        "type": f"/problems/{code}",
        "title": HTTPStatus(status).phrase,
        "status": int(status),
        "detail": detail,
        "code": code,
        "instance": "/v1/games/g_0",
    }


def security_doc(security: Security) -> dict[str, Any]:
    """What an operation's document says of ``security``.

    Credentials an operation requires are its ``security``. An operation that
    also serves a caller without any (an alternative ``{}``: public, or a
    spectator, or anonymous) lists no ``security``: the document's root says
    ``security: []``, and generators read a listed requirement as mandatory
    (openapi-python-client then demands an ``AuthenticatedClient``, whose empty
    token the server refuses). The credentials it reads when sent are named in
    ``x-optional-security`` (docs/clients.md).
    """
    if {} not in security:
        return {"security": security}
    optional = [requirement for requirement in security if requirement]
    return {"x-optional-security": optional} if optional else {}


def operation(
    blp: Blueprint,
    operation_id: str,
    *,
    security: Security,
    problems: Iterable[int],
) -> Callable[[F], F]:
    """Document a view with its ``operationId``, ``security`` and problem answers."""
    if not operation_id[:1].islower() or not operation_id.isalnum():
        raise ValueError(f"operationId {operation_id!r} is not camelCase")

    def decorate(view: F) -> F:
        documented = view
        for status in sorted(set(problems)):
            # The shared responses of ProblemApi: Problem schema, problem+json, an example.
            documented = blp.alt_response(status, response=HTTPStatus(status).name)(documented)
        documented = blp.doc(operationId=operation_id, **security_doc(security))(documented)
        # Those decorators only document: each wraps the view in a function that calls
        # the next one (through current_app.ensure_sync), seven calls on every request
        # for nothing. The view takes their documentation and is called directly.
        view._apidoc = documented._apidoc  # type: ignore[attr-defined]
        # What the server reads of a request to this view: what it declares, no more.
        declare(view, security)
        return view

    return decorate
