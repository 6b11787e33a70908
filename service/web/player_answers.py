"""What the players' views answer: a player and its ratings in every pool, a rating
change with its pool, a listed game's rated and pool, the pools' list, a player's
export as a stream (``service.web.views.players`` renders these; docs/api.md, "Players,
matchmaking and ratings")."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from service.game.log import Listed
from service.game.players import Player, Rated
from service.game.pools import (
    BLITZ_SECONDS,
    DEFAULT_POOL,
    POOLS,
    PROVISIONAL_DEVIATION,
    RAPID_SECONDS,
    Pool,
    Speed,
    pool_of,
    provisional,
)
from service.game.problems import GameNotFound
from service.store.player_records import Players
from service.web.services import games

#: Rating changes and games read per page while an export streams.
EXPORT_PAGE = 200


def rating_view(rated: Rated) -> dict[str, Any]:
    """A rating in one pool, as every answer shows it."""
    return {
        "rating": round(rated.rating, 2),
        "deviation": round(rated.deviation, 2),
        "volatility": round(rated.volatility, 6),
        "games": rated.games,
        "provisional": provisional(rated.deviation),
    }


def player_view(player: Player, pool: Pool = DEFAULT_POOL) -> dict[str, Any]:
    """What any caller of the player's app may see of a player: its rating in ``pool``
    (the default pool's for the calls that name none, as before pools) and in every pool."""
    return {
        "player_id": player.id,
        "name": player.name,
        "rating": rating_view(player.rating_in(pool)),
        "ratings": [
            {
                "pool": p.name,
                "variant": p.variant.value,
                "speed": p.speed.value,
                **rating_view(rated),
            }
            for p, rated in player.every_pool()
        ],
    }


def own_view(player: Player) -> dict[str, Any]:
    """What the player and its app see: the app's own id for it too."""
    return {**player_view(player), "app_player_id": player.app_player_id, "created": player.created}


def change_in_pool(change: dict[str, object]) -> dict[str, object]:
    """A rating change with its pool: one written before pools moved the one rating that
    is now the default pool's."""
    return {"pool": DEFAULT_POOL.name, **change}


def listed_rated(game_id: str) -> dict[str, Any]:
    """Whether a listed game is rated, and its pool, read from the game as the app's
    listing reads it (from Redis or the archive); both None when it can no longer be read."""
    try:
        current = games().current(game_id)
    except GameNotFound:
        return {"rated": None, "pool": None}
    pool = pool_of(current.state.variant, current.seats.clock)
    return {"rated": current.seats.rated, "pool": pool.name}


_SPEEDS = {
    Speed.BLITZ: f"a clock of at most {BLITZ_SECONDS} s a move",
    Speed.RAPID: f"a clock of {BLITZ_SECONDS + 1} to {RAPID_SECONDS} s a move",
    Speed.CLASSICAL: f"a clock of more than {RAPID_SECONDS} s a move",
    Speed.UNTIMED: "no clock",
}


def pool_list() -> dict[str, Any]:
    """Every rating pool, the default one and the provisional rule (``PoolListSchema``)."""
    return {
        "pools": [
            {
                "pool": p.name,
                "variant": p.variant.value,
                "speed": p.speed.value,
                "description": f"{p.variant.value} games with {_SPEEDS[p.speed]}",
            }
            for p in POOLS
        ],
        "default": DEFAULT_POOL.name,
        "provisional_deviation": PROVISIONAL_DEVIATION,
    }


def player_export(
    store: Players, player: Player, deliveries: list[dict[str, Any]]
) -> Iterator[str]:
    """The export's JSON text, a page of history or games at a time."""
    yield '{"player":' + _json(own_view(player)) + ',"ratings":['
    after: Listed | None = None
    first = True
    while True:
        changes = store.history_page(player.app, player.id, after, EXPORT_PAGE)
        for change in changes:
            yield ("" if first else ",") + _json(change_in_pool(change))
            first = False
        if len(changes) < EXPORT_PAGE:
            break
        last = changes[-1]
        after = Listed(str(last["game_id"]), int(last["at"]))  # type: ignore[call-overload]
    yield '],"games":['
    after, first = None, True
    while True:
        page = store.games_page(player.app, player.id, after, EXPORT_PAGE)
        for game in page:
            yield ("" if first else ",") + _json(
                {"game_id": game.game_id, "started": game.created_ms}
            )
            first = False
        if len(page) < EXPORT_PAGE:
            break
        after = page[-1]
    yield '],"webhook_deliveries":' + _json(deliveries)
    yield ',"exported":' + _json(round(time.time(), 3)) + "}"


def _json(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
