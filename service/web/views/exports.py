"""Replay exports: ask for one (a job), then download it; a client app's archived
games, streamed."""

from __future__ import annotations

import base64
from itertools import chain
from typing import Any

from flask import Response, request
from flask_smorest import Blueprint

from schemas.bots import ExportJobSchema, ExportRequestSchema
from schemas.games import GameExportQuerySchema
from service.game.problem_codes import ProblemCode
from service.game.problems import Problem, Unauthorized
from service.game.replay_export import EXTENSIONS
from service.jobs.queues import JobReport, enqueue_export, report
from service.web import examples
from service.web.archive_export import archive_query, export_lines
from service.web.callers import client_app
from service.web.idempotency import idempotent
from service.web.job_admission import export_admission
from service.web.operations import BODY, CLIENT_KEY, GAME, SEAT_OR_SPECTATOR, V1, operation
from service.web.render import bearer_token
from service.web.services import games, queues, services

blp = Blueprint("exports", __name__, url_prefix="/v1", description="Replay exports")

_JOB_LOCATION = {"Location": {"description": "The job to poll", "schema": {"type": "string"}}}
_DOWNLOAD_HEADERS = {
    "ETag": {"description": "The SHA-256 of the bytes, quoted", "schema": {"type": "string"}},
    "Repr-Digest": {
        "description": "RFC 9530: `sha-256=:<base64 of the SHA-256>:`",
        "schema": {"type": "string"},
    },
    "Content-Disposition": {
        "description": '`attachment; filename="<game_id>.<json|ndjson|txt>"`',
        "schema": {"type": "string"},
    },
}
#: Per format of the export request, what the download is.
_DOWNLOAD_CONTENT = {
    "application/json": {
        "schema": {"$ref": "#/components/schemas/ReplayExport"},
        "example": examples.REPLAY_EXPORT,
    },
    "application/x-ndjson": {
        "schema": {"type": "string", "description": "One event of the replay per line"}
    },
    "text/plain": {"schema": {"type": "string", "description": "One line per trick"}},
}
#: A client's export: NDJSON, whose lines OpenAPI 3.1 cannot type (3.2's `itemSchema` is
#: refused by 3.1 validators); `contentSchema` names the schema of each line, a component
#: every generated client has a type for.
_GAMES_CONTENT = {
    "application/x-ndjson": {
        "schema": {
            "type": "string",
            "description": "One GameExportLine of JSON per line, newest game first",
            "contentSchema": {"$ref": "#/components/schemas/GameExportLine"},
        },
        "example": examples.GAME_EXPORT,
    }
}


@blp.route("/games/<game_id>/exports", methods=["POST"])
@blp.arguments(ExportRequestSchema, required=False, example=examples.EXPORT)
@blp.response(202, ExportJobSchema, headers=_JOB_LOCATION, example=examples.EXPORT_JOB)
@operation(blp, "requestExport", security=SEAT_OR_SPECTATOR, problems=BODY + GAME)
@idempotent
def create_export(body: dict[str, Any], game_id: str):
    """Export the game's replay as the caller may see it (json, ndjson or text).

    Answers 202 with the job; when it is finished, its result holds the
    export's `url` and `sha256`. Once the game is over the export holds
    every deal's deck. There is one export per game, version, visibility
    (seat 0, seat 1 or a spectator) and format: asking again answers the same
    job and export (finished at once when it is built) and costs nothing. A
    new export job counts against the caller's cap (429 `too_many_jobs`,
    `SCHNAPSEN_EXPORT_JOBS_PER_CALLER_PER_HOUR`), and a full queue refuses it
    (503 `queue_full`, `SCHNAPSEN_EXPORT_QUEUE_MAX_JOBS`), both with `Retry-After`.
    """
    service = games()
    current = service.current(game_id)
    seat = service.seat_for(current, bearer_token(request))
    exports = services().exports
    job_id, export_id = enqueue_export(
        queues(),
        game_id,
        current.version,
        seat,
        body.get("format", "json"),
        secret=service.secret,
        stored=exports.exists,
        admit=export_admission(),
    )
    # None: another request is enqueueing this very job at this instant.
    found = report(queues(), job_id) or JobReport(job_id, "queued")
    answer = {**found.to_dict(), "export_id": export_id, "export_url": f"/v1/exports/{export_id}"}
    return answer, 202, {"Location": f"/v1/jobs/{job_id}"}


@blp.route("/exports/<export_id>", methods=["GET"])
@blp.response(200, description="The export's bytes, in its format", headers=_DOWNLOAD_HEADERS)
@operation(blp, "downloadExport", security=SEAT_OR_SPECTATOR, problems=GAME)
@blp.doc(responses={200: {"content": _DOWNLOAD_CONTENT}})
def download_export(export_id: str):
    """Download an export; one made for a seat needs that seat's token.

    An export is kept an hour after it is built; then 404 `export_not_found`,
    and asking for it again (`requestExport`) builds the same export again.

    Headers: the format's content type, `ETag` and `Repr-Digest` (SHA-256).
    """
    export = services().exports.load(export_id)
    if export is None:
        raise Problem(f"there is no export {export_id!r}", code=ProblemCode.EXPORT_NOT_FOUND)
    if export.viewer is not None:
        service = games()
        seat = service.seat_for(service.current(export.game_id), bearer_token(request))
        if seat != export.viewer:
            raise Unauthorized(f"this export was made for seat {export.viewer}: send its token")
    digest = base64.b64encode(bytes.fromhex(export.sha256)).decode()
    extension = EXTENSIONS[export.export_format]
    return Response(
        export.body,
        content_type=export.content_type,
        headers={
            "ETag": f'"{export.sha256}"',
            "Repr-Digest": f"sha-256=:{digest}:",
            "Content-Disposition": f'attachment; filename="{export.game_id}.{extension}"',
        },
    )


@blp.route("/games/export", methods=["GET"])
@blp.arguments(GameExportQuerySchema, location="query", unknown=None)  # the schema's RAISE
@blp.response(200, description="The games, one JSON line each")
@operation(blp, "exportGames", security=CLIENT_KEY, problems=V1 + (400, 422))
@blp.doc(responses={200: {"content": _GAMES_CONTENT}})
def export_games(query: dict[str, Any]):
    """Stream the caller's archived games as NDJSON, newest first, each with its replay.

    `client=me` names the caller's client app (its key as `X-Client-Key` or
    `Authorization: Bearer`); without a key: 401. One line per game, a
    `GameExportLine`: its id, creation and end times, variant, status and
    its whole replay, exactly as `GET /v1/games/{game_id}/replay` answers a
    spectator. Only archived games are exported (games move to the archive
    shortly after they end); a server without an archive answers 503
    `archive_unavailable`. `since` (inclusive) and `until` (exclusive) bound
    the games' creation times; `max` bounds the number of games.
    """
    client = client_app("exporting your games")
    archive = services().archive
    if archive is None:
        raise Problem(
            "this server keeps no archive of finished games, so it has no export of them",
            code=ProblemCode.ARCHIVE_UNAVAILABLE,
        )
    records = archive.scan(archive_query(client.id, query), limit=query["max"])
    lines = export_lines(records)
    # The first line is built before the answer starts: an archive that fails (or a
    # row that does not decode) then answers a problem, not a cut-off 200.
    first = next(lines, None)
    body = lines if first is None else chain([first], lines)
    return Response(body, mimetype="application/x-ndjson", headers={"Cache-Control": "no-store"})
