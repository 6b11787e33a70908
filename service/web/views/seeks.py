"""Matchmaking: a player seeks a game, waits on its seek, and is paired
(``service.store.seeks``; docs/api.md, "Matchmaking")."""

from __future__ import annotations

import time
from typing import Any

from flask_smorest import Blueprint

from schemas.players import SeekRequestSchema, SeekSchema, SeekWaitQuerySchema
from service.engine import Variant
from service.game.clock import TimeControl
from service.game.players import Player
from service.game.pools import pool_of
from service.game.problem_codes import ProblemCode
from service.game.problems import Conflict, GameNotFound, Problem
from service.store.seeks import SeekExists, SeeksFull, SeekState, SeekStatus, UnknownSeek
from service.web import examples
from service.web.callers import required_player
from service.web.idempotency import idempotent
from service.web.operations import BODY, PLAYER, V1, operation
from service.web.services import games, services
from service.web.time_controls import clock_body, time_control

blp = Blueprint("seeks", __name__, url_prefix="/v1", description="Matchmaking")

#: How often a waiting request asks its seek again (s): its pairing is known this soon.
POLL_SECONDS = 0.25
_SEEK = V1 + (404,)


def _kind(variant: str, rated: bool, clock: TimeControl | None) -> str:
    """What two seeks must share to be paired: variant, rated or casual, time control."""
    return f"{variant}|{'rated' if rated else 'casual'}|{'' if clock is None else clock.encode()}"


def _answer(player: Player, state: SeekState) -> dict[str, Any]:
    """The seek as its player sees it; once paired, the game (made here if the pairing's
    maker has not made it yet) and the player's seat and token in it."""
    seeks = services().seeks
    variant, rated, clock_text = (seeks.kind(player.app, state.id) or "head|casual|").split("|", 2)
    clock = TimeControl.decode(clock_text) if clock_text else None
    body: dict[str, Any] = {
        "seek_id": state.id,
        "status": state.status,
        "variant": variant,
        "rated": rated == "rated",
        "clock": clock_body(clock),
        "game_id": None,
        "seat": None,
        "token": None,
    }
    paired = state.status is SeekStatus.PAIRED and state.nonces is not None
    if paired and state.game_id is not None and state.seat is not None:
        partner = seeks.owner(player.app, state.partner or "")
        if partner is None:  # the partner's record was forgotten: the game was made long ago
            partner = ""
        players = (player.id, partner) if state.seat == 0 else (partner, player.id)
        try:
            current = games().current(state.game_id)
        except GameNotFound:
            current = games().create_paired(
                state.game_id,
                player.app,
                players,
                Variant(variant),
                rated == "rated",
                clock,
                nonces=state.nonces,
            )
        services().players.played(
            player.app, [p for p in players if p], state.game_id, int(time.time() * 1000)
        )
        body.update(
            game_id=state.game_id,
            seat=state.seat,
            token=games().paired_token(current, state.seat),
        )
    return body


def _own(player: Player, seek_id: str) -> None:
    """404 unless the seek is the player's own (another's seeks do not exist for it)."""
    if services().seeks.owner(player.app, seek_id) != player.id:
        raise Problem(f"you have no seek {seek_id!r}", code=ProblemCode.SEEK_NOT_FOUND)


@blp.route("/seeks", methods=["POST"])
@blp.arguments(SeekRequestSchema, required=False, example=examples.SEEK)
@blp.response(201, SeekSchema, example=examples.SEEK_WAITING)
@operation(blp, "createSeek", security=PLAYER, problems=BODY + (409,))
@idempotent
def create_seek(body: dict[str, Any]):
    """Seek a game: wait in your app's pool until another player of it is paired with you.

    Paired at once when a partner waits (the answer says `paired`, with the
    game, your seat and your seat's token); else wait on the seek
    (`GET /v1/seeks/{id}?wait=30`) until it is. A seek lives while somebody
    waits on it, and ends by itself `SCHNAPSEN_SEEK_ALIVE_SECONDS` after the
    last wait. One seek per player at a time. A retry with the same
    `Idempotency-Key` answers the first answer again (the seek is not made
    again); wait on the seek to learn how it stands.
    """
    player = required_player()
    low, high = body.get("min_rating"), body.get("max_rating")
    if low is not None and high is not None and low > high:
        raise Problem("min_rating is above max_rating", code=ProblemCode.INVALID_REQUEST)
    variant, clock = body.get("variant", "head"), time_control(body.get("clock"))
    pool = pool_of(Variant(variant), clock)
    try:
        state = services().seeks.create(
            player.app,
            player.id,
            player.rating_in(pool).rating,
            _kind(variant, body.get("rated", False), clock),
            low,
            high,
        )
    except SeekExists as exists:
        raise Conflict(
            f"you wait on seek {exists.args[0]} already: wait on it or cancel it",
            code=ProblemCode.SEEK_EXISTS,
            extra={"seek_id": exists.args[0]},
        ) from None
    except SeeksFull:
        raise Problem(
            "your app's pool holds as many seeks as it may; retry shortly",
            code=ProblemCode.TOO_MANY_SEEKS,
            headers={"Retry-After": "5"},
        ) from None
    return _answer(player, state), 201, {"Location": f"/v1/seeks/{state.id}"}


@blp.route("/seeks/<seek_id>", methods=["GET"])
@blp.arguments(SeekWaitQuerySchema, location="query")
@blp.response(200, SeekSchema, example=examples.SEEK_PAIRED)
@operation(blp, "getSeek", security=PLAYER, problems=_SEEK + (422,))
def get_seek(query: dict[str, Any], seek_id: str):
    """Your seek; with `wait=S`, wait up to S seconds (at most 30) for its pairing.

    Each wait keeps the seek alive and tries to pair it again, with the
    rating window its waiting has widened (docs/api.md states the rule).
    """
    player = required_player()
    _own(player, seek_id)
    seeks = services().seeks
    deadline = time.monotonic() + query["wait"]
    try:
        state = seeks.wait(player.app, seek_id)
        while state.status is SeekStatus.WAITING and time.monotonic() < deadline:
            time.sleep(min(POLL_SECONDS, max(0.0, deadline - time.monotonic())))
            state = seeks.wait(player.app, seek_id)
    except UnknownSeek:
        raise Problem(f"you have no seek {seek_id!r}", code=ProblemCode.SEEK_NOT_FOUND) from None
    return _answer(player, state)


@blp.route("/seeks/<seek_id>", methods=["DELETE"])
@blp.response(200, SeekSchema, example={**examples.SEEK_WAITING, "status": "cancelled"})
@operation(blp, "cancelSeek", security=PLAYER, problems=_SEEK + (409,))
def cancel_seek(seek_id: str):
    """Cancel your waiting seek: it is never paired after this answer. A seek paired
    before answers 409 `seek_paired`, with its game."""
    player = required_player()
    _own(player, seek_id)
    try:
        state = services().seeks.cancel(player.app, seek_id)
    except UnknownSeek:
        raise Problem(f"you have no seek {seek_id!r}", code=ProblemCode.SEEK_NOT_FOUND) from None
    if state.status is SeekStatus.PAIRED:
        answer = _answer(player, state)
        raise Conflict(
            f"seek {seek_id} was paired before it could be cancelled: game {state.game_id}",
            code=ProblemCode.SEEK_PAIRED,
            extra={"game_id": answer["game_id"], "seat": answer["seat"], "token": answer["token"]},
        )
    return _answer(player, state)
