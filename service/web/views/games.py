"""The games resource: create, join, view, act, events (long-poll and SSE), replay."""

from __future__ import annotations

import json
import re
import socket
import time
from collections.abc import Callable, Generator, Iterator
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
    GameListSchema,
    GameViewSchema,
    JoinSchema,
    ListGamesQuerySchema,
    ReplayQuerySchema,
    ReplaySchema,
    SeatedSchema,
    StreamQuerySchema,
)
from service.engine import Action, GameState, Variant
from service.engine.cards import parse_cards
from service.engine.observation import ending_to_dict
from service.engine.replays import visible_events
from service.game.commands import Acted, Current, GameService, NewGame, Opponent, Seated
from service.game.pools import pool_of
from service.game.problem_codes import ProblemCode
from service.game.problems import InvalidRequest, Problem, Unauthorized, VersionConflict
from service.game.rematch_service import Rematch
from service.live.feed import FeedReads
from service.live.memory import GameMemory
from service.live.outage import StoreOutage
from service.live.stream_end import StreamEnding, log_stream_end
from service.live.watcher import END_EVENT, Waited, client_gone
from service.store.client_games import Listed
from service.store.events import announced_events
from service.web import examples
from service.web.callers import client_app, current_caller, current_player, seat_token
from service.web.idempotency import (
    IDEMPOTENCY_HEADER,
    caller_key,
    caller_scope,
    idempotency_key,
)
from service.web.operations import (
    ANYONE_OR_PLAYER,
    BODY,
    CLIENT,
    CLIENT_KEY,
    GAME,
    SEAT,
    SEAT_OR_SPECTATOR,
    V1,
    operation,
)
from service.web.plain_query import FeedParser
from service.web.render import (
    etag,
    game_view,
    if_match,
    not_modified,
    replay_body,
    seated_body,
    utc_time,
    view_answer,
)
from service.web.services import games, services
from service.web.statuses import StaleIfMatch
from service.web.time_controls import time_control

blp = Blueprint(
    "games", __name__, url_prefix="/v1/games", description="Create, join and play games"
)
#: Before the routes: ``arguments`` takes the parser when it decorates a view.
blp.ARGUMENTS_PARSER = FeedParser()

_TAG_PIECE = r'[ -+\--~]{0,24}"[ -+\--~]{0,24}'
_IF_MATCH_PATTERN = f"^{_TAG_PIECE}(,{_TAG_PIECE}){{0,7}}$"
_IF_MATCH_HEADER = {
    "in": "header",
    "name": "If-Match",
    "required": False,
    # Entity-tags in printable ASCII: a piece without a quote is no tag (400 invalid_if_match).
    "schema": {"type": "string", "pattern": _IF_MATCH_PATTERN},
    "example": '"5"',
    "description": 'The ETag of the view acted on, e.g. "12"; 412 when the game moved on. '
    "Compared strongly (RFC 9110): a weak tag (W/) never matches",
}
#: A version no game is at (versions start at 1): asked for, it fails after the seat is known.
_NO_VERSION = -1
_ASCII_VERSION = re.compile(r"[0-9]{1,10}")  # and then at most MAX_VERSION (10**9)
_ETAG_HEADER = {"ETag": {"description": "The game's version", "schema": {"type": "string"}}}
_LOCATION_HEADER = {"Location": {"description": "The new game", "schema": {"type": "string"}}}
#: What an SSE stream carries: in a 3.1 document a stream's `schema` is the schema of one
#: message (OpenAPI 3.2 names it `itemSchema`; 3.1 validators reject that field, and
#: schema tools read a 3.1 stream's `schema` per message), whose `data` is a StreamData.
_SSE_CONTENT = {"schema": {"$ref": "#/components/schemas/StreamMessage"}}


def settings() -> dict[str, Any]:
    return current_app.config


