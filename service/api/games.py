"""The games resource: create, join, view, act, events (long-poll and SSE), replay."""

from __future__ import annotations

import json
import logging
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import redis
from flask import Response, current_app, request, stream_with_context
from flask_smorest import Blueprint

from schemas.games import (
    MAX_VERSION,
    ActionSchema,
    CreateGameSchema,
    EventsQuerySchema,
    EventsSchema,
    GameViewSchema,
    JoinSchema,
    ReplayQuerySchema,
    ReplaySchema,
    SeatedSchema,
    StreamQuerySchema,
)
from service.api.callers import current_caller
from service.api.errors import precondition_failed
from service.api.render import (
    bearer_token,
    etag,
    game_view,
    idempotency_key,
    if_match_version,
    not_modified,
    seated_body,
)
from service.commands import Current, GameService, NewGame, Opponent
from service.engine import GameState, Variant
from service.engine.cards import parse_cards
from service.engine.replays import replay_record, visible_events
from service.live import END_EVENT, LogWatcher, Recent, client_gone
from service.metrics import WAITING_REQUESTS
from service.problems import Problem, VersionConflict

log = logging.getLogger(__name__)

blp = Blueprint(
    "games", __name__, url_prefix="/v1/games", description="Create, join and play games"
)

_BEARER = [{"bearerAuth": []}, {}]
#: A client app's key, or anonymous (see service.api.callers).
_CLIENT = [{"clientKey": []}, {"clientKeyHeader": []}, {}]
_IDEMPOTENCY_HEADER = {
    "in": "header",
    "name": "Idempotency-Key",
    "required": False,
    "schema": {"type": "string", "maxLength": 255},
    "description": "Retry safely: the same key and body answer the first answer again",
}
_IF_MATCH_HEADER = {
    "in": "header",
    "name": "If-Match",
    "required": False,
    "schema": {"type": "string"},
    "description": 'The ETag of the view acted on, e.g. "12"; 412 when the game moved on. '
    "Compared strongly (RFC 9110): a weak tag (W/) never matches",
}
_ASCII_VERSION = re.compile(r"[0-9]{1,10}")  # and then at most MAX_VERSION (10**9)
_ETAG_HEADER = {"ETag": {"description": "The game's version", "schema": {"type": "string"}}}
_LOCATION_HEADER = {"Location": {"description": "The new game", "schema": {"type": "string"}}}


def games() -> GameService:
    return current_app.extensions["schnapsen"]["games"]


def settings() -> dict[str, Any]:
    return current_app.config


@blp.route("", methods=["POST"])
@blp.arguments(CreateGameSchema, required=False)
@blp.response(201, SeatedSchema, headers=_LOCATION_HEADER)
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
@blp.doc(parameters=[_IDEMPOTENCY_HEADER], security=_CLIENT)
def create_game(body: dict[str, Any]):
    """Create a game; the creator sits at seat 0.

    A human opponent joins with the answer's `invite`; a bot opponent takes
    seat 1 at once.
    """
    opponent = body["opponent"]
    new = NewGame(
        variant=Variant(body["variant"]),
        opponent=Opponent(opponent["type"], opponent.get("level")),
        seed=body.get("seed"),
        deck=parse_cards(body["deck"]) if "deck" in body else None,
        first_dealer=body.get("first_dealer"),
    )
    seated = games().create(
        new, idempotency_key=idempotency_key(request), scope=current_caller().scope
    )
    headers = {
        "Location": f"/v1/games/{seated.current.game_id}",
        "ETag": etag(seated.current.version),
    }
    if seated.replayed:
        headers["Idempotent-Replayed"] = "true"
    return seated_body(seated), 201, headers


@blp.route("/<game_id>", methods=["GET"])
@blp.response(200, GameViewSchema, headers=_ETAG_HEADER)
@blp.alt_response(304, description="Not modified since the ETag in If-None-Match")
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(security=_BEARER)
def get_game(game_id: str):
    """The caller's view of a game; without a token, a spectator's."""
    service = games()
    current = service.current(game_id)
    seat = service.seat_for(current, bearer_token(request))
    current_app.extensions["schnapsen"]["seen"](current)
    if not_modified(request, current.version):
        return Response(status=304, headers={"ETag": etag(current.version)})
    return game_view(current, seat), 200, {"ETag": etag(current.version)}


