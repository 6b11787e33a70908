"""Challenges: a player asks a named player of its own app to play; the other accepts
or declines (``service.store.challenges``; docs/api.md, "Challenges")."""

from __future__ import annotations

import time
from typing import Any

from flask_smorest import Blueprint

from schemas.players import (
    ChallengeListSchema,
    ChallengeRequestSchema,
    ChallengeSchema,
    SeekWaitQuerySchema,
)
from service.engine import Variant
from service.game.clock import TimeControl
from service.game.players import Player
from service.game.problem_codes import ProblemCode
from service.game.problems import Conflict, GameNotFound, Problem
from service.store.challenges import (
    Challenge,
    ChallengeStatus,
    TooManyChallenges,
    UnknownChallenge,
)
from service.store.players import UnknownPlayer
from service.web import examples
from service.web.callers import required_player
from service.web.idempotency import idempotent
from service.web.operations import BODY, PLAYER, V1, operation
from service.web.services import games, services
from service.web.time_controls import clock_body, time_control

blp = Blueprint("challenges", __name__, url_prefix="/v1", description="Challenges")

#: How often a waiting request reads its challenge again (s).
POLL_SECONDS = 0.25
_ONE = V1 + (404,)


def _not_found(challenge_id: str) -> Problem:
    return Problem(f"you have no challenge {challenge_id!r}", code=ProblemCode.CHALLENGE_NOT_FOUND)


def _own(player: Player, challenge_id: str) -> Challenge:
    """The challenge, if the player made or received it; 404 for anybody else."""
    try:
        challenge = services().challenges.get(player.app, challenge_id)
    except UnknownChallenge:
        raise _not_found(challenge_id) from None
    if player.id not in (challenge.challenger, challenge.challenged):
        raise _not_found(challenge_id)
    return challenge


def _answer(player: Player, challenge: Challenge) -> dict[str, Any]:
    """The challenge as one of its two players sees it; once accepted, the game (made here
    if not yet) and this player's seat and token in it."""
    clock = TimeControl.decode(challenge.clock) if challenge.clock else None
    body: dict[str, Any] = {
        "challenge_id": challenge.id,
        "challenger": challenge.challenger,
        "challenged": challenge.challenged,
        "variant": challenge.variant,
        "rated": challenge.rated,
        "clock": clock_body(clock),
        "status": challenge.status.value,
        "game_id": None,
        "seat": None,
        "token": None,
    }
    seat = challenge.seat_of(player.id)
    accepted = challenge.status is ChallengeStatus.ACCEPTED and challenge.nonces is not None
    if accepted and challenge.game_id and seat is not None and challenge.nonces is not None:
        first = challenge.challenger if challenge.challenger_seat == 0 else challenge.challenged
        second = challenge.challenged if first == challenge.challenger else challenge.challenger
        try:
            current = games().current(challenge.game_id)
        except GameNotFound:
            current = games().create_paired(
                challenge.game_id,
                player.app,
                (first, second),
                Variant(challenge.variant),
                challenge.rated,
                clock,
                via="challenge",
                nonces=challenge.nonces,
            )
            services().players.played(
                player.app, [first, second], challenge.game_id, int(time.time() * 1000)
            )
        body.update(
            game_id=challenge.game_id,
            seat=seat,
            token=games().paired_token(current, seat),
        )
    return body


@blp.route("/challenges", methods=["POST"])
@blp.arguments(ChallengeRequestSchema, example=examples.CHALLENGE)
@blp.response(201, ChallengeSchema, example=examples.CHALLENGE_OFFERED)
@operation(blp, "createChallenge", security=PLAYER, problems=BODY + (404, 409))
@idempotent
def create_challenge(body: dict[str, Any]):
    """Challenge a named player of your app; it accepts or declines.

    A challenge stands `SCHNAPSEN_CHALLENGE_SECONDS` (600); wait on it with
    `GET /v1/challenges/{id}?wait=30` to learn the answer, and, once
    accepted, your seat and token in the game.
    """
    player = required_player()
    opponent = body["player_id"]
    if opponent == player.id:
        raise Conflict("you cannot challenge yourself", code=ProblemCode.CHALLENGE_SELF)
    try:
        services().players.get(player.app, opponent)
    except UnknownPlayer:
        raise Problem(
            f"your app has no player {opponent!r}", code=ProblemCode.PLAYER_NOT_FOUND
        ) from None
    try:
        control = time_control(body.get("clock"))
        challenge = services().challenges.make(
            player.app,
            player.id,
            opponent,
            body.get("variant", "head"),
            body.get("rated", False),
            None if control is None else control.encode(),
        )
    except TooManyChallenges:
        raise Problem(
            "you have as many open challenges as you may make (wait for answers or cancel "
            "some), or made as many today as you may",
            code=ProblemCode.TOO_MANY_CHALLENGES,
        ) from None
    headers = {"Location": f"/v1/challenges/{challenge.id}"}
    return _answer(player, challenge), 201, headers