def _view(current: Current, seat: int | None) -> dict[str, Any]:
    """``seat``'s view of the game (``render.game_view``), with the invite seat 0 may see,
    a finished game's rematch offer and a clocked game's clock."""
    return _view_with(current, seat, _rematch(current, seat))


def _view_with(current: Current, seat: int | None, rematch: Rematch | None) -> dict[str, Any]:
    service = games()
    return game_view(
        current,
        seat,
        invite=service.invite_for(current, seat),
        rematch=rematch,
        clock=service.clock_reading(current),
    )


def _rematch(current: Current, seat: int | None) -> Rematch | None:
    """A finished game's rematch offer (a game being played has none: nothing is read)."""
    return services().rematches.shown(current, seat) if current.state.over else None


def _seated(seated: Seated) -> dict[str, Any]:
    service = games()
    return seated_body(
        seated,
        invite=service.invite_for(seated.current, seated.seat),
        clock=service.clock_reading(seated.current),
    )


@blp.route("", methods=["POST"])
@blp.arguments(CreateGameSchema, required=False, example=examples.CREATE_GAME)
@blp.response(201, SeatedSchema, headers=_LOCATION_HEADER, example=examples.SEATED)
@operation(blp, "createGame", security=CLIENT, problems=BODY)
@blp.doc(parameters=[IDEMPOTENCY_HEADER])
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
        rated=body.get("rated", False),
        clock=time_control(body.get("clock")),
    )
    caller = current_caller()
    player = caller.player
    seated = games().create(
        new,
        idempotency_key=caller_key(),
        scope=caller_scope(),
        owner=caller.client.id if caller.client else None,
        player=player.id if player else None,
    )
    if player is not None:
        services().players.played(
            player.app, [player.id], seated.current.game_id, int(time.time() * 1000)
        )
    headers = {
        "Location": f"/v1/games/{seated.current.game_id}",
        "ETag": etag(seated.current.version),
    }
    if seated.replayed:
        headers["Idempotent-Replayed"] = "true"
    return _seated(seated), 201, headers


@blp.route("", methods=["GET"])
@blp.arguments(ListGamesQuerySchema, location="query")
@blp.response(200, GameListSchema, example=examples.GAME_LIST)
@operation(blp, "listGames", security=CLIENT_KEY, problems=V1 + (400, 422))
def list_games(query: dict[str, Any]):
    """The games created with the caller's client key, newest first, a page at a time.

    `client=me` names the caller's client app (its key as `X-Client-Key` or
    `Authorization: Bearer`); without a key: 401. Follow `next_cursor` until
    it is null. With `status`, a page may hold fewer than `limit` games
    and still have a next cursor (statuses are read from the games' logs).
    """
    client = client_app("listing your games")
    after = None
    if "cursor" in query:
        try:
            after = Listed.decode(query["cursor"])
        except ValueError:
            raise Problem(
                "cursor is not the next_cursor of a page of this listing",
                code=ProblemCode.INVALID_CURSOR,
            ) from None
    page = games().list_games(
        client.id, status=query.get("status"), after=after, limit=query["limit"]
    )
    return {
        "games": [_summary(listed.created_ms, current) for listed, current in page.games],
        "next_cursor": None if page.next_cursor is None else page.next_cursor.encode(),
    }


def _summary(created_ms: int, current: Current) -> dict[str, Any]:
    """A game in a listing: public facts only (no token, no invite, no card)."""
    state = current.state
    return {
        "game_id": current.game_id,
        "created_at": utc_time(created_ms),
        "version": current.version,
        "status": state.status.value,
        "variant": state.variant.value,
        "dealing": state.dealing.value,
        "rated": current.seats.rated,
        "pool": pool_of(state.variant, current.seats.clock).name,
        "game_points": list(state.game_points),
        "winner": state.winner,
        "to_move": state.to_move,
        "players": current.players,
        "ending": ending_to_dict(state),
    }