@blp.route("/<game_id>/join", methods=["POST"])
@blp.arguments(JoinSchema)
@blp.response(201, SeatedSchema)
@blp.alt_response(409, response="CONFLICT")
@blp.doc(parameters=[_IDEMPOTENCY_HEADER])
def join_game(body: dict[str, Any], game_id: str):
    """Take seat 1 with the invite. A second join is refused (409)."""
    seated = games().join(
        game_id,
        body["invite"],
        idempotency_key=idempotency_key(request),
        scope=current_caller().scope,
    )
    headers = {"ETag": etag(seated.current.version)}
    if seated.replayed:
        headers["Idempotent-Replayed"] = "true"
    return seated_body(seated), 201, headers


@blp.route("/<game_id>/actions", methods=["POST"])
@blp.arguments(ActionSchema)
@blp.response(200, GameViewSchema, headers=_ETAG_HEADER)
@blp.alt_response(409, response="CONFLICT")
@blp.alt_response(412, response="PRECONDITION_FAILED")
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
@blp.doc(security=[{"bearerAuth": []}], parameters=[_IDEMPOTENCY_HEADER, _IF_MATCH_HEADER])
def act(body: dict[str, Any], game_id: str):
    """Take one action for the caller's seat.

    A refused action changes nothing and answers a problem listing the
    caller's `legal_actions`. A stale `expected_version` answers 409, a
    stale `If-Match` 412.
    """
    expected = body.pop("expected_version", None)
    header_version = if_match_version(request)
    if expected is not None and header_version is not None and expected != header_version:
        raise Problem(
            f"expected_version {expected} and If-Match {header_version} disagree",
            status=400,
            code="conflicting_versions",
        )
    try:
        acted = games().act(
            game_id,
            bearer_token(request),
            body,
            expected_version=expected if expected is not None else header_version,
            idempotency_key=idempotency_key(request),
        )
    except VersionConflict as conflict:
        if expected is None and header_version is not None:
            raise precondition_failed(conflict) from None
        raise
    headers = {"ETag": etag(acted.current.version)}
    if acted.replayed:
        headers["Idempotent-Replayed"] = "true"
    return game_view(acted.current, acted.seat), 200, headers


@blp.route("/<game_id>/events", methods=["GET"])
@blp.arguments(EventsQuerySchema, location="query")
@blp.response(200, EventsSchema)
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(security=_BEARER)
def events(query: dict[str, Any], game_id: str):
    """The events after version `after`, as the caller may see them (R11).

    With `wait`, an empty answer waits (long-poll) up to that many seconds
    for the next event; a finished game answers at once. Each event carries
    `to_move` after it; with `include=view` the answer carries the caller's
    view at its version, so a client can act without another request.
    """
    service = games()
    current = _current_at(service, game_id, query["after"])
    seat = service.seat_for(current, bearer_token(request))
    after = _existing_version(query["after"], current.version)
    wait = min(query["wait"], settings()["LONG_POLL_MAX_SECONDS"])
    if wait > 0 and current.version == after and current.state.status != "finished":
        with _waiting_slot():
            _wait_for_append(service, game_id, after, wait)
    body, latest = _feed(service, game_id, seat, after, known=current)
    if query.get("include") == "view":
        body["view"] = game_view(latest, seat)
    # The hottest answer of all (every delivery to a long-poll): sent as it is, since
    # EventsSchema's dump is the identity on it (tests/service/test_feed_schema.py).
    text = json.dumps({"game_id": game_id, **body}, separators=(",", ":"))
    return current_app.response_class(text, mimetype="application/json")


