"""A game's feed: its events after a version (long-poll and SSE), and its replay.

Routes of the games' blueprint (``service.web.views.games.blp``), after that
module's own. Each view parses the request, makes one call of the feed
(``service.live.game_feed``) or the command service, and renders the answer;
the waiting, the shared reads and the outages are the feed's.
"""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Callable
from typing import Any

from flask import Response, current_app, request, stream_with_context

from schemas.games import (
    MAX_VERSION,
    EventsQuerySchema,
    EventsSchema,
    ReplayQuerySchema,
    ReplaySchema,
    StreamQuerySchema,
)
from service.game.problem_codes import ProblemCode
from service.game.problems import Problem
from service.live.game_feed import GameFeed
from service.store.events import announced_events
from service.web import examples
from service.web.callers import current_caller, seat_token
from service.web.game_answers import seat_view
from service.web.operations import GAME, SEAT_OR_SPECTATOR, operation
from service.web.render import replay_body
from service.web.services import games, services, settings
from service.web.views.games import blp

_ASCII_VERSION = re.compile(r"[0-9]{1,10}")  # and then at most MAX_VERSION (10**9)
#: What an SSE stream carries: in a 3.1 document a stream's `schema` is the schema of one
#: message (OpenAPI 3.2 names it `itemSchema`; 3.1 validators reject that field, and
#: schema tools read a 3.1 stream's `schema` per message), whose `data` is a StreamData.
_SSE_CONTENT = {"schema": {"$ref": "#/components/schemas/StreamMessage"}}


@blp.route("/<game_id>/events", methods=["GET"])
@blp.arguments(EventsQuerySchema(), location="query")  # one instance: the hot path
@blp.response(200, EventsSchema, example=examples.EVENTS)
@operation(blp, "listEvents", security=SEAT_OR_SPECTATOR, problems=GAME + (422,))
def events(query: dict[str, Any], game_id: str):
    """The events after version `after`, as the caller may see them (R11).

    With `wait`, an empty answer waits (long-poll) up to that many seconds
    for the next event; a finished game answers at once. Each event carries
    `to_move` after it; with `include=view` the answer carries the caller's
    view at its version, so a client can act without another request.
    A waiting long-poll takes one of the server's waiting slots: a caller past
    its share gets 429 `too_many_waiting_from_caller`, a game past its share
    503 `too_many_waiting_on_game` (both with `Retry-After`).
    """
    token = seat_token()
    wait = min(query["wait"], settings().long_poll_max_seconds)
    view = seat_view if query.get("include") == "view" else None
    body = _feed().poll(
        game_id,
        query["after"],
        token,
        wait,
        admit=lambda: _take_waiting_slot(game_id),
        client=_client_socket(),
        view=view,
    )
    # The hottest answer of all (every delivery to a long-poll): sent as it is, since
    # EventsSchema's dump is the identity on it (tests/service/test_feed_schema.py).
    text = json.dumps({"game_id": game_id, **body}, separators=(",", ":"))
    return current_app.response_class(text, mimetype="application/json")


@blp.route("/<game_id>/stream", methods=["GET"])
@blp.arguments(StreamQuerySchema(), location="query")
@blp.response(200, content_type="text/event-stream", description="Server-Sent Events")
@blp.alt_response(204, description="The game is over and the caller has every event")
@operation(blp, "streamEvents", security=SEAT_OR_SPECTATOR, problems=GAME + (400, 422))
@blp.doc(responses={200: {"content": {"text/event-stream": _SSE_CONTENT}}})
def stream(query: dict[str, Any], game_id: str):
    """The event feed as Server-Sent Events; each event's `id` is its version.

    Reconnect with `Last-Event-ID` (or `?after=`) to resume exactly. After the
    event that finishes the game the stream sends a final `end` event and
    closes; opened again on a finished game with nothing new it answers 204,
    which tells an EventSource to stop reconnecting. Otherwise the stream ends
    after a bounded time and the client reconnects. A store that does not
    answer (a failover, a restart) is waited out for up to 30 s, and the
    stream goes on from where it was. With `include=view`, the
    last event of each burst carries the caller's `view` at that version.
    A stream holds one of the server's waiting slots, within its caller's and
    its game's shares, as a long-poll does.
    """
    token = seat_token(query_token=query.get("access_token"))
    after = _last_event_id(query.get("after", 0))
    view = seat_view if query.get("include") == "view" else None
    limit = settings().sse_max_seconds
    heartbeat = settings().sse_heartbeat_seconds
    opened = _feed().open_stream(
        game_id,
        after,
        token,
        admit=lambda: _take_waiting_slot(game_id),
        limit=limit,
        heartbeat=heartbeat,
        client=_client_socket(),
        view=view,
    )
    if opened is None:
        return Response(status=204)
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    response = Response(
        stream_with_context(opened.lines), mimetype="text/event-stream", headers=headers
    )
    # Released when the server closes the response, even if the stream never started.
    response.call_on_close(opened.release)
    return response


@blp.route("/<game_id>/replay", methods=["GET"])
@blp.arguments(ReplayQuerySchema, location="query")
@blp.response(200, ReplaySchema, example=examples.REPLAY)
@operation(blp, "getReplay", security=SEAT_OR_SPECTATOR, problems=GAME + (422,))
def replay(query: dict[str, Any], game_id: str):
    """The whole game as the caller may see it; with `at`, as it was at that version.

    While a deal runs, hands and talon stay hidden by R11; once the game is
    over the replay holds every deal's deck.
    """
    service = games()
    current = service.current(game_id)
    seat = service.seat_for(current, seat_token())
    log = service.store.events(game_id)
    at = query.get("at")
    if at is not None and at > len(log):
        raise Problem(
            f"version {at} does not exist yet; the game is at version {len(log)}",
            code=ProblemCode.VERSION_OUT_OF_RANGE,
        )
    return replay_body(game_id, log, current.players, seat, at=at)


def _take_waiting_slot(game_id: str) -> Callable[[], None]:
    """Take a waiting slot for this request's wait on ``game_id`` (its caller's share, the
    game's, this process's: ``service.web.waiting``), or answer 429/503; returns its release.

    A waiting request costs little (a greenlet under gevent, no Redis
    connection), but not nothing: SCHNAPSEN_MAX_WAITING bounds them per process,
    and the shares keep one caller or one game from holding them all.
    """
    return services().waiting.admit(current_caller(), game_id)


def _feed() -> GameFeed:
    """The games' event feed (``service.live.game_feed``) with this process's watcher,
    memory and shared reads."""
    wired = services()
    return GameFeed(wired.games, wired.watcher, wired.memory, wired.one_read, announced_events)


def _client_socket() -> socket.socket | None:
    """The request's socket under gunicorn (to notice a client that left); None elsewhere."""
    return request.environ.get("gunicorn.socket")


def _last_event_id(after: int) -> int:
    header = request.headers.get("Last-Event-ID")
    if header is None:
        return after
    value = header.strip()
    # ASCII digits only: str.isdigit() also takes "²", which int() then refuses (a 500).
    if not _ASCII_VERSION.fullmatch(value) or int(value) > MAX_VERSION:
        raise Problem(
            "Last-Event-ID must be the version of an event",
            code=ProblemCode.INVALID_LAST_EVENT_ID,
        )
    return int(value)
