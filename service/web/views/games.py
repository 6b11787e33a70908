"""The games resource: create, list, join, view and act; ``blp``, the games' blueprint.

The games' feed (events, long-poll and SSE, and the replay) adds its routes to
``blp`` in ``service.web.views.game_feed``, after these: the application
registers the blueprint from there.
"""

from __future__ import annotations

import time
from typing import Any

from flask import Response, request
from flask_smorest import Blueprint

from schemas.games import (
    ActionSchema,
    CreateGameSchema,
    GameListSchema,
    GameViewSchema,
    JoinSchema,
    ListGamesQuerySchema,
    SeatedSchema,
)
from service.engine import Variant
from service.engine.cards import parse_cards
from service.game.commands import Acted, NewGame, Opponent
from service.web import examples, limits
from service.web.acting import acted_headers, take_action
from service.web.callers import client_app, current_caller, current_player, seat_token
from service.web.cursors import cursor_of
from service.web.game_answers import (
    listed_game,
    seat_view_answer,
    seated_answer,
    seen_game,
)
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
    if_match,
    not_modified,
)
from service.web.services import games, services, settings
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
_ETAG_HEADER = {"ETag": {"description": "The game's version", "schema": {"type": "string"}}}
_LOCATION_HEADER = {"Location": {"description": "The new game", "schema": {"type": "string"}}}


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
    return seated_answer(seated), 201, headers


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
    after = cursor_of(query)
    page = games().list_games(
        client.id, status=query.get("status"), after=after, limit=query["limit"]
    )
    return {
        "games": [listed_game(listed.created_ms, current) for listed, current in page.games],
        "next_cursor": None if page.next_cursor is None else page.next_cursor.encode(),
    }


@blp.route("/<game_id>", methods=["GET"])
@blp.response(200, GameViewSchema, headers=_ETAG_HEADER, example=examples.GAME_VIEW)
@blp.alt_response(304, description="Not modified since the ETag in If-None-Match")
@operation(blp, "getGame", security=SEAT_OR_SPECTATOR, problems=GAME)
def get_game(game_id: str):
    """The caller's view of a game; without a token, a spectator's."""
    current, seat, rematch = seen_game(
        services(), game_id, seat_token=seat_token, counting=limits.counted_with_the_append()
    )
    # A rematch offer changes no version: a view that shows one is never "not modified".
    if rematch is None and not_modified(request, current.version):
        return Response(status=304, headers={"ETag": etag(current.version)})
    return seat_view_answer(current, seat, rematch), 200, {"ETag": etag(current.version)}


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
    return seated_answer(seated), 201, headers


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
    acted = take_action(
        games(),
        game_id,
        body,
        if_match(request),
        seat_token=seat_token,
        idempotency_key=idempotency_key,
        counting=limits.counted_with_the_append(),
    )
    return seat_view_answer(acted.current, acted.seat), 200, acted_headers(acted)


def _ended(acted: Acted):
    return seat_view_answer(acted.current, acted.seat), 200, acted_headers(acted)


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
        timeout_seconds=settings().turn_timeout_seconds,
        idempotency_key=idempotency_key(),
    )
    return _ended(acted)
