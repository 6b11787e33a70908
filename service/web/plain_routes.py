"""A plain action and a plain view served below Flask: ``POST /v1/games/{id}/actions``
and ``GET /v1/games/{id}`` in their plain forms.

An action is the hottest write and a game's view the hottest read but the feed's, and
under Flask much of what the server did for them was Flask's and Werkzeug's own:
the request and response objects, the URL map, the context locals, the hooks'
dispatch, flask-smorest's wrappers (by instructions, about two fifths of the API
process's work per action). These routes take the plain action (a seat's bearer
token, a JSON body within the limit that is a plain action,
``service.web.plain_action``; no client key, no Idempotency-Key, no If-Match, no
chunked body) and the plain view (a seat's bearer token or none, no query, no
client key, no If-None-Match) straight from the WSGI environ, and leave every other
request to Flask untouched. With CORS configured, every request is Flask's.

Nothing of a rule is written here a second time. Each duty of Flask's hooks is
a plain function both paths call: the request id and its log lines, the
metrics and the access line (``service.web.request_ids``), the caller
(``service.web.callers.identify``), the limits a request counts against and
their fields (``service.web.limits``), the security headers
(``service.web.response_headers``), the action itself (``service.web.acting``),
the view's read (``service.web.game_answers.seen_game``) and the answer's text
(``service.web.game_answers.seat_view_text``). What is only read here (the
body's type and length, the bearer token, the headers left to Flask) decides
nothing but whether a route serves: anything it does not take goes to Flask
whole, its body put back as read, before anything was counted or written.

A refusal (a problem: 401, 404, 409, 422, 429, a Redis outage, an unhandled
error) is answered by Flask's own error handlers and after-request hooks, in a
request context made for it then: the answer is Flask's, byte for byte, with
this request's id and its counted limits.
"""

from __future__ import annotations

import io
import re
import time
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from flask import Flask, g

from service.game import auth
from service.game.log import RateCounts
from service.web import limits, safejson
from service.web.acting import acted_headers, take_action
from service.web.callers import Bearer, identify
from service.web.game_answers import seat_view_text, seen_game
from service.web.limits import CountedWithTheAppend, RequestLimits, checks_of, counted
from service.web.plain_action import plain_action
from service.web.render import IfMatch, etag, view_encoder
from service.web.request_ids import (
    REQUEST_ID_ENVIRON,
    REQUEST_ID_HEADER,
    account,
    request_id_from,
    serving,
)
from service.web.response_headers import added_headers
from service.web.schemes import Accepted, accepted_by
from service.web.services import services

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

#: The views these routes serve, and their paths: a game id of the ids' own characters
#: (any other path goes to Flask, whose URL map decides).
ACT = "games.act"
VIEW = "games.get_game"
_ACTION_PATH = re.compile(r"/v1/games/([0-9A-Za-z_-]{1,64})/actions")
_VIEW_PATH = re.compile(r"/v1/games/([0-9A-Za-z_-]{1,64})")
#: Requests that send one of these are Flask's: what they ask is read there.
_FLASK_ACTION_HEADERS = (
    "HTTP_X_CLIENT_KEY",
    "HTTP_IDEMPOTENCY_KEY",
    "HTTP_IF_MATCH",
    "HTTP_TRANSFER_ENCODING",
)
_FLASK_VIEW_HEADERS = ("HTTP_X_CLIENT_KEY", "HTTP_IF_NONE_MATCH")
_JSON = "application/json"
_NO_CONDITION = IfMatch(None)


