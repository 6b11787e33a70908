"""Post-game analysis: ask for it (a job with progress), then read it."""

from __future__ import annotations

from typing import Any

from flask import request
from flask_smorest import Blueprint

from schemas.analysis import AnalysisQuerySchema, AnalysisRequestSchema, AnalysisSchema
from schemas.bots import AnalysisJobSchema
from service.analysis import review as analysis
from service.analysis.scope import Scope, scope
from service.game.problem_codes import ProblemCode
from service.game.problems import Problem
from service.jobs.queues import JobReport, enqueue_analysis, report
from service.store.analyses import Analyses
from service.web import examples
from service.web.idempotency import idempotent
from service.web.job_admission import export_admission
from service.web.operations import BODY, GAME, SEAT_OR_SPECTATOR, operation
from service.web.render import bearer_token
from service.web.services import games, queues, services

blp = Blueprint("analysis", __name__, url_prefix="/v1", description="Post-game analysis")

_JOB_LOCATION = {"Location": {"description": "The job to poll", "schema": {"type": "string"}}}


def _store() -> Analyses:
    return services().analyses


def _scope(game_id: str, seat: int | None, deals: list[int] | None) -> Scope:
    service = games()
    current = service.current(game_id)
    caller = service.seat_for(current, bearer_token(request))
    return scope(current.state, caller, seat=seat, deals=deals, rated=current.seats.rated)


@blp.route("/games/<game_id>/analysis", methods=["POST"])
@blp.arguments(AnalysisRequestSchema, required=False, example=examples.ANALYSIS_REQUEST)
@blp.response(202, AnalysisJobSchema, headers=_JOB_LOCATION, example=examples.ANALYSIS_JOB)
@operation(blp, "requestAnalysis", security=SEAT_OR_SPECTATOR, problems=BODY + GAME + (403, 409))
@idempotent
def request_analysis(body: dict[str, Any], game_id: str):
    """Analyse the game's decisions (a job): each legal action valued from the seat's view.

    A finished game: anyone, every deal and both seats by default. During a
    game: a seat, for its own decisions of the finished deals only; the
    opponent's decisions (403 `analysis_not_allowed`) and the deal being
    played (409 `deal_not_finished`) are refused, and a rated game is not
    analysed before its end (403 `rated_game_no_help`, RX5). A deal the game
    has not dealt is not found (404 `unknown_deal`), as a game never made is:
    how many deals there are is the game's state. Answers 202 with the job;
    `GET /v1/jobs/{id}` reports its `progress` (0 to 1), and once it is
    finished `GET /v1/games/{game_id}/analysis` serves the analysis. Parts
    analysed before are cached (they cannot change) and not valued again.
    A request while the same job is queued or running joins it; a new job
    counts against the caller's cap on export and analysis jobs (429
    `too_many_jobs`), and a full queue refuses it (503 `queue_full`), both
    with `Retry-After`.
    """
    found = _scope(game_id, body.get("seat"), body.get("deals"))
    job_id = enqueue_analysis(queues(), game_id, list(found.parts), admit=export_admission())
    # None: another request is enqueueing this very job at this instant.
    reported = report(queues(), job_id) or JobReport(job_id, "queued")
    answer = {**reported.to_dict(), "analysis_url": f"/v1/games/{game_id}/analysis"}
    answer.setdefault("progress", 0.0)
    return answer, 202, {"Location": f"/v1/jobs/{job_id}"}


@blp.route("/games/<game_id>/analysis", methods=["GET"])
@blp.arguments(AnalysisQuerySchema, location="query")
@blp.response(200, AnalysisSchema, example=examples.ANALYSIS)
@operation(blp, "getAnalysis", security=SEAT_OR_SPECTATOR, problems=GAME + (403, 409, 422))
def get_analysis(query: dict[str, Any], game_id: str):
    """The game's analysis, as far as the caller may read it (see `requestAnalysis`).

    Every decision with each legal action's value in expected game points
    for the deciding seat, the best action beside the chosen one, the loss
    and its label (thresholds in `thresholds`), and accuracy per seat and per
    seat and deal. 404 `analysis_not_found` until it was requested and the
    job finished, and for a deal the game has not dealt.
    """
    try:
        found = _scope(game_id, query.get("seat"), query.get("deal"))
    except Problem as refused:
        if refused.code != ProblemCode.UNKNOWN_DEAL:
            raise
        # A deal the game never dealt has no analysis to find (asking for one is 422).
        raise Problem(
            f"game {game_id} has no analysis of that deal: {refused.detail}",
            code=ProblemCode.ANALYSIS_NOT_FOUND,
        ) from None
    records = _store().load(game_id, found.parts)
    if records is None:
        raise Problem(
            f"game {game_id}'s analysis is not ready: POST /v1/games/{game_id}/analysis "
            "and wait for its job",
            code=ProblemCode.ANALYSIS_NOT_FOUND,
        )
    summary = analysis.summary(records)
    return {
        "game_id": game_id,
        "level": analysis.LEVEL,
        "budget_ms": analysis.BUDGET_MS,
        "game_finished": found.finished,
        "seats": list(found.seats),
        "deals": list(found.deals),
        "thresholds": analysis.thresholds(),
        "decisions": records,
        "players": summary["players"],
        "deal_accuracy": summary["deals"],
    }
