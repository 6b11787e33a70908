"""Bots as a service (any position), hints for a seat, and the jobs resource."""

from __future__ import annotations

import re
from typing import Any

from flask import request
from flask_smorest import Blueprint

from schemas.bots import (
    DEFAULT_LEVEL,
    BotLevelsSchema,
    BotMoveRequestSchema,
    HintJobSchema,
    HintRequestSchema,
    JobSchema,
    MoveJobSchema,
    WaitQuerySchema,
)
from service.bots.catalog import describe_levels
from service.engine.knowledge import seat_view
from service.engine.position import PositionError, position_from_view, view_from_position
from service.game.problem_codes import ProblemCode
from service.game.problems import Conflict, Forbidden, InvalidRequest, Problem
from service.game.seeds import bot_seed
from service.jobs.queues import enqueue_decision, wait_for_report
from service.web import examples
from service.web.idempotency import idempotent
from service.web.job_admission import decision_admission
from service.web.operations import ANYONE, BODY, CLIENT, GAME, SEAT, V1, operation
from service.web.render import bearer_token
from service.web.services import games, job_watcher, queues, settings

blp = Blueprint("bots", __name__, url_prefix="/v1", description="Bot moves as a service")

#: The ids RQ 3 accepts (letters, digits, "_" and "-"), no longer than any id given out.
_JOB_ID = re.compile(r"[A-Za-z0-9_-]{1,128}")
_JOB_LOCATION = {"Location": {"description": "The job to poll", "schema": {"type": "string"}}}


def capped_budget(requested: int | None) -> int | None:
    """The think time a decision gets: at most the service's cap, so that one caller
    cannot hold a worker for long (None: the level's default)."""
    cap = settings().bot_service_max_budget_ms
    if requested is None or not cap:
        return requested
    return min(requested, cap)


@blp.route("/bot/levels", methods=["GET"])
@blp.response(200, BotLevelsSchema, example=examples.BOT_LEVELS)
@operation(blp, "listBotLevels", security=ANYONE, problems=V1)
def bot_levels():
    """The bot levels, weakest first: a line each, think time, and measured strength.

    Strength is each level's Elo on the ladder (`random` at 0) and its result
    against the next weaker one (a round robin of duplicate games to 7,
    `benchmarks/ladder.py`); null where nothing was measured.
    `max_budget_ms` is this server's cap on `budget_ms`
    (`SCHNAPSEN_BOT_SERVICE_MAX_BUDGET_MS`).
    """
    cap = settings().bot_service_max_budget_ms or 10_000  # the schema's own maximum
    return describe_levels(cap, DEFAULT_LEVEL)


@blp.route("/bot/moves", methods=["POST"])
@blp.arguments(BotMoveRequestSchema, example=examples.BOT_MOVE)
@blp.arguments(WaitQuerySchema, location="query")
@blp.response(
    202, MoveJobSchema, headers=_JOB_LOCATION, example={**examples.MOVE_JOB, "status": "queued"}
)
@blp.alt_response(
    200,
    schema=MoveJobSchema,
    description="The decision, ready within `wait`",
    example=examples.MOVE_JOB,
)
@operation(blp, "requestBotMove", security=CLIENT, problems=BODY)
@idempotent
def bot_move(body: dict[str, Any], query: dict[str, Any]):
    """The bot's move for a position as one seat sees it.

    Answers 202 with the job to poll at `Location`; with `?wait=S`, answers
    200 with the decision when it is ready within S seconds. An impossible
    position answers 422 naming what is wrong. A `budget_ms` above the
    service's cap (`SCHNAPSEN_BOT_SERVICE_MAX_BUDGET_MS`) is clamped to it.
    A caller's bot moves and hints queued or running share a budget of think
    time and a count (`SCHNAPSEN_DECISION_MS_PER_CALLER`,
    `SCHNAPSEN_DECISIONS_PER_CALLER`); one more is 429 `too_many_decisions`
    with `Retry-After`, so no caller holds the workers from the others.
    """
    try:
        view_from_position(body["position"])
    except PositionError as error:
        raise InvalidRequest(
            str(error),
            code=ProblemCode.IMPOSSIBLE_POSITION,
            extra={"errors": {error.field: [error.message]}},
        ) from None
    budget_ms = capped_budget(body.get("budget_ms"))
    job_id = enqueue_decision(
        queues(),
        body["position"],
        body["level"],
        seed=body["seed"],
        budget_ms=budget_ms,
        admit=decision_admission(body["level"], budget_ms),
    )
    return _job_answer(job_id, query["wait"])


