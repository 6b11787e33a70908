"""Tournaments: an app makes a Swiss or an arena for its players, who join and withdraw
(an arena's pause and come back); anyone of the app reads it, its standings and its
boards (docs/api.md, "Tournaments").

The tournament lasts in the database of record (``service.store.tournament_records``);
its rounds are paired by a worker (``workers.tournaments``), the first at the start this
view schedules, each later one when the round before has ended. An arena's pairings are
made by a worker as games end and players join (``workers.arenas``), until the end this
view schedules too.
"""

from __future__ import annotations

import contextlib
import secrets
import time
from datetime import UTC, datetime
from typing import Any

from flask_smorest import Blueprint

from schemas.tournaments import (
    BoardsSchema,
    CreateTournamentSchema,
    EntrySchema,
    StandingsQuerySchema,
    StandingsSchema,
    TournamentListSchema,
    TournamentSchema,
)
from service.engine import Variant
from service.game.players import Player
from service.game.pools import Pool, pool_of
from service.game.problem_codes import ProblemCode
from service.game.problems import Conflict, GameNotFound, Problem
from service.jobs.tournaments import schedule_end, schedule_round
from service.store.tournament_records import (
    MAX_UNFINISHED_PER_APP,
    Tournament,
    TournamentKind,
    TournamentRecords,
    TournamentStatus,
)
from service.web import examples
from service.web.callers import client_app, player_or_client, required_player
from service.web.idempotency import idempotent
from service.web.operations import BODY, CLIENT_KEY, PLAYER, PLAYER_OR_APP, V1, operation
from service.web.services import games, queues, services
from service.web.time_controls import clock_body, time_control

blp = Blueprint("tournaments", __name__, url_prefix="/v1", description="Tournaments")

_TOURNAMENT = V1 + (404,)


def _records() -> TournamentRecords:
    records = services().tournaments
    if records is None:
        raise Problem(
            "tournaments last in the database of record, which this server has not",
            code=ProblemCode.TOURNAMENTS_UNAVAILABLE,
        )
    return records


def app_tournament(app: str, tournament_id: str) -> Tournament:
    """A tournament of ``app``; 404 for any other id (another app's do not exist here)."""
    found = _records().get(tournament_id)
    if found is None or found.app != app:
        raise Problem(
            f"your app has no tournament {tournament_id!r}",
            code=ProblemCode.TOURNAMENT_NOT_FOUND,
        )
    return found


def _view(tournament: Tournament, players: int | None = None) -> dict[str, Any]:
    if players is None:
        players = sum(entry.playing for entry in _records().entries(tournament.id))
    return {
        "tournament_id": tournament.id,
        "name": tournament.name,
        "kind": tournament.kind,
        "variant": tournament.variant,
        "clock": tournament.clock,
        "rounds": tournament.rounds,
        "round": tournament.round,
        "duration": None
        if tournament.ends_ms is None
        else (tournament.ends_ms - tournament.starts_ms) // 1000,
        "ends_at": None if tournament.ends_ms is None else tournament.ends_ms / 1000,
        "status": tournament.status.value,
        "starts_at": tournament.starts_ms / 1000,
        "created": tournament.created_ms / 1000,
        "players": players,
    }


def tournament_pool(tournament: Tournament) -> Pool:
    """The pool its games are rated in (their variant's and clock's): its entrants are
    seeded by their ratings there."""
    return pool_of(Variant(tournament.variant), time_control(tournament.clock))


def _open(tournament: Tournament) -> None:
    """409 once no round is left to enter or leave: finished, or its last round paired (an
    arena: its time is up)."""
    if tournament.arena:
        over = tournament.over_at(int(time.time() * 1000))
    else:
        over = tournament.round >= tournament.rounds
    if tournament.status is TournamentStatus.FINISHED or over:
        raise Conflict(
            f"tournament {tournament.id} has no round left to enter or leave",
            code=ProblemCode.TOURNAMENT_FINISHED,
        )


