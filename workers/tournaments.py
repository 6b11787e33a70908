"""A tournament's jobs (``service.jobs.tournaments``): pair a round, count a game's end.

Both are safe to run again at any point, and two at once, which is what a retried
job, a recovered ``kill -9`` and two workers racing amount to:

- a round is paired by the one job whose claim of (tournament, round) the database
  takes (``TournamentRecords.claim_round``); every run then makes the claimed round's
  games, whose ids and seat nonces come from the round's stored random seed, so a game
  is made once whoever makes it (``GameService.create_paired``);
- a game's result is kept once, and the standings written after it are the
  recomputation from every kept result (``service.competition.swiss_standings``).

A job can also be lost with a killed worker: a worker of several queues takes a job
with BLPOP, so one killed before starting it leaves the job's record saying "queued"
in no queue; one killed as it moved an overdue job out of the scheduled registry leaves
it "scheduled" in none (``service.jobs.queues.waits_nowhere``); a job out of retries
fails for good. Nothing else would ask for that round again, so the workers'
maintenance runs ``ask_what_was_lost`` (one worker every
``workers.worker.TOURNAMENT_SWEEP_SECONDS``): from the database it finds what each
started tournament waits on and asks for it again, replacing a job that waits nowhere
and leaving one that waits or runs. Asking twice is harmless, for the reasons above.
"""

from __future__ import annotations

import secrets
import time
from datetime import UTC, datetime
from typing import Any

from service.competition import Bye, Entrant, Result, pair_round, swiss_standings
from service.game.tournament_notices import NoticeBoard, finished_notice, round_notices
from service.jobs.tournaments import enqueue_game_ended, schedule_round
from service.store.tournament_records import (
    Board,
    Kept,
    StandingRow,
    Tournament,
    TournamentRecords,
    TournamentStatus,
)
from workers.arenas import arena_game_ended, ask_for_arena, pair_arena, start_arena
from workers.runtime import runtime
from workers.tournament_games import (
    game_id_of,
    game_of,
    make_games,
    results_of,
    tell,
    tournament_records,
)


def pair_tournament_round(tournament_id: str, number: int) -> dict[str, Any]:
    """Pair round ``number`` (once), make its games (once each), keep the standings. In
    an arena: its start (round 1's job), or a pairing of the players waiting
    (``workers.arenas``)."""
    records = tournament_records()
    tournament = records.get(tournament_id)
    if tournament is None or tournament.status is TournamentStatus.FINISHED:
        return {"tournament_id": tournament_id, "round": number, "paired": False}
    if tournament.arena:
        return start_arena(tournament_id) if number == 1 else pair_arena(tournament_id, number)
    if number > tournament.rounds:
        return _finish(records, tournament)
    paired = records.paired_round(tournament_id, number)
    if paired is None:
        if number > 1:
            before = records.paired_round(tournament_id, number - 1)
            if before is None or not before.over:
                return {"tournament_id": tournament_id, "round": number, "paired": False}
        _claim(records, tournament, number)
        paired = records.paired_round(tournament_id, number)
        assert paired is not None  # claimed now, by this job or another
    make_games(tournament, paired)
    save_standings(records, tournament_id)
    tell(tournament.app, round_notices(tournament_id, number, paired.bye, [
        NoticeBoard(b.board, b.game_id, b.dealer, b.forehand) for b in paired.boards
    ]))  # fmt: skip
    if paired.over:  # nobody to play (a lone player's bye): on to the next round
        schedule_round(runtime().queues, tournament_id, number + 1, datetime.now(UTC))
    return {"tournament_id": tournament_id, "round": number, "paired": True}


def _claim(records: TournamentRecords, tournament: Tournament, number: int) -> bool:
    entrants = [
        Entrant(entry.player, entry.rating)
        for entry in records.entries(tournament.id)
        if entry.playing
    ]
    results, byes = history(records, tournament.id)
    pairing = pair_round(number, entrants, results, byes)
    seed = secrets.token_hex(32)
    boards = [
        Board(number, index, game_id_of(seed, index), board.dealer, board.forehand)
        for index, board in enumerate(pairing.pairings, start=1)
    ]
    return records.claim_round(
        tournament.id, number, seed, int(time.time() * 1000), boards, pairing.bye
    )