@blp.route("/<game_id>", methods=["GET"])
@blp.response(200, GameViewSchema, headers=_ETAG_HEADER, example=examples.GAME_VIEW)
@blp.alt_response(304, description="Not modified since the ETag in If-None-Match")
@operation(blp, "getGame", security=SEAT_OR_SPECTATOR, problems=GAME)
def get_game(game_id: str):
    """The caller's view of a game; without a token, a spectator's."""
    service = games()
    current = service.current(game_id)
    seat = service.seat_for(current, seat_token())
    services().seen(current)
    # A rematch offer changes no version: a view that shows one is never "not modified".
    rematch = _rematch(current, seat)
    if rematch is None and not_modified(request, current.version):
        return Response(status=304, headers={"ETag": etag(current.version)})
    return view_answer(_view_with(current, seat, rematch)), 200, {"ETag": etag(current.version)}


@blp.route("/<game_id>/join", methods=["POST"])
@blp.arguments(JoinSchema, example=examples.JOIN)
@blp.response(201, SeatedSchema, headers=_ETAG_HEADER, example={**examples.SEATED, "seat": 1})
@operation(blp, "joinGame", security=ANYONE_OR_PLAYER, problems=BODY + GAME + (409,))
@blp.doc(parameters=[IDEMPOTENCY_HEADER])
def join_game(body: dict[str, Any], game_id: str):
    """Take seat 1 with the invite. A second join is refused (409).

    With a player's token (`Authorization: Bearer spt_...`) the player of the
    game's app takes the seat; a rated game seats players only.
    """
    player = current_player()
    seated = games().join(
        game_id,
        body["invite"],
        idempotency_key=caller_key(),
        scope=caller_scope(),
        player=(player.app, player.id) if player else None,
    )
    if player is not None:
        services().players.played(player.app, [player.id], game_id, int(time.time() * 1000))
    headers = {"ETag": etag(seated.current.version)}
    if seated.replayed:
        headers["Idempotent-Replayed"] = "true"
    return _seated(seated), 201, headers


@blp.route("/<game_id>/actions", methods=["POST"])
@blp.arguments(ActionSchema(), example=examples.ACTION)  # one instance: the hot path
@blp.response(200, GameViewSchema, headers=_ETAG_HEADER, example=examples.AFTER_ACTION)
@operation(blp, "takeAction", security=SEAT, problems=BODY + GAME + (409, 412))
@blp.doc(parameters=[IDEMPOTENCY_HEADER, _IF_MATCH_HEADER])
def act(body: dict[str, Any], game_id: str):
    """Take one action for the caller's seat.

    A refused action changes nothing and answers a problem listing the
    caller's `legal_actions`. A stale `expected_version` answers 409, a
    stale `If-Match` 412. The seat's token is checked first: without it
    (or with another) 401, whatever If-Match says.
    """
    expected = body.pop("expected_version", None)
    condition = if_match(request)
    refusal = condition.refusal
    header_version = condition.version
    if expected is not None and header_version is not None and expected != header_version:
        refusal = Problem(
            f"expected_version {expected} and If-Match {header_version} disagree",
            code=ProblemCode.CONFLICTING_VERSIONS,
        )
    try:
        action = Action.from_dict(body)
    except ValueError as error:
        raise InvalidRequest(str(error), code=ProblemCode.INVALID_ACTION) from None
    # A refused precondition waits until the seat is known (401 and 404 come first): the
    # command is asked for a version no game has, and its conflict becomes the refusal.
    if refusal is not None:
        version: int | None = _NO_VERSION
    else:
        version = expected if expected is not None else header_version
    try:
        acted = games().act(
            game_id,
            seat_token(),
            action,
            expected_version=version,
            idempotency_key=idempotency_key(),
        )
    except VersionConflict as conflict:
        if refusal is not None:
            raise refusal from None
        if expected is None and header_version is not None:
            raise StaleIfMatch.of(conflict) from None
        raise
    headers = {"ETag": etag(acted.current.version)}
    if acted.replayed:
        headers["Idempotent-Replayed"] = "true"
    return view_answer(_view(acted.current, acted.seat)), 200, headers