@blp.route("/challenges", methods=["GET"])
@blp.response(200, ChallengeListSchema, example=examples.CHALLENGE_LIST)
@operation(blp, "listChallenges", security=PLAYER, problems=V1)
def list_challenges():
    """Your challenges, made and received, newest first (the open ones and those of the
    last day)."""
    player = required_player()
    found = services().challenges.of_player(player.app, player.id)
    return {"challenges": [_answer(player, challenge) for challenge in found]}


@blp.route("/challenges/<challenge_id>", methods=["GET"])
@blp.arguments(SeekWaitQuerySchema, location="query")
@blp.response(200, ChallengeSchema, example=examples.CHALLENGE_ACCEPTED)
@operation(blp, "getChallenge", security=PLAYER, problems=_ONE + (422,))
def get_challenge(query: dict[str, Any], challenge_id: str):
    """A challenge you made or received; with `wait=S`, wait up to S seconds (at most 30)
    while it is offered."""
    player = required_player()
    challenge = _own(player, challenge_id)
    deadline = time.monotonic() + query["wait"]
    while challenge.status is ChallengeStatus.OFFERED and time.monotonic() < deadline:
        time.sleep(min(POLL_SECONDS, max(0.0, deadline - time.monotonic())))
        challenge = _own(player, challenge_id)
    return _answer(player, challenge)


def _decide(challenge_id: str, what: str) -> tuple[Player, Challenge]:
    player = required_player()
    _own(player, challenge_id)
    store = services().challenges
    change = {"accept": store.accept, "decline": store.decline, "cancel": store.cancel}[what]
    try:
        return player, change(player.app, challenge_id, player.id)
    except UnknownChallenge:
        raise _not_found(challenge_id) from None


def _refused(challenge: Challenge, what: str) -> Conflict:
    return Conflict(
        f"this challenge is {challenge.status.value}: it cannot be {what} now",
        code=ProblemCode.CHALLENGE_CLOSED,
        extra={"status": challenge.status.value},
    )


@blp.route("/challenges/<challenge_id>/accept", methods=["POST"])
@blp.response(201, ChallengeSchema, example=examples.CHALLENGE_ACCEPTED)
@operation(blp, "acceptChallenge", security=PLAYER, problems=_ONE + (409,))
@idempotent
def accept_challenge(challenge_id: str):
    """Accept a challenge made to you: answers the game, your seat and your token (the
    same again when asked again)."""
    player, challenge = _decide(challenge_id, "accept")
    if challenge.status is not ChallengeStatus.ACCEPTED or player.id != challenge.challenged:
        raise _refused(challenge, "accepted by you")
    return _answer(player, challenge), 201, {"Location": f"/v1/games/{challenge.game_id}"}


@blp.route("/challenges/<challenge_id>/decline", methods=["POST"])
@blp.response(200, ChallengeSchema, example={**examples.CHALLENGE_OFFERED, "status": "declined"})
@operation(blp, "declineChallenge", security=PLAYER, problems=_ONE + (409,))
@idempotent
def decline_challenge(challenge_id: str):
    """Decline a challenge made to you."""
    player, challenge = _decide(challenge_id, "decline")
    if challenge.status is not ChallengeStatus.DECLINED or player.id != challenge.challenged:
        raise _refused(challenge, "declined by you")
    return _answer(player, challenge)


@blp.route("/challenges/<challenge_id>", methods=["DELETE"])
@blp.response(200, ChallengeSchema, example={**examples.CHALLENGE_OFFERED, "status": "cancelled"})
@operation(blp, "cancelChallenge", security=PLAYER, problems=_ONE + (409,))
def cancel_challenge(challenge_id: str):
    """Cancel a challenge you made, while it is offered."""
    player, challenge = _decide(challenge_id, "cancel")
    if challenge.status is not ChallengeStatus.CANCELLED or player.id != challenge.challenger:
        raise _refused(challenge, "cancelled by you")
    return _answer(player, challenge)
