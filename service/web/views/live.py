"""Live games to watch: an app's games in play, a page at a time, and its featured game.

Both read the app's index of games in play (``service.store.live_games``) and check
each entry against its game's log (``service.web.live_answers``); both show what a
spectator may read of a game (docs/rules.md, R11), and link to its spectator stream.
"""

from __future__ import annotations

from typing import Any

from flask_smorest import Blueprint
from marshmallow import RAISE

from schemas.live import LiveGameListSchema, LiveGameSchema, LiveGamesQuerySchema
from service.game.pools import Pool
from service.game.problem_codes import ProblemCode
from service.game.problems import Problem
from service.web import examples
from service.web.callers import player_or_client
from service.web.cursors import cursor_of
from service.web.live_answers import featured, live_entry, live_page
from service.web.operations import PLAYER_OR_APP, V1, operation
from service.web.services import games, services
from service.web.views.tournaments import app_tournament, tournament_pool

blp = Blueprint("live", __name__, url_prefix="/v1/games", description="Live games to watch")


@blp.route("/live", methods=["GET"])
@blp.arguments(LiveGamesQuerySchema, location="query", unknown=RAISE)
@blp.response(200, LiveGameListSchema, example=examples.LIVE_GAMES)
@operation(blp, "listLiveGames", security=PLAYER_OR_APP, problems=V1 + (400, 404, 422))
def list_live_games(query: dict[str, Any]):
    """The caller's app's games in play, highest rated first, a page at a time.

    A game is listed from the moment both seats are taken until it ends; its
    `rating` is the mean of its seats' ratings in its pool when it began. Filter
    by `pool`, `min_rating` and `tournament` (its boards; another app's tournament
    or an unknown id: 404 `tournament_not_found`); follow `next_cursor` (with the same filters)
    until it is null. A page may hold fewer than `limit` games and still have a
    next cursor (games that ended since are skipped). Watch a game by its
    `links`: the spectator's view and stream.
    """
    app, _player = player_or_client("listing your app's live games")
    after = cursor_of(query)
    pool = Pool.parse(query["pool"]) if "pool" in query else None
    tournament = query.get("tournament")
    if tournament is not None:
        held = app_tournament(app, tournament)
        if pool is not None and tournament_pool(held) != pool:
            return {"games": [], "next_cursor": None}  # its games are all of another pool
    found = services()
    page = live_page(
        found.live_games,
        app,
        games().current,
        pool=pool,
        min_rating=query.get("min_rating"),
        after=after,
        limit=query["limit"],
        tournament=tournament,
    )
    return {
        "games": [
            live_entry(entry, current, found.players, found.bot_elo)
            for entry, current in page.games
        ],
        "next_cursor": None if page.next_cursor is None else page.next_cursor.encode(),
    }


@blp.route("/featured", methods=["GET"])
@blp.response(200, LiveGameSchema, example=examples.LIVE_GAME)
@operation(blp, "getFeaturedGame", security=PLAYER_OR_APP, problems=V1 + (404,))
def featured_game():
    """The caller's app's featured game: the highest-rated game in play, and of games
    rated alike, the one whose last move is the most recent.

    None in play: 404 `no_live_game`.
    """
    app, _player = player_or_client("reading your app's featured game")
    found = services()
    chosen = featured(
        found.live_games,
        app,
        games().current,
        found.store.last_append_times,
    )
    if chosen is None:
        raise Problem("none of your app's games is in play", code=ProblemCode.NO_LIVE_GAME)
    entry, current = chosen
    return live_entry(entry, current, found.players, found.bot_elo)