def _ended(acted: Acted):
    headers = {"ETag": etag(acted.current.version)}
    if acted.replayed:
        headers["Idempotent-Replayed"] = "true"
    return view_answer(_view(acted.current, acted.seat)), 200, headers


@blp.route("/<game_id>/resign", methods=["POST"])
@blp.response(200, GameViewSchema, headers=_ETAG_HEADER, example=examples.RESIGNED)
@operation(blp, "resignGame", security=SEAT, problems=GAME + (409, 422))
@blp.doc(parameters=[IDEMPOTENCY_HEADER])
def resign(game_id: str):
    """Resign: the caller's opponent wins the game (RX1).

    Either seat, while the game runs. The opponent's game points become 0;
    the resigner keeps its own. Answers the caller's view of the finished
    game. Before seat 1 joined: 409 `game_waiting` (abort instead).
    """
    token = seat_token()
    return _ended(games().resign(game_id, token, idempotency_key=idempotency_key()))


@blp.route("/<game_id>/abort", methods=["POST"])
@blp.response(200, GameViewSchema, headers=_ETAG_HEADER, example=examples.ABORTED)
@operation(blp, "abortGame", security=SEAT, problems=GAME + (409, 422))
@blp.doc(parameters=[IDEMPOTENCY_HEADER])
def abort(game_id: str):
    """Abort: call a game between people off before its first action; nobody wins (RX2).

    Seat 0 while seat 1 is empty, or either seat before any action. Later,
    or against a bot: 409 `abort_not_allowed` (resign instead).
    """
    token = seat_token()
    return _ended(games().abort(game_id, token, idempotency_key=idempotency_key()))