@blp.route("/<game_id>/stream", methods=["GET"])
@blp.arguments(StreamQuerySchema, location="query")
@blp.response(200, content_type="text/event-stream", description="Server-Sent Events")
@blp.alt_response(204, description="The game is over and the caller has every event")
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(security=_BEARER)
def stream(query: dict[str, Any], game_id: str):
    """The event feed as Server-Sent Events; each event's `id` is its version.

    Reconnect with `Last-Event-ID` (or `?after=`) to resume exactly. After the
    event that finishes the game the stream sends a final `end` event and
    closes; opened again on a finished game with nothing new it answers 204,
    which tells an EventSource to stop reconnecting. Otherwise the stream ends
    after a bounded time and the client reconnects. With `include=view`, the
    last event of each burst carries the caller's `view` at that version.
    """
    service = games()
    token = bearer_token(request, query_token=query.get("access_token"))
    current = service.current(game_id)
    seat = service.seat_for(current, token)
    after = _existing_version(_last_event_id(query.get("after", 0)), current.version)
    if current.state.status == "finished" and after == current.version:
        return Response(status=204)
    include_view = query.get("include") == "view"
    limit = settings()["SSE_MAX_SECONDS"]
    heartbeat = settings()["SSE_HEARTBEAT_SECONDS"]
    release = _take_waiting_slot()
    client = _client_socket()

    def generate() -> Iterator[str]:
        nonlocal after
        yield "retry: 1000\n\n"
        deadline = time.monotonic() + limit
        known: Current | None = current
        try:
            while True:
                body, known = _feed(service, game_id, seat, after, known=known)
                shown = body["events"]
                if include_view and shown:
                    shown[-1] = {**shown[-1], "view": game_view(known, seat)}
                burst = [_sse(event["type"], event, event_id=event["version"]) for event in shown]
                if shown:
                    after = shown[-1]["version"]
                if known.state.status == "finished":
                    burst.append(_sse(END_EVENT, _end_of(known)))  # no id: Last-Event-ID stays
                    yield "".join(burst)
                    return
                if burst:
                    yield "".join(burst)  # one write for the burst
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return
                if not _wait_for_append(service, game_id, after, min(heartbeat, remaining)):
                    if client is not None and client_gone(client):
                        return  # the client left: give its slot back now
                    yield ": keep-alive\n\n"
        except redis.exceptions.RedisError as error:
            # Mid-stream the status is sent: end the stream; the client resumes exactly
            # with Last-Event-ID once the store answers again.
            log.warning("event stream of %s ended: the store failed (%s)", game_id, error)

    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    response = Response(
        stream_with_context(generate()), mimetype="text/event-stream", headers=headers
    )
    # Released when the server closes the response, even if the stream never started.
    response.call_on_close(release)
    return response


@blp.route("/<game_id>/replay", methods=["GET"])
@blp.arguments(ReplayQuerySchema, location="query")
@blp.response(200, ReplaySchema)
@blp.alt_response(404, response="NOT_FOUND")
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
@blp.doc(security=_BEARER)
def replay(query: dict[str, Any], game_id: str):
    """The whole game as the caller may see it; with `at`, as it was at that version.

    While a deal runs, hands and talon stay hidden by R11; once the game is
    over the replay holds every deal's deck.
    """
    service = games()
    current = service.current(game_id)
    seat = service.seat_for(current, bearer_token(request))
    log = service.store.events(game_id)
    at = query.get("at")
    if at is not None and at > len(log):
        raise Problem(
            f"version {at} does not exist yet; the game is at version {len(log)}",
            status=422,
            code="version_out_of_range",
        )
    record = replay_record(log, seat, at=at)
    version = record["version"]
    state_body = record["state"]
    state_body.update(game_id=game_id, version=version, players=current.players)
    return {"game_id": game_id, **record}


def _take_waiting_slot() -> Callable[[], None]:
    """Take one of this process's waiting slots, or answer 503; returns its release.

    A waiting request costs little (a greenlet under gevent, no Redis
    connection), but not nothing: SCHNAPSEN_MAX_WAITING bounds them per process.
    """
    slots: threading.BoundedSemaphore = current_app.extensions["schnapsen"]["waiting_slots"]
    if not slots.acquire(blocking=False):
        raise Problem(
            "this server holds as many waiting requests as it may; retry shortly, "
            "or poll without wait",
            status=503,
            code="too_many_waiting",
            headers={"Retry-After": "2"},
        )
    WAITING_REQUESTS.inc()

    def release() -> None:
        WAITING_REQUESTS.dec()
        slots.release()

    return release


