"""Players of client apps: registration, their own record, games and ratings, and the
app's leaderboard (``service.store.players``; docs/api.md, "Players")."""

from __future__ import annotations

from typing import Any

from flask import Response
from flask_smorest import Blueprint

from schemas.players import (
    GamesQuerySchema,
    HistoryQuerySchema,
    LeaderboardQuerySchema,
    LeaderboardSchema,
    OwnPlayerSchema,
    PlayerGamesSchema,
    PlayerViewSchema,
    PoolListSchema,
    RatingHistorySchema,
    RegisteredPlayerSchema,
    RegisterPlayerSchema,
)
from service.game.log import Listed
from service.game.players import InvalidName, Player, display_name
from service.game.pools import (
    Pool,
)
from service.game.problem_codes import ProblemCode
from service.game.problems import Problem
from service.store.archived_log import ArchivedLog
from service.store.players import PlayersFull, UnknownPlayer
from service.web import examples
from service.web.callers import client_app, player_or_client, required_player
from service.web.cursors import cursor_of
from service.web.idempotency import answer_names_player, idempotent
from service.web.operations import BODY, CLIENT_KEY, PLAYER, PLAYER_OR_APP, V1, operation
from service.web.player_answers import (
    change_in_pool,
    listed_rated,
    own_view,
    player_export,
    player_view,
    pool_list,
)
from service.web.player_erasure import PlayerErasure
from service.web.services import services
from service.web.views.webhooks import delivery_view

blp = Blueprint("players", __name__, url_prefix="/v1", description="Players and ratings")

_NOT_FOUND = V1 + (404,)


def _player(app: str, player_id: str) -> Player:
    """A player of ``app``; 404 for any other id (another app's players do not exist here)."""
    try:
        return services().players.get(app, player_id)
    except UnknownPlayer:
        raise Problem(
            f"your app has no player {player_id!r}", code=ProblemCode.PLAYER_NOT_FOUND
        ) from None


@blp.route("/players", methods=["POST"])
@blp.arguments(RegisterPlayerSchema, example=examples.REGISTER_PLAYER)
@blp.response(201, RegisteredPlayerSchema, example=examples.REGISTERED_PLAYER)
@operation(blp, "registerPlayer", security=CLIENT_KEY, problems=BODY + (409,))
@idempotent
def register_player(body: dict[str, Any]):
    """Register a player of your app (from your backend, with your client key).

    Answers the player and its token (`spt_...`), which your app hands to
    the player's devices: it creates, joins and seeks games as that player,
    with no other credential. Registering the same `app_player_id` again
    renames the player and gives it a new token; the old token stops working.
    A retry with the same `Idempotency-Key` answers the first answer again and
    changes nothing: a token a later registration replaced stays replaced.
    Once the player is erased, its registrations' answers are no longer kept:
    a retry then registers a new player, with a new id and token.
    """
    app = client_app("registering a player")
    try:
        name = display_name(body["name"])
    except InvalidName as error:
        raise Problem(str(error), code=ProblemCode.INVALID_NAME) from None
    try:
        player, token = services().players.register(app.id, body["app_player_id"], name)
    except PlayersFull:
        raise Problem(
            "your app has registered as many players as it may",
            code=ProblemCode.TOO_MANY_PLAYERS,
        ) from None
    answer_names_player(app.id, player.id)
    return {"player": own_view(player), "token": token}, 201


@blp.route("/players/me", methods=["GET"])
@blp.response(200, OwnPlayerSchema, example=examples.OWN_PLAYER)
@operation(blp, "getOwnPlayer", security=PLAYER, problems=V1)
def get_own_player():
    """The player whose token this is: name and rating."""
    player = required_player()
    return own_view(player)


@blp.route("/players/<player_id>", methods=["GET"])
@blp.response(200, PlayerViewSchema, example=examples.PLAYER_VIEW)
@operation(blp, "getPlayer", security=PLAYER_OR_APP, problems=_NOT_FOUND)
def get_player(player_id: str):
    """A player of the caller's app (by a player's token or the app's key): name and rating."""
    app, _player_self = player_or_client("reading a player")
    return player_view(_player(app, player_id))


def _after(query: dict[str, Any]) -> Listed | None:
    """Where a page starts: after the cursor's place (None: at the newest). The other ways
    of paging (``offset``, ``before``) count from there: OpenAPI describes a listing's
    parameters one by one, so each combination the document allows reads a page."""
    return cursor_of(query)


@blp.route("/players/<player_id>/ratings", methods=["GET"])
@blp.arguments(HistoryQuerySchema, location="query")
@blp.response(200, RatingHistorySchema, example=examples.RATING_HISTORY)
@operation(blp, "getRatingHistory", security=PLAYER_OR_APP, problems=_NOT_FOUND + (400, 422))
def rating_history(query: dict[str, Any], player_id: str):
    """A player's rating changes, newest first, a page at a time: follow `next_cursor`
    until it is null (with a database every change is kept; without one, the last 200).
    Every pool's, or with `pool` that pool's alone; each change names its pool."""
    app, _player_self = player_or_client("reading a player's ratings")
    after = _after(query)
    player = _player(app, player_id)
    limit, skip, store = query["limit"], query["offset"], services().players
    pool = Pool.parse(query["pool"]) if "pool" in query else None
    if skip and after is None:
        changes = store.history(app, player.id, skip + limit + 1, pool)[skip:]
    else:
        changes = store.history_page(app, player.id, after, skip + limit + 1, pool)[skip:]
    more, changes = len(changes) > limit, changes[:limit]
    last = changes[-1] if more and changes else None
    cursor = None if last is None else Listed(str(last["game_id"]), int(last["at"])).encode()  # type: ignore[call-overload]
    return {"changes": [change_in_pool(change) for change in changes], "next_cursor": cursor}