@blp.route("/<game_id>/claim-timeout", methods=["POST"])
@blp.response(200, GameViewSchema, headers=_ETAG_HEADER, example=examples.TIMED_OUT)
@operation(blp, "claimTimeout", security=SEAT, problems=GAME + (409, 422))
@blp.doc(parameters=[IDEMPOTENCY_HEADER])
def claim_timeout(game_id: str):
    """Claim the game when the opponent let its turn time out (RX3).

    Only the seat that is not to move, once the turn has waited
    `SCHNAPSEN_TURN_TIMEOUT_SECONDS` since the game's last event (by the
    log's own times). Too early: 409 `turn_not_timed_out` with
    `retry_after_seconds`; the seat to move: 409 `not_waiting`. A bot's turn
    is never claimed (409 `bot_turn_not_claimable`): the workers make its move.
    """
    acted = games().claim_timeout(
        game_id,
        seat_token(),
        timeout_seconds=settings()["TURN_TIMEOUT_SECONDS"],
        idempotency_key=idempotency_key(),
    )
    return _ended(acted)


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
    service = games()
    token = seat_token()
    after = query["after"]
    wait = min(query["wait"], settings()["LONG_POLL_MAX_SECONDS"])
    known = _game_at(service, game_id, after)
    seat = _seat(service, known, token)
    if wait > 0 and known.version == after and known.state.status != "finished":
        with _waiting_slot(game_id):
            waited = _wait_for_append(service, game_id, after, wait)
    else:
        waited = Waited.UNKNOWN
    if waited is Waited.UNCHANGED:
        body, latest = {"version": after, "events": []}, known  # nothing to read
    else:
        shared = waited is Waited.APPENDED
        body, latest = _feed(service, game_id, seat, after, known=known, shared=shared)
    if query.get("include") == "view":
        body["view"] = _view(latest, seat)
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
    service = games()
    token = seat_token(query_token=query.get("access_token"))
    after = _last_event_id(query.get("after", 0))
    current = _game_at(service, game_id, after)
    seat = _seat(service, current, token)
    if current.state.status == "finished" and after == current.version:
        return Response(status=204)
    include_view = query.get("include") == "view"
    limit = settings()["SSE_MAX_SECONDS"]
    heartbeat = settings()["SSE_HEARTBEAT_SECONDS"]
    release = _take_waiting_slot(game_id)
    client = _client_socket()

    def events() -> Generator[str, None, tuple[StreamEnding, str]]:
        """The stream's lines; returns why it ended (``StreamEnding``) and a detail."""
        nonlocal after
        yield "retry: 1000\n\n"
        deadline = time.monotonic() + limit
        known: Current | None = current
        waited = Waited.UNKNOWN  # the first read asks Redis: the stream may start behind
        outage = StoreOutage()
        while True:
            try:
                if waited is not Waited.UNCHANGED:  # else nothing new: nothing to read
                    shared = waited is Waited.APPENDED
                    burst, after, known, finished = _sse_burst(
                        service, game_id, seat, after, known, shared=shared, view=include_view
                    )
                    if burst:
                        yield burst  # one write for the burst
                    if finished:
                        return StreamEnding.GAME_OVER, f"at version {after}"
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return StreamEnding.DEADLINE, f"{limit:g} s, at version {after}"
                waited = _wait_for_append(service, game_id, after, min(heartbeat, remaining))
                outage.over()
            except redis.exceptions.RedisError as error:
                # A failover or a restart: wait it out, then read again from ``after``
                # (nothing is missed). A store away for longer ends the stream; the
                # client resumes exactly with Last-Event-ID once it answers again.
                if time.monotonic() >= deadline:
                    return StreamEnding.DEADLINE, f"the store failed at it ({error})"
                if not outage.wait():
                    return StreamEnding.STORE_AWAY, str(error)
                waited = Waited.UNKNOWN
            if waited is not Waited.APPENDED:
                if client is not None and client_gone(client):
                    # The client left: give its slot back now.
                    return StreamEnding.CLIENT_LEFT, f"at version {after}"
                yield ": keep-alive\n\n"

    def generate() -> Iterator[str]:
        """``events``, and one log line with the reason it ended, however it ended."""
        reason, detail = StreamEnding.CONNECTION_CLOSED, ""
        try:
            reason, detail = yield from events()
        except GeneratorExit:
            raise  # the server closed the answer: CONNECTION_CLOSED
        except Exception as error:
            reason, detail = StreamEnding.FAILED, repr(error)
            raise
        finally:
            log_stream_end(game_id, reason, detail)

    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    response = Response(
        stream_with_context(generate()), mimetype="text/event-stream", headers=headers
    )
    # Released when the server closes the response, even if the stream never started.
    response.call_on_close(release)
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


@contextmanager
def _waiting_slot(game_id: str) -> Iterator[None]:
    release = _take_waiting_slot(game_id)
    try:
        yield
    finally:
        release()


def _wait_for_append(service: GameService, game_id: str, after: int, seconds: float) -> Waited:
    """Wait until the log passes ``after``, at most ``seconds`` or until the client leaves.

    The waiter registers before it reads the head, so an append that lands
    in between wakes it rather than being missed (service.live.watcher). A wait that
    ends unwoken says whether the subscription proves the log still at
    ``after`` (``Waited.UNCHANGED``: nothing to read).
    """
    watcher = services().watcher
    deadline = time.monotonic() + seconds
    with watcher.watch(game_id, after, client=_client_socket()) as waiter:
        if watcher.head(game_id, lambda: service.store.head(game_id)) > after:
            return Waited.APPENDED
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not waiter.wait(remaining):
                unchanged = not waiter.gone and watcher.unchanged(game_id, after)
                return Waited.UNCHANGED if unchanged else Waited.UNKNOWN
            if waiter.announced > after:
                return Waited.APPENDED
            waiter.woken.clear()  # woken without news (a resubscription): look again
            if service.store.head(game_id) > after:
                return Waited.APPENDED


