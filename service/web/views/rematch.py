"""Rematches of finished games: offer, accept, decline, and a seat's look at the offer.

Thin: the rules are ``service.game.rematch``, the commands
``service.game.rematch_service``; here the requests are read and the answers
built. Every command is idempotent by its nature (a repeated offer, accept or
decline answers the offer as it stands, and an accept always the same game and
token); with an ``Idempotency-Key``, as on every POST, a retry is answered the
first answer again (``service.web.idempotency``).
"""

from __future__ import annotations

import time
from typing import Any

from flask import jsonify
from flask_smorest import Blueprint

from schemas.games import (
    RematchLookSchema,
    RematchQuerySchema,
    RematchSchema,
    RematchSeatedSchema,
)
from service.game.notices import rematch_offered
from service.game.rematch import RematchStatus
from service.game.rematch_service import Rematch, RematchService
from service.web import examples
from service.web.callers import current_caller, seat_token
from service.web.idempotency import idempotent
from service.web.operations import GAME, SEAT, operation
from service.web.render import (
    etag,
    rematch_body,
    rematch_seated_body,
    rematch_status_body,
)
from service.web.services import games, services

blp = Blueprint(
    "rematch", __name__, url_prefix="/v1/games", description="Rematches of finished games"
)

_LOCATION_HEADER = {"Location": {"description": "The new game", "schema": {"type": "string"}}}
#: How often a long-poll on a rematch looks at the offer again (s): an offer is no append,
#: so no announcement wakes its waiters; a look is one GET of one small key.
POLL_SECONDS = 0.25
#: What a refusal of a rematch command can be: not finished, an aborted game, one's own
#: offer, no offer (409); the game has left for the archive (410).
_REFUSALS = GAME + (409, 410)


def _rematches() -> RematchService:
    return services().rematches


def _answered(rematch: Rematch):
    """201 with the new game when the offer is accepted, else 200 with the offer."""
    if rematch.seated is None:
        return rematch_body(rematch), 200
    current = rematch.seated.current
    players = [player for player in current.seats.player_ids if player]
    if players and current.seats.owner is not None:  # the rematch is in its players' lists
        services().players.played(
            current.seats.owner, players, current.game_id, int(time.time() * 1000)
        )
    # A Response of its own: the operation's main schema (the offer's) is not this one's.
    answer = jsonify(rematch_seated_body(rematch))
    answer.status_code = 201
    answer.headers["Location"] = f"/v1/games/{current.game_id}"
    answer.headers["ETag"] = etag(current.version)
    return answer


@blp.route("/<game_id>/rematch", methods=["POST"])
@blp.response(200, RematchSchema, example=examples.REMATCH_OFFERED)
@blp.alt_response(
    201,
    schema=RematchSeatedSchema,
    headers=_LOCATION_HEADER,
    example=examples.REMATCH_SEATED,
    description="The offer was an acceptance (the other seat had offered, or a bot "
    "accepts at once): the new game",
    success=True,
)
@operation(blp, "offerRematch", security=SEAT, problems=_REFUSALS)
@idempotent
def offer(game_id: str):
    """Offer a rematch of a finished game.

    Either seat, once the game is over (not after an abort). Answers the offer
    (200); an offer made again answers it again. When the other seat had
    offered already, the offer accepts it, and against a bot the bot accepts at
    once: then the answer is the new game (201), as an accept's.
    """
    rematch = _rematches().offer(game_id, seat_token())
    _tell_offer(rematch)
    return _answered(rematch)


def _tell_offer(rematch: Rematch) -> None:
    """An offer standing (not accepted at once) is a notice to the other seat's app."""
    offer = rematch.offer
    if rematch.seated is not None or offer is None or offer.offered_by is None:
        return
    if offer.status is not RematchStatus.OFFERED:
        return
    current = games().current(rematch.game_id)
    notice = rematch_offered(current, offer.offered_by, offer.number)
    if current.seats.owner is not None and notice is not None:
        services().webhook_events.tell(current.seats.owner, current, [notice])


@blp.route("/<game_id>/rematch/accept", methods=["POST"])
@blp.response(201, RematchSeatedSchema, headers=_LOCATION_HEADER, example=examples.REMATCH_SEATED)
@operation(blp, "acceptRematch", security=SEAT, problems=_REFUSALS)
@idempotent
def accept(game_id: str):
    """Accept the other seat's rematch offer: the new game, with the caller's token.

    The same seats (each keeps its number), the same variant, and the other
    seat deals first. Accepting again (or two accepts at once) answers the
    same game and token. The seat that offered: 409 `own_rematch_offer`; no
    open offer: 409 `no_rematch_offer`.
    """
    return _answered(_rematches().accept(game_id, seat_token()))


@blp.route("/<game_id>/rematch/decline", methods=["POST"])
@blp.response(200, RematchSchema, example=examples.REMATCH_DECLINED)
@operation(blp, "declineRematch", security=SEAT, problems=_REFUSALS)
@idempotent
def decline(game_id: str):
    """Decline the other seat's rematch offer; either seat may offer again later."""
    return _answered(_rematches().decline(game_id, seat_token()))


@blp.route("/<game_id>/rematch", methods=["GET"])
@blp.arguments(RematchQuerySchema, location="query")
@blp.response(200, RematchLookSchema, example=examples.REMATCH_STATUS)
@operation(blp, "getRematch", security=SEAT, problems=GAME + (422,))
def status(query: dict[str, Any], game_id: str):
    """The caller's look at its game's rematch; once accepted, its token for the new game.

    How the seat that offered learns its token: its old token here answers the
    new game's id and its new token. With `wait`, while the status is `none`
    or `offered`, the answer waits (long-poll) up to that many seconds for it
    to change.
    """
    service = _rematches()
    token = seat_token()
    wait = min(query["wait"], services().settings.long_poll_max_seconds)
    stored = service.read(game_id)
    rematch = service.status(game_id, token)
    if wait > 0 and (rematch.offer is None or rematch.offer.status.value == "offered"):
        release = services().waiting.admit(current_caller(), game_id)
        try:
            deadline = time.monotonic() + wait
            while (remaining := deadline - time.monotonic()) > 0:
                time.sleep(min(POLL_SECONDS, remaining))
                if service.read(game_id) != stored:
                    break
        finally:
            release()
        rematch = service.status(game_id, token)
    return rematch_status_body(rematch)