@blp.route("/players/me/games", methods=["GET"])
@blp.arguments(GamesQuerySchema, location="query")
@blp.response(200, PlayerGamesSchema, example=examples.PLAYER_GAMES)
@operation(blp, "listOwnGames", security=PLAYER, problems=V1 + (422,))
def own_games(query: dict[str, Any]):
    """The player's games, newest first, a page at a time: follow `next_cursor` until it
    is null (with a database every game is listed; without one, the last 500)."""
    player = required_player()
    after = _after(query)
    store, limit = services().players, query["limit"]
    # With both, the page starts after whichever comes later in the list (newest first).
    if "before" in query and (after is None or after.created_ms >= query["before"]):
        ids = store.games(player.app, player.id, query["before"], limit + 1)
        started = store.started(player.app, player.id, ids)
        page = [Listed(game_id, started[game_id]) for game_id in ids]
    else:
        page = store.games_page(player.app, player.id, after, limit + 1)
    more, page = len(page) > limit, page[:limit]
    games = [
        {"game_id": game.game_id, "started": game.created_ms, **listed_rated(game.game_id)}
        for game in page
    ]
    last = page[-1] if more and page else None
    return {
        "games": games,
        "next_before": None if last is None else last.created_ms,
        "next_cursor": None if last is None else last.encode(),
    }


@blp.route("/leaderboard", methods=["GET"])
@blp.arguments(LeaderboardQuerySchema, location="query")
@blp.response(200, LeaderboardSchema, example=examples.LEADERBOARD)
@operation(blp, "getLeaderboard", security=PLAYER_OR_APP, problems=V1 + (422,))
def leaderboard(query: dict[str, Any]):
    """The leaderboard of one rating pool of the caller's app (`pool`, default
    `head-untimed`): its players by their rating there, best first, those with at least
    five rated games in it whose rating is not provisional (deviation at most 110)."""
    app, _player_self = player_or_client("reading the leaderboard")
    pool = Pool.parse(query["pool"])
    rows = services().players.leaderboard(app, query["offset"], query["limit"], pool)
    return {
        "pool": pool.name,
        "players": [{"rank": rank, "player": player_view(p, pool)} for rank, p in rows],
    }


@blp.route("/pools", methods=["GET"])
@blp.response(200, PoolListSchema, example=examples.POOLS)
@operation(blp, "listPools", security=PLAYER_OR_APP, problems=V1)
def list_pools():
    """The rating pools: a player has a rating in each, a variant at a speed read from the
    game's clock; a rated game moves its pool's ratings alone."""
    player_or_client("reading the rating pools")
    return pool_list()


_EXPORT_CONTENT = {
    "application/json": {
        "schema": {"$ref": "#/components/schemas/PlayerExport"},
        "example": examples.PLAYER_EXPORT,
    }
}


@blp.route("/players/<player_id>/export", methods=["GET"])
@blp.response(200, description="Everything held about the player, as one JSON document")
@operation(blp, "exportPlayer", security=CLIENT_KEY, problems=_NOT_FOUND)
@blp.doc(responses={200: {"content": _EXPORT_CONTENT}})
def export_player(player_id: str):
    """Everything the service holds about one of your players (a data-protection export).

    One JSON document, a `PlayerExport`: the player's record (name, your id
    for it, when it was registered, its rating), its whole rating history,
    every game it played, and the webhook deliveries kept for your app that
    name it. Answered as a stream, a page at a time, so a player of thousands
    of games costs the server no more memory than one of ten. Another app's
    player is 404 `player_not_found`, as is an erased one.
    """
    app = client_app("exporting a player")
    player = _player(app.id, player_id)
    store = services().players
    deliveries = [delivery_view(d) for d in services().webhooks.naming(app.id, player.id)]
    return Response(
        player_export(store, player, deliveries),
        mimetype="application/json",
        headers={
            "Cache-Control": "no-store",
            "Content-Disposition": f'attachment; filename="{player.id}.json"',
        },
    )


@blp.route("/players/<player_id>", methods=["DELETE"])
@blp.response(204, description="The player is erased")
@operation(blp, "erasePlayer", security=CLIENT_KEY, problems=_NOT_FOUND)
def erase_player(player_id: str):
    """Erase one of your players (a data-protection request): 204, nothing in the body.

    Its name, your id for it and its player id leave every store and every
    answer; its token stops working at once; it leaves the leaderboard. Its
    games stay, readable and replayable, its seat an anonymous placeholder
    (`"erased": true`, no `player_id`); a game still in play goes on, and
    rates nobody at its end. Its opponents' ratings stay as they were; their
    history entries name the opponent `"erased"`. Webhook deliveries kept for
    your app name it no more (`player_id` null), and later notices never do.
    Export the player first (`GET /v1/players/{id}/export`) if you need what
    is held. Asking again answers 404 `player_not_found`: the player is gone
    (an erasure cut short by a failure is finished by asking again).
    """
    app = client_app("erasing a player")
    wired = services()
    erasure = PlayerErasure(
        players=wired.players,
        games=wired.games,
        redis=wired.redis,
        archive=wired.archive,
        log=wired.store if isinstance(wired.store, ArchivedLog) else None,
        webhooks=wired.webhooks,
        exports=wired.exports,
        seeks=wired.seeks,
        challenges=wired.challenges,
        secret=wired.games.secret,
        answers=wired.answers,
    )
    if not erasure.erase(app.id, player_id):
        raise Problem(f"your app has no player {player_id!r}", code=ProblemCode.PLAYER_NOT_FOUND)
    return Response(status=204)