@contextmanager
def _waiting_slot() -> Iterator[None]:
    release = _take_waiting_slot()
    try:
        yield
    finally:
        release()


def _wait_for_append(service: GameService, game_id: str, after: int, seconds: float) -> bool:
    """Wait until the log passes ``after``; False after ``seconds`` or when the client left.

    The waiter registers before it reads the head, so an append that lands
    in between wakes it rather than being missed (service.live).
    """
    watcher: LogWatcher = current_app.extensions["schnapsen"]["watcher"]
    deadline = time.monotonic() + seconds
    with watcher.watch(game_id, after, client=_client_socket()) as waiter:
        announced = watcher.announced(game_id)
        if (announced if announced is not None else service.store.head(game_id)) > after:
            return True
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not waiter.wait(remaining):
                return False
            if waiter.announced > after:
                return True
            waiter.woken.clear()  # woken without news (a resubscription): look again
            if service.store.head(game_id) > after:
                return True


def _recent() -> Recent[Any]:
    return current_app.extensions["schnapsen"]["recent"]


def _current_at(service: GameService, game_id: str, after: int) -> Current:
    """The game now; for a waiter that has seen the newest announced version, the game
    at that version from this process's memory (no Redis call), else loaded."""
    watcher: LogWatcher = current_app.extensions["schnapsen"]["watcher"]
    if watcher.announced(game_id) == after:
        known = _recent().get((game_id, after))
        if known is not None:
            return known
    return service.current(game_id)


def _events_since(service: GameService, known: Current) -> tuple[list[Any], Current]:
    """``service.events_since``, shared by the waiters of a game that wake together."""
    watcher: LogWatcher = current_app.extensions["schnapsen"]["watcher"]
    recent = _recent()
    announced = watcher.announced(known.game_id)
    key = ("since", known.game_id, known.version)
    hit = recent.get(key)
    if hit is not None and announced is not None and hit[1].version >= announced:
        return hit
    log, latest = service.events_since(known)
    recent.put(key, (log, latest))
    recent.put((known.game_id, latest.version), latest)
    return log, latest


def _client_socket() -> socket.socket | None:
    """The request's socket under gunicorn (to notice a client that left); None elsewhere."""
    return request.environ.get("gunicorn.socket")


def _sse(kind: str, data: dict[str, Any], *, event_id: int | None = None) -> str:
    head = "" if event_id is None else f"id: {event_id}\n"
    return f"{head}event: {kind}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def _end_of(latest: Current) -> dict[str, Any]:
    """The data of the final ``end`` event: how the game ended."""
    state = latest.state
    return {
        "version": latest.version,
        "status": state.status,
        "winner": state.winner,
        "game_points": list(state.game_points),
    }


def _feed(
    service: GameService, game_id: str, seat: int | None, after: int, known: Current | None = None
) -> tuple[dict[str, Any], Current]:
    """The events after ``after`` as ``seat`` sees them, and the game they lead to.

    ``known``, the game at ``after`` when the caller has it (a waiter), saves
    loading it again: only the new events are read.
    """
    if known is not None and known.version == after:
        start: GameState | None = known.state
        log, latest = _events_since(service, known)
    else:
        start, log, latest = service.events_after(game_id, after)
        _recent().put((game_id, latest.version), latest)
    shown = (
        list(visible_events(log, seat, after=after, start=start, latest=latest.state))
        if log
        else []
    )
    return {"version": latest.version, "events": shown}, latest


def _existing_version(version: int, head: int) -> int:
    """``version`` when the log has reached it, else 422 as /stream and /replay?at= answer."""
    if version > head:
        raise Problem(
            f"version {version} does not exist yet; the game is at version {head}",
            status=422,
            code="version_out_of_range",
        )
    return version


def _last_event_id(after: int) -> int:
    header = request.headers.get("Last-Event-ID")
    if header is None:
        return after
    value = header.strip()
    # ASCII digits only: str.isdigit() also takes "²", which int() then refuses (a 500).
    if not _ASCII_VERSION.fullmatch(value) or int(value) > MAX_VERSION:
        raise Problem(
            "Last-Event-ID must be the version of an event",
            status=400,
            code="invalid_last_event_id",
        )
    return int(value)