def history(records: TournamentRecords, tournament_id: str) -> tuple[list[Result], list[Bye]]:
    """Every kept result and bye of the tournament, as the competition core reads them."""
    results = results_of(records.every_board(tournament_id))
    byes = [Bye(number, player) for number, player in records.byes(tournament_id)]
    return results, byes


def save_standings(records: TournamentRecords, tournament_id: str) -> None:
    """Keep the table recomputed from every kept result (entrants with no game included),
    read in the write that keeps it."""

    def table(kept: Kept) -> list[StandingRow]:
        results = results_of(kept.boards)
        byes = [Bye(number, player) for number, player in kept.byes]
        players = [entry.player for entry in kept.entries]
        return [
            StandingRow(s.player, s.rank, s.points, s.buchholz, s.sonneborn_berger, s.wins,
                        s.games, s.byes)
            for s in swiss_standings(results, byes, players)
        ]  # fmt: skip

    records.recompute_standings(tournament_id, table)


def tournament_game_ended(game_id: str) -> dict[str, Any]:
    """Count an ended tournament game; the round's last asks for the next round (or ends
    the tournament after its last round)."""
    records = tournament_records()
    found = records.board_of_game(game_id)
    if found is None:
        return {"game_id": game_id, "counted": False}
    tournament_id, board = found
    tournament = records.get(tournament_id)
    if tournament is not None and tournament.arena:
        return arena_game_ended(tournament_id, game_id)
    current = runtime().games.current(game_id)
    winner = current.state.winner
    if winner is None:
        return {"game_id": game_id, "counted": False}
    player = current.seats[winner].player
    assert player is not None  # a tournament game's seats are its players'
    records.record_result(game_id, player)
    save_standings(records, tournament_id)
    paired = records.paired_round(tournament_id, board.round)
    if paired is not None and paired.over and tournament is not None:
        if board.round >= tournament.rounds:
            _finish(records, tournament)
        else:
            schedule_round(runtime().queues, tournament_id, board.round + 1, datetime.now(UTC))
    return {"game_id": game_id, "counted": True}


def _finish(records: TournamentRecords, tournament: Tournament) -> dict[str, Any]:
    save_standings(records, tournament.id)
    records.finish(tournament.id)
    tell(tournament.app, [finished_notice(tournament.id, tournament.rounds)])
    return {"tournament_id": tournament.id, "finished": True}


#: Tournaments one sweep looks at, at most (the soonest started first).
SWEEP_BATCH = 500


def ask_what_was_lost(now_ms: int | None = None) -> int:
    """Ask again for what each started tournament waits on, if its job was lost: the
    round due (the first at the start, the next once a round is over, the end after the
    last), a claimed round's games not made yet, a game ended but not counted. What is
    waiting or running is left alone (``schedule_round``, ``enqueue_game_ended``). The
    number of asks; nothing without a database of record."""
    records = runtime().tournaments
    if records is None:
        return 0
    connection = runtime().queues
    now = datetime.now(UTC)
    asked = 0
    for tournament in records.due(now_ms or int(time.time() * 1000), SWEEP_BATCH):
        if tournament.arena:
            asked += ask_for_arena(connection, records, tournament)
            continue
        if tournament.round == 0:
            schedule_round(connection, tournament.id, 1, now)
            asked += 1
            continue
        paired = records.paired_round(tournament.id, tournament.round)
        if paired is None:
            continue
        if paired.over:  # the next round's pairing, or the end after the last round
            schedule_round(connection, tournament.id, tournament.round + 1, now)
            asked += 1
            continue
        for board in paired.boards:
            if board.winner is not None:
                continue
            current = game_of(board.game_id)
            if current is None:  # the claim is kept, its games not all made
                schedule_round(connection, tournament.id, tournament.round, now)
                asked += 1
                break
            if current.state.over and current.state.winner is not None:
                enqueue_game_ended(connection, board.game_id)
                asked += 1
    return asked


__all__ = ["ask_what_was_lost", "pair_tournament_round", "tournament_game_ended"]