class PlainRoutes:
    """The app's WSGI callable: plain actions and views served here, every other request
    by Flask."""

    def __init__(self, app: Flask, flask: WsgiApp, request_limits: RequestLimits):
        self.app = app
        self.flask = flask
        self.limits = request_limits
        self.wired = services(app)
        self.routes = {
            rule.endpoint: rule.rule
            for rule in app.url_map.iter_rules()
            if rule.endpoint in (ACT, VIEW)
        }
        self.accepts = {endpoint: _accepted(app, endpoint) for endpoint in (ACT, VIEW)}
        #: Paths of the routes' shape that the URL map gives to other views (``/v1/games/live``):
        #: a path without arguments is matched before one with, so they are Flask's.
        self.elsewhere = frozenset(
            rule.rule
            for rule in app.url_map.iter_rules()
            if not rule.arguments
            and (_ACTION_PATH.fullmatch(rule.rule) or _VIEW_PATH.fullmatch(rule.rule))
        )
        self.encode = view_encoder(app)
        self.mimetype = app.json.mimetype
        self.limit: int | None = app.config.get("MAX_CONTENT_LENGTH")

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        method = environ["REQUEST_METHOD"]
        path = environ.get("PATH_INFO", "")
        if self.encode is not None and method in ("GET", "POST") and path not in self.elsewhere:
            if method == "POST":
                found = _ACTION_PATH.fullmatch(path)
                if found is not None and not _any_of(_FLASK_ACTION_HEADERS, environ):
                    return self._act(environ, start_response, found.group(1))
            else:
                found = _VIEW_PATH.fullmatch(path)
                if (
                    found is not None
                    and not environ.get("QUERY_STRING")
                    and not _any_of(_FLASK_VIEW_HEADERS, environ)
                ):
                    return self._view(environ, start_response, found.group(1))
        return self.flask(environ, start_response)

    def _act(self, environ: dict[str, Any], start_response: Callable[..., Any], game_id: str):
        started = time.perf_counter()
        token = Bearer.read(environ.get("HTTP_AUTHORIZATION")).token
        length = self._length(environ)
        if token is None or length is None or not _is_json(environ.get("CONTENT_TYPE")):
            return self.flask(environ, start_response)
        try:
            data = environ["wsgi.input"].read(length)
        except Exception as error:  # the body's reader failed: Flask's gate answers it
            environ["wsgi.input"] = _Failing(error)
            return self.flask(environ, start_response)
        body = None
        if len(data) == length:
            try:
                body = plain_action(safejson.loads(data))
            except safejson.JsonRefused:
                body = None
        counting = None if body is None else self._counting(environ, ACT, token)
        if body is None or counting is None:  # Flask reads it again (and refuses it if it does)
            environ["wsgi.input"] = io.BytesIO(data)
            return self.flask(environ, start_response)
        request_id = request_id_from(environ.get(REQUEST_ID_ENVIRON))
        service = self.wired.games
        due, counts = counting
        with serving(request_id):
            try:
                acted = take_action(
                    service,
                    game_id,
                    body,
                    _NO_CONDITION,
                    seat_token=lambda: token,
                    idempotency_key=lambda: None,
                    counting=counts,
                )
                text = seat_view_text(
                    service, self.wired.rendered_views, self.encode, acted.current, acted.seat
                )
            except Exception as error:
                return self._refused(environ, start_response, error, request_id, started, due)
            headers = acted_headers(acted)
            return self._answer(
                start_response, ACT, environ, text, headers, due, request_id, started
            )

    def _view(self, environ: dict[str, Any], start_response: Callable[..., Any], game_id: str):
        started = time.perf_counter()
        sent = Bearer.read(environ.get("HTTP_AUTHORIZATION"))
        token = sent.token
        counting = None if sent.present and token is None else self._counting(environ, VIEW, token)
        if counting is None:  # an Authorization of another kind: Flask's 401
            return self.flask(environ, start_response)
        request_id = request_id_from(environ.get(REQUEST_ID_ENVIRON))
        due, counts = counting
        with serving(request_id):
            try:
                current, seat, rematch = seen_game(
                    self.wired, game_id, seat_token=lambda: token, counting=counts
                )
                text = seat_view_text(
                    self.wired.games,
                    self.wired.rendered_views,
                    self.encode,
                    current,
                    seat,
                    rematch,
                )
            except Exception as error:
                return self._refused(environ, start_response, error, request_id, started, due)
            headers = {"ETag": etag(current.version)}
            return self._answer(
                start_response, VIEW, environ, text, headers, due, request_id, started
            )

    def _counting(
        self, environ: dict[str, Any], endpoint: str, token: str | None
    ) -> tuple[CountedWithTheAppend | None, AbstractContextManager[RateCounts | None]] | None:
        """The request's limits, handed to the game's log that counts them (none on: nothing
        to count); None where they are counted on their own (a Redis Cluster): Flask's."""
        caller = identify(environ.get("REMOTE_ADDR") or "unknown", self.accepts[endpoint], None)
        token_print = None
        if self.limits.tokens and token is not None:
            token_print = lambda: auth.fingerprint(token)  # noqa: E731
        pairs = checks_of(
            caller, environ["REQUEST_METHOD"], environ["PATH_INFO"], endpoint, token_print
        )
        checks = self.limits.checks(pairs)
        if not checks:
            return None, nullcontext(None)
        if not self.limits.with_the_log(endpoint):
            return None
        due = CountedWithTheAppend(self.limits.limiter, checks)
        return due, counted(due)

    def _answer(
        self,
        start_response: Callable[..., Any],
        endpoint: str,
        environ: dict[str, Any],
        text: str,
        own: dict[str, str],
        due: CountedWithTheAppend | None,
        request_id: str,
        started: float,
    ) -> list[bytes]:
        """A view's JSON ``text`` answered 200 with the headers Flask's hooks give it."""
        payload = text.encode()
        headers = [
            ("Content-Type", self.mimetype),
            ("Content-Length", str(len(payload))),
            *own.items(),
            *limits.label_headers(due.usages or [] if due is not None else []),
        ]
        present = {name.lower() for name, _ in headers}
        headers += [
            (name, value)
            for name, value in added_headers(200, self.mimetype)
            if name.lower() not in present
        ]
        headers.append((REQUEST_ID_HEADER, request_id))
        method, path = environ["REQUEST_METHOD"], environ["PATH_INFO"]
        account(request_id, method, self.routes[endpoint], path, 200, started)
        start_response("200 OK", headers)
        return [payload]

    def _refused(
        self,
        environ: dict[str, Any],
        start_response: Callable[..., Any],
        error: Exception,
        request_id: str,
        started: float,
        due: CountedWithTheAppend | None,
    ) -> Any:
        """The answer Flask gives when the view raised ``error``: its error handlers, then
        its after-request hooks (the request's id, its limits, the headers, the log line)."""
        app = self.app
        with app.request_context(environ):
            here = g._get_current_object()
            here.request_id, here.request_started = request_id, started
            if due is not None:
                limits.labelled_by(due)
            else:
                here.rate_limits = []
            try:
                response = app.finalize_request(app.handle_user_exception(error))
            except Exception as unhandled:  # no handler: a 500, as Flask answers it
                response = app.handle_exception(unhandled)
            return response(environ, start_response)

    def _length(self, environ: dict[str, Any]) -> int | None:
        """The body's announced length when this route reads it: digits, above 0, within
        the limit; None for any other (Flask's gate decides)."""
        announced = environ.get("CONTENT_LENGTH", "")
        if not (announced.isascii() and announced.isdigit()):
            return None
        length = int(announced)
        if length == 0 or (self.limit is not None and length > self.limit):
            return None
        return length