def _memory() -> GameMemory:
    return services().memory


def _game_at(service: GameService, game_id: str, version: int) -> Current:
    """The game at ``version``: from this process's memory when another reader put it
    there (a game at a version never changes), else loaded; 422 past the head.

    Readers ask for the game at the version they have seen, so a waiter that
    re-polls after a delivery finds it here and costs no Redis call; version 0
    (nothing seen yet) is the newest game, and the feed reads from the start.
    """
    if version > 0:
        known = _memory().game_at(game_id, version)
        if known is not None:
            return known
    current = service.current(game_id, version or None)
    _existing_version(version, current.version)
    _memory().remember_game(current)
    return current


def _seat(service: GameService, known: Current, token: str | None) -> int | None:
    """The caller's seat; a game remembered from before seat 1 joined is asked again."""
    try:
        return service.seat_for(known, token)
    except Unauthorized:
        if known.seats[1].joined:
            raise
        return service.seat_for(service.current(known.game_id), token)


def _events_since(
    service: GameService, known: Current, *, shared: bool
) -> tuple[list[Any], Current]:
    """``service.events_since``, through this process's feed reads (``service.live.feed``):
    ``shared``, a waiter that was woken, may take what memory or its announcement holds."""

    def read(news: bytes | None) -> tuple[list[Any], Current]:
        return service.events_since(known, None if news is None else announced_events(news))

    reads = FeedReads(services().watcher, _memory(), services().one_read)
    return reads.since(known, read, shared=shared)


def _client_socket() -> socket.socket | None:
    """The request's socket under gunicorn (to notice a client that left); None elsewhere."""
    return request.environ.get("gunicorn.socket")


def _sse_burst(
    service: GameService,
    game_id: str,
    seat: int | None,
    after: int,
    known: Current | None,
    *,
    shared: bool,
    view: bool,
) -> tuple[str, int, Current, bool]:
    """The events after ``after`` as one SSE write, closed by ``end`` once the game is over:
    (the text, the last version sent, the game it leads to, whether the game is over)."""
    body, latest = _feed(service, game_id, seat, after, known=known, shared=shared)
    shown = body["events"]
    if view and shown:
        shown[-1] = {**shown[-1], "view": _view(latest, seat)}
    burst = [_sse(event["type"], event, event_id=event["version"]) for event in shown]
    finished = latest.state.status == "finished"
    if finished:
        burst.append(_sse(END_EVENT, _end_of(latest)))  # no id: Last-Event-ID stays
    last = shown[-1]["version"] if shown else after
    return "".join(burst), last, latest, finished


def _sse(kind: str, data: dict[str, Any], *, event_id: int | None = None) -> str:
    head = "" if event_id is None else f"id: {event_id}\n"
    return f"{head}event: {kind}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def _end_of(latest: Current) -> dict[str, Any]:
    """The data of the final ``end`` event: how the game ended."""
    state = latest.state
    return {
        "version": latest.version,
        "status": state.status.value,
        "winner": state.winner,
        "game_points": list(state.game_points),
    }


def _feed(
    service: GameService,
    game_id: str,
    seat: int | None,
    after: int,
    known: Current | None = None,
    *,
    shared: bool = False,
) -> tuple[dict[str, Any], Current]:
    """The events after ``after`` as ``seat`` sees them, and the game they lead to.

    ``known``, the game at ``after`` when the caller has it (a waiter), saves
    loading it again: only the new events are read.
    """
    if known is not None and known.version == after:
        start: GameState | None = known.state
        log, latest = _events_since(service, known, shared=shared)
    else:
        start, log, latest = service.events_after(game_id, after)
        _memory().remember_game(latest)
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
            code=ProblemCode.VERSION_OUT_OF_RANGE,
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
            code=ProblemCode.INVALID_LAST_EVENT_ID,
        )
    return int(value)
