"""The live games' answers: an app's games in play, a page at a time, and its featured
game, each entry checked against the game's log and told in public facts only.

The index (``service.store.live_games``) says which games began and at what rating;
the log says whether each still runs. An entry whose game is over or gone is
dropped from the index by the read that meets it, and never shown. What an entry
shows is what any spectator may read of the game (docs/rules.md, R11): who sits where,
their names and ratings, the game points, the version and who is to move; never
a card.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from service.engine import GameStatus
from service.game.log import Listed
from service.game.players import Player
from service.game.pools import Pool
from service.game.problems import GameNotFound
from service.game.values import Current
from service.store.live_games import (
    SCAN_LIMIT,
    LiveEntry,
    LiveGames,
    PlayerLookup,
    game_pool,
)
from service.store.players import UnknownPlayer
from service.store.ratings import BOT_RATING_BASE

#: The most games of the top rating the featured game is chosen among (by their last
#: move): past that many ties, among those with the greatest ids.
FEATURED_CANDIDATES = 200


@dataclass(frozen=True, slots=True)
class LivePage:
    """The games of one page, each with its entry, and where the next page starts."""

    games: list[tuple[LiveEntry, Current]]
    next_cursor: Listed | None


Load = Callable[[str], Current]


def in_play(
    live: LiveGames, app: str, entry: LiveEntry, load: Load, tournament: str | None = None
) -> Current | None:
    """The game of an entry if it is still in play; else None, and the entry leaves
    (``tournament``: the tournament's index it was read from, which a game gone from
    Redis can no longer name)."""
    try:
        current = load(entry.game_id)
    except GameNotFound:
        current = None
    if current is not None and current.state.status is GameStatus.ACTIVE:
        return current
    if current is None:
        live.forget(app, entry.game_id, tournament)
    else:
        live.ended(app, entry.game_id, game_pool(current), current.seats.tournament)
    return None


def live_page(
    live: LiveGames,
    app: str,
    load: Load,
    *,
    pool: Pool | None,
    min_rating: int | None,
    after: Listed | None,
    limit: int,
    tournament: str | None = None,
) -> LivePage:
    """Up to ``limit`` games in play, highest rated first; a page may hold fewer (games
    that ended are skipped, at most ``SCAN_LIMIT`` entries read) and still go on.
    ``tournament``: only that tournament's boards (of ``pool``, if one is named)."""
    found: list[tuple[LiveEntry, Current]] = []
    scanned = 0
    cursor = after
    while len(found) < limit and scanned < SCAN_LIMIT:
        batch = live.page(
            app,
            pool=pool,
            min_rating=min_rating,
            after=cursor,
            count=min(limit, SCAN_LIMIT - scanned),
            tournament=tournament,
        )
        if not batch:
            return LivePage(found, None)
        for entry in batch:
            scanned += 1
            cursor = entry.cursor
            current = in_play(live, app, entry, load, tournament)
            if current is not None and (pool is None or game_pool(current) == pool):
                found.append((entry, current))
                if len(found) == limit:
                    break
    more = cursor is not None and live.page(
        app, pool=pool, min_rating=min_rating, after=cursor, count=1, tournament=tournament
    )
    return LivePage(found, cursor if more else None)


def featured(
    live: LiveGames,
    app: str,
    load: Load,
    last_moves: Callable[[Sequence[str]], dict[str, int | None]],
) -> tuple[LiveEntry, Current] | None:
    """The app's featured game: the highest-rated game in play, and of those rated
    alike the one whose last move is the most recent (then the greater id).

    The ties are read in one round trip (``last_moves``: each log's last append),
    and only the chosen game is loaded; an entry whose game ended leaves the index
    and the next is tried, at most ``SCAN_LIMIT`` of them (then: none).
    """
    checked = 0
    while checked < SCAN_LIMIT:
        entries = live.top(app, FEATURED_CANDIDATES)
        if not entries:
            return None
        times = last_moves([entry.game_id for entry in entries])
        latest_first = sorted(
            entries, key=lambda entry: (times.get(entry.game_id) or 0, entry.game_id), reverse=True
        )
        for entry in latest_first[: SCAN_LIMIT - checked]:
            checked += 1
            current = in_play(live, app, entry, load)
            if current is not None:
                return entry, current
    return None


def live_entry(
    entry: LiveEntry, current: Current, players: PlayerLookup, bot_elo: dict[str, float]
) -> dict[str, Any]:
    """One game in play as a spectator may read it: no token, no invite, no card.

    Each seat says who sits there (``players`` of the view), its player's display
    name and its rating in the game's pool now (a bot: its fixed rating; an
    anonymous or erased seat: neither).
    """
    state = current.state
    app = current.seats.owner
    pool = game_pool(current)
    seats = []
    for seat, shown in zip(current.seats.seats, current.players, strict=True):
        named = dict(shown)
        named["name"] = None
        named["rating"] = None
        if seat.bot:
            elo = bot_elo.get(seat.level or "")
            named["rating"] = None if elo is None else round(elo + BOT_RATING_BASE)
        elif app is not None and seat.player is not None and not seat.erased:
            player = _player(players, app, seat.player)
            if player is not None:
                named["name"] = player.name
                named["rating"] = round(player.rating_in(pool).rating)
        seats.append(named)
    game_id = current.game_id
    return {
        "game_id": game_id,
        "pool": pool.name,
        "rated": current.seats.rated,
        "variant": state.variant.value,
        "rating": entry.rating or None,
        "tournament": current.seats.tournament,
        "version": current.version,
        "game_points": list(state.game_points),
        "to_move": state.to_move,
        "players": seats,
        "links": {
            "view": f"/v1/games/{game_id}",
            "stream": f"/v1/games/{game_id}/stream",
            "board": f"/watch/?game={game_id}",
        },
    }


def _player(players: PlayerLookup, app: str, player_id: str) -> Player | None:
    try:
        return players.get(app, player_id)
    except UnknownPlayer:
        return None


__all__ = ["FEATURED_CANDIDATES", "LivePage", "featured", "in_play", "live_entry", "live_page"]