def _is_json(content_type: str | None) -> bool:
    """Whether the body's type is plainly JSON (anything else: Flask's gate decides)."""
    if content_type is None:
        return False
    kind = content_type.lower()
    return kind == _JSON or kind.startswith(_JSON + ";")


class _Failing:
    """A body whose read raises what the server's raised (a broken framing, a late body),
    for Flask's gate to answer as it answers that."""

    def __init__(self, error: Exception):
        self.error = error

    def read(self, *args: Any) -> bytes:
        raise self.error


def _any_of(names: tuple[str, ...], environ: dict[str, Any]) -> bool:
    return any(name in environ for name in names)


def _accepted(app: Flask, endpoint: str) -> Accepted:
    """What the operation served here reads; a route reads no player's token nor a key
    as a bearer token (such an operation is Flask's to serve)."""
    accepts = accepted_by(app.view_functions[endpoint])
    if accepts is None or accepts.player_token or accepts.key_as_bearer:
        raise TypeError(f"{endpoint} reads a credential a plain route does not: serve it by Flask")
    return accepts


def install(app: Flask, request_limits: RequestLimits) -> None:
    """Serve plain actions and views below Flask's hooks (before any WSGI middleware of the
    app is added around it: the address a proxy reports is read here too)."""
    app.wsgi_app = PlainRoutes(app, app.wsgi_app, request_limits)  # type: ignore[method-assign]


__all__ = ["ACT", "VIEW", "PlainRoutes", "install"]
