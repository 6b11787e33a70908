"""What the games' views answer that the services add to: a seat's (or a spectator's)
view with the invite seat 0 may see, a finished game's rematch offer and a clocked
game's clock; a seat just taken; a game in a listing.

Shared by the games' views and their feed's (``include=view``), which render the
same view (``service.web.render.game_view``).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from flask import Response, current_app

from service.engine.observation import ending_to_dict
from service.game.commands import Current, GameService, Seated
from service.game.log import RateCounts
from service.game.pools import pool_of
from service.game.rematch_service import Rematch
from service.web.render import (
    game_view,
    json_answer,
    seated_body,
    utc_time,
    view_answer,
    view_encoder,
)
from service.web.rendered_views import RenderedViews
from service.web.services import WebServices, games, services


def seat_view_answer(
    current: Current, seat: int | None, rematch: Rematch | None = None
) -> Response:
    """``view_with``'s view as the answer's JSON (``render.view_answer``), its text
    ``seat_view_text``'s."""
    encode = view_encoder(current_app._get_current_object())  # type: ignore[attr-defined]
    if encode is None:  # not rendered as JSON text here (debug): jsonify answers
        return view_answer(view_with(current, seat, rematch))
    wired = services()
    return json_answer(
        seat_view_text(wired.games, wired.rendered_views, encode, current, seat, rematch)
    )


def seat_view_text(
    service: GameService,
    rendered: RenderedViews,
    encode: Callable[[dict[str, Any]], str],
    current: Current,
    seat: int | None,
    rematch: Rematch | None = None,
) -> str:
    """The JSON text of ``seat``'s view with the invite seat 0 may see, a finished game's
    rematch offer and a clocked game's clock, ``encode``d (``render.view_encoder``); a view
    that shows the game alone (no clock, no rematch offer) is rendered once per game,
    version, seat and invite in this process (``service.web.rendered_views``)."""
    invite = service.invite_for(current, seat)
    clock = service.clock_reading(current)
    if rematch is not None or clock is not None:
        return encode(game_view(current, seat, invite=invite, rematch=rematch, clock=clock))
    return rendered.text(
        current, seat, invite, lambda: encode(game_view(current, seat, invite=invite))
    )


def seat_view(current: Current, seat: int | None) -> dict[str, Any]:
    """``seat``'s view of the game (``render.game_view``), with the invite seat 0 may see,
    a finished game's rematch offer and a clocked game's clock."""
    return view_with(current, seat, rematch_shown(current, seat))


def view_with(current: Current, seat: int | None, rematch: Rematch | None) -> dict[str, Any]:
    service = games()
    return game_view(
        current,
        seat,
        invite=service.invite_for(current, seat),
        rematch=rematch,
        clock=service.clock_reading(current),
    )


def rematch_shown(
    current: Current, seat: int | None, wired: WebServices | None = None
) -> Rematch | None:
    """A finished game's rematch offer (a game being played has none: nothing is read);
    ``wired``: the app's services (default: the current request's app's)."""
    if not current.state.over:
        return None
    return (wired or services()).rematches.shown(current, seat)


def seen_game(
    wired: WebServices,
    game_id: str,
    *,
    seat_token: Callable[[], str | None],
    counting: AbstractContextManager[RateCounts | None],
) -> tuple[Current, int | None, Rematch | None]:
    """A game's view as ``GET /v1/games/{id}`` reads it, whichever path serves the request
    (the games' view, or the plain route below Flask, ``service.web.plain_routes``): the
    game, the seat of ``seat_token()`` (None: a spectator; 401 for a token of no seat),
    and a finished game's rematch offer; the read counts the request's limits
    (``counting``), and a read path that saw the game asks for a due bot move."""
    service = wired.games
    with counting as counts:  # counted by the read, on one Redis
        current = service.current(game_id, counts=counts)
        seat = service.seat_for(current, seat_token())
    wired.seen(current)
    return current, seat, rematch_shown(current, seat, wired)


def seated_answer(seated: Seated) -> dict[str, Any]:
    service = games()
    return seated_body(
        seated,
        invite=service.invite_for(seated.current, seated.seat),
        clock=service.clock_reading(seated.current),
    )


def listed_game(created_ms: int, current: Current) -> dict[str, Any]:
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


__all__ = [
    "listed_game",
    "rematch_shown",
    "seat_view",
    "seat_view_answer",
    "seat_view_text",
    "seen_game",
    "seated_answer",
    "view_with",
]