@blp.route("/tournaments", methods=["POST"])
@blp.arguments(CreateTournamentSchema, example=examples.TOURNAMENT_REQUEST)
@blp.response(201, TournamentSchema, example=examples.TOURNAMENT)
@operation(blp, "createTournament", security=CLIENT_KEY, problems=BODY + (409,))
@idempotent
def create_tournament(body: dict[str, Any]):
    """Create a Swiss or an arena tournament for your app's players (with your client key).

    Its players join (`POST /v1/tournaments/{id}/entries`, with their tokens)
    before its start and between rounds. A worker pairs a Swiss's first round at
    `starts_in` seconds after its creation, each later round once every game of the round before has
    ended, and ends the tournament after its last round. An arena starts at
    `starts_in` and lasts `duration` seconds: its players join, pause and come back at
    any time, and whoever is free is paired at once with a free player close in the
    standings; games started before its end are played out and count. Its games are
    ordinary rated games, with the tournament's variant and clock.
    """
    app = client_app("creating a tournament")
    now = time.time()
    clock = clock_body(time_control(body.get("clock")))
    starts_ms = int((now + body["starts_in"]) * 1000)
    arena = body["kind"] == TournamentKind.ARENA.value
    tournament = Tournament(
        id="tn_" + secrets.token_hex(8),
        app=app.id,
        kind=body["kind"],
        name=body["name"],
        variant=body["variant"],
        clock=clock,
        rounds=0 if arena else body["rounds"],
        starts_ms=starts_ms,
        created_ms=int(now * 1000),
        ends_ms=starts_ms + body["duration"] * 1000 if arena else None,
    )
    records = _records()
    if records.unfinished(app.id) >= MAX_UNFINISHED_PER_APP:
        raise Problem(
            f"your app holds {MAX_UNFINISHED_PER_APP} tournaments not finished",
            code=ProblemCode.TOO_MANY_TOURNAMENTS,
        )
    records.create(tournament)
    schedule_round(
        queues(), tournament.id, 1, datetime.fromtimestamp(tournament.starts_ms / 1000, UTC)
    )
    if tournament.ends_ms is not None:
        schedule_end(
            queues(), tournament.id, datetime.fromtimestamp(tournament.ends_ms / 1000, UTC)
        )
    return _view(tournament, 0), 201, {"Location": f"/v1/tournaments/{tournament.id}"}


@blp.route("/tournaments/<tournament_id>", methods=["GET"])
@blp.response(200, TournamentSchema, example=examples.TOURNAMENT)
@operation(blp, "getTournament", security=PLAYER_OR_APP, problems=_TOURNAMENT)
def get_tournament(tournament_id: str):
    """A tournament of the caller's app (by a player's token or the app's key)."""
    app, _player = player_or_client("reading a tournament")
    return _view(app_tournament(app, tournament_id))


@blp.route("/tournaments/<tournament_id>/entries", methods=["POST"])
@blp.response(201, EntrySchema, example=examples.ENTRY)
@operation(blp, "joinTournament", security=PLAYER, problems=_TOURNAMENT + (409,))
@idempotent
def join_tournament(tournament_id: str):
    """Enter a tournament of your app (again, after a withdrawal): you are paired from
    its next round; in an arena (again after a pause), as soon as another player is free.
    Entering twice changes nothing. A retry with the same
    `Idempotency-Key` answers the first answer again and enters nobody again (after a
    withdrawal in between, you stay withdrawn)."""
    player = required_player()
    tournament = app_tournament(player.app, tournament_id)
    _open(tournament)
    rating = player.rating_in(tournament_pool(tournament)).rating
    _records().join(tournament.id, player.id, rating, int(time.time() * 1000))
    if tournament.arena and tournament.status is TournamentStatus.STARTED:
        schedule_round(queues(), tournament.id, tournament.round + 1, datetime.now(UTC))
    return _entry(tournament, player, "entered"), 201