@blp.route("/games/<game_id>/hint", methods=["POST"])
@blp.arguments(HintRequestSchema, required=False, example=examples.HINT)
@blp.arguments(WaitQuerySchema, location="query")
@blp.response(202, HintJobSchema, headers=_JOB_LOCATION, example=examples.HINT_JOB)
@blp.alt_response(
    200,
    schema=HintJobSchema,
    description="The hint, ready within `wait`",
    example={**examples.HINT_JOB, "status": "finished", "result": examples.DECISION},
)
@operation(blp, "requestHint", security=SEAT, problems=BODY + GAME + (403, 409))
@idempotent
def hint(body: dict[str, Any], query: dict[str, Any], game_id: str):
    """What a bot would play in the caller's seat now (the seat's view only).

    Hints share the caller's budget with `POST /v1/bot/moves` (429
    `too_many_decisions`), and the seat's own: one seat's token sent from
    many addresses holds no more of the workers than one caller. A seat
    of a rated game gets no hint (403 `rated_game_no_help`, RX5).
    """
    service = games()
    current = service.current(game_id)
    seat = service.seat_for(current, bearer_token(request))
    if seat is None:
        raise Problem("a hint is for a seat: send its token", code=ProblemCode.TOKEN_REQUIRED)
    if current.seats.rated:
        raise Forbidden(
            "a rated game gets no help from the service's bots (RX5)",
            code=ProblemCode.RATED_GAME_NO_HELP,
            extra={"rule": "RX5"},
        )
    if current.state.to_move != seat:
        raise Conflict("it is not your turn", code=ProblemCode.NOT_YOUR_TURN)
    position = position_from_view(seat_view(current.state, seat))
    level = body.get("level", DEFAULT_LEVEL)
    budget_ms = capped_budget(body.get("budget_ms"))
    job_id = enqueue_decision(
        queues(),
        position,
        level,
        seed=bot_seed(game_id, current.version, service.secret),
        budget_ms=budget_ms,
        kind="hint",
        admit=decision_admission(level, budget_ms, also=[f"seat:{game_id}:{seat}"]),
    )
    return _job_answer(job_id, query["wait"])


@blp.route("/jobs/<job_id>", methods=["GET"])
@blp.arguments(WaitQuerySchema, location="query")
@blp.response(200, JobSchema, example=examples.MOVE_JOB)
@operation(blp, "getJob", security=ANYONE, problems=GAME + (422,))
def get_job(query: dict[str, Any], job_id: str):
    """A job's status and, once finished, its result."""
    wait = min(query["wait"], settings().job_wait_max_seconds)
    # RQ raises on ids outside its alphabet (and reads "a:b" as job "a"): such ids name no job.
    if not _JOB_ID.fullmatch(job_id):
        found = None
    else:
        found = wait_for_report(queues(), job_watcher(), job_id, wait)
    if found is None:
        raise Problem(f"there is no job {job_id!r}", code=ProblemCode.JOB_NOT_FOUND)
    return found.to_dict()


def _job_answer(job_id: str, wait: float):
    wait = min(wait, settings().job_wait_max_seconds)
    found = wait_for_report(queues(), job_watcher(), job_id, wait)
    assert found is not None
    headers = {"Location": f"/v1/jobs/{job_id}"}
    status = 200 if found.status in ("finished", "failed") and wait > 0 else 202
    return found.to_dict(), status, headers