@blp.route("/tournaments/<tournament_id>/entries/me", methods=["DELETE"])
@blp.response(200, EntrySchema, example={**examples.ENTRY, "status": "withdrawn"})
@operation(blp, "withdrawFromTournament", security=PLAYER, problems=_TOURNAMENT + (409,))
def withdraw_from_tournament(tournament_id: str):
    """Withdraw: you are paired in no later round; your results stay in the standings.
    A game of yours being played is played out. In an arena this is a pause (status
    `paused`): enter again to be paired again."""
    player = required_player()
    tournament = app_tournament(player.app, tournament_id)
    _open(tournament)
    if _records().withdraw(tournament.id, player.id, int(time.time() * 1000)) is None:
        raise Conflict(
            f"you have no entry in tournament {tournament.id}", code=ProblemCode.NOT_ENTERED
        )
    return _entry(tournament, player, "paused" if tournament.arena else "withdrawn")


def _entry(tournament: Tournament, player: Player, status: str) -> dict[str, Any]:
    return {"tournament_id": tournament.id, "player_id": player.id, "status": status}


@blp.route("/tournaments/<tournament_id>/standings", methods=["GET"])
@blp.arguments(StandingsQuerySchema, location="query")
@blp.response(200, StandingsSchema, example=examples.STANDINGS)
@operation(blp, "getTournamentStandings", security=PLAYER_OR_APP, problems=_TOURNAMENT + (422,))
def get_tournament_standings(query: dict[str, Any], tournament_id: str):
    """The standings, best first, a page at a time (`offset`, `limit`): points, then
    Buchholz, Sonneborn-Berger and wins (docs/tournaments.md)."""
    app, _player = player_or_client("reading a tournament")
    tournament = app_tournament(app, tournament_id)
    rows, total = _records().standings(tournament.id, query["offset"], query["limit"])
    return {
        "tournament_id": tournament.id,
        "total": total,
        "standings": [
            {
                "rank": r.rank,
                "player_id": r.player,
                "points": r.points,
                "buchholz": r.buchholz,
                "sonneborn_berger": r.sonneborn_berger,
                "wins": r.wins,
                "games": r.games,
                "byes": r.byes,
            }
            for r in rows
        ],
    }


@blp.route("/tournaments/<tournament_id>/boards", methods=["GET"])
@blp.response(200, BoardsSchema, example=examples.BOARDS)
@operation(blp, "getTournamentBoards", security=PLAYER_OR_APP, problems=_TOURNAMENT)
def get_tournament_boards(tournament_id: str):
    """The boards of the latest round paired (an arena: every board being played): each
    an ordinary game to read or watch. A player's own board also carries the player's
    seat and seat token."""
    app, player = player_or_client("reading a tournament")
    tournament = app_tournament(app, tournament_id)
    paired = None if tournament.arena else _records().paired_round(tournament.id, tournament.round)
    shown_boards = _records().in_play(tournament.id) if tournament.arena else ()
    boards: list[dict[str, Any]] = []
    for board in shown_boards if paired is None else paired.boards:
        shown: dict[str, Any] = {
            "round": board.round,
            "board": board.board,
            "game_id": board.game_id,
            "dealer": board.dealer,
            "forehand": board.forehand,
            "winner": board.winner,
        }
        if player is not None and player.id in (board.dealer, board.forehand):
            seat = 0 if player.id == board.dealer else 1
            with contextlib.suppress(GameNotFound):  # the worker makes it in a moment
                current = games().current(board.game_id)
                shown.update(seat=seat, token=games().paired_token(current, seat))
        boards.append(shown)
    return {
        "tournament_id": tournament.id,
        "round": tournament.round,
        "bye": None if paired is None else paired.bye,
        "boards": boards,
    }


@blp.route("/players/me/tournaments", methods=["GET"])
@blp.response(200, TournamentListSchema, example=examples.TOURNAMENT_LIST)
@operation(blp, "listOwnTournaments", security=PLAYER, problems=V1)
def list_own_tournaments():
    """The tournaments you entered, the latest first (at most 50)."""
    player = required_player()
    return {"tournaments": [_view(t) for t in _records().of_player(player.id)]}
