"""An arena's jobs: its start, each pairing of the players waiting, each game's count,
its end (docs/tournaments.md, "Arena").

Every pairing is a round of the database of record, claimed once
(``TournamentRecords.claim_round``): a pairing reads the tournament's latest round
first, then its boards, so a claim made by another job in between takes that round
number and fails ours, and ours is made again from what the other left. The claim
itself refuses a player still on a board being played and a claim after the arena's
end, so no player is in two games at once and no game is made after the end whatever
a job read. A game's result is kept once; the standings are always the recomputation
from the kept results (``service.competition.arena_standings``). So every job here may
run twice, or two at once, or be lost with a killed worker: the sweep
(``ask_for_arena``) asks again for what an arena waits on.

The end: at ``ends_ms`` no new pairing is made; the games in play then are played out
and count (as in lichess's arena, a game started before the end counts), and the arena
is over when the last of them has been counted.
"""

from __future__ import annotations

import secrets
import time
from datetime import UTC, datetime
from typing import Any

from redis import Redis

from service.competition import Waiting, arena_pairings, arena_standings
from service.game.tournament_notices import (
    NoticeBoard,
    finished_notice,
    paired_notice,
    started_notice,
)
from service.jobs.tournaments import enqueue_game_ended, schedule_end, schedule_round
from service.store.tournament_records import (
    Board,
    Entry,
    Kept,
    PairedRound,
    StandingRow,
    Tournament,
    TournamentRecords,
    TournamentStatus,
)
from workers.tournament_games import (
    game_id_of,
    game_of,
    make_games,
    results_of,
    tell,
    tournament_records,
    winner_of,
)

#: Claims one pairing job may lose to others before it leaves the rest to them (each
#: loss means another job paired; the sweep is the net under the last).
ATTEMPTS = 20


def _now_ms() -> int:
    return int(time.time() * 1000)


def waiting(entries: list[Entry], boards: list[Board]) -> list[str]:
    """The players free to be paired: entered, not paused, on no board being played."""
    busy = {p for b in boards if b.winner is None for p in (b.dealer, b.forehand)}
    return [entry.player for entry in entries if entry.playing and entry.player not in busy]


def start_arena(tournament_id: str) -> dict[str, Any]:
    """At the start: the arena begins (told once), the first pairing's games are made if
    it was claimed and some are not, and whoever waits is paired."""
    records = tournament_records()
    tournament = records.get(tournament_id)
    if tournament is None or tournament.status is TournamentStatus.FINISHED:
        return {"tournament_id": tournament_id, "started": False}
    if tournament.status is TournamentStatus.CREATED:
        records.start(tournament_id)
    tell(tournament.app, [started_notice(tournament_id, 0)])
    save_arena_standings(records, tournament_id)
    return {"tournament_id": tournament_id, "started": True, **pair_arena(tournament_id, 1)}


def make_and_tell(tournament: Tournament, paired: PairedRound) -> None:
    """Make a claimed pairing's games not made yet, then tell the app of the pairing. Run
    again for a claim whose job was killed, it makes what is missing and tells again: the
    notice's id is the round's, so an app told before keeps it once, and one not told
    (the job killed between its claim and its notice) is told now."""
    make_games(tournament, paired)
    told = [NoticeBoard(b.board, b.game_id, b.dealer, b.forehand) for b in paired.boards]
    tell(tournament.app, [paired_notice(tournament.id, paired.round, None, told)])


def pair_arena(tournament_id: str, number: int | None = None) -> dict[str, Any]:
    """Make round ``number``'s games if it is claimed and some are not made (a claim whose
    job was killed) and tell its pairing, then pair the players waiting, once. The boards
    made."""
    records = tournament_records()
    if number is not None:
        paired = records.paired_round(tournament_id, number)
        tournament = records.get(tournament_id)
        if paired is not None and tournament is not None:
            make_and_tell(tournament, paired)
    made = 0
    for _attempt in range(ATTEMPTS):
        tournament = records.get(tournament_id)  # the round before the boards (see above)
        if tournament is None or tournament.status is not TournamentStatus.STARTED:
            break
        at_ms = _now_ms()
        if tournament.over_at(at_ms):
            break
        boards = records.every_board(tournament_id)
        free = waiting(records.entries(tournament_id), boards)
        pairings = arena_pairings([Waiting(p) for p in free], results_of(boards))
        if not pairings:
            break
        number, seed = tournament.round + 1, secrets.token_hex(32)
        new = [
            Board(number, index, game_id_of(seed, index), pairing.dealer, pairing.forehand)
            for index, pairing in enumerate(pairings, start=1)
        ]
        if not records.claim_round(
            tournament_id, number, seed, at_ms, new, None, entered_only=True
        ):
            continue  # another job paired first: pair again from what it left
        paired = records.paired_round(tournament_id, number)
        assert paired is not None  # claimed now, by this job
        make_and_tell(tournament, paired)
        made = len(new)
        break
    return {"tournament_id": tournament_id, "boards": made}


def arena_game_ended(tournament_id: str, game_id: str) -> dict[str, Any]:
    """Count an ended arena game, then pair its players again at once (or, after the
    end, end the arena with its last game)."""
    records = tournament_records()
    current = game_of(game_id)
    winner = None if current is None else winner_of(current)
    if winner is None:
        return {"game_id": game_id, "counted": False}
    records.record_result(game_id, winner)
    save_arena_standings(records, tournament_id)
    tournament = records.get(tournament_id)
    if tournament is not None and tournament.over_at(_now_ms()):
        end_arena(tournament_id)
    else:
        pair_arena(tournament_id)
    return {"game_id": game_id, "counted": True}


def end_arena(tournament_id: str) -> dict[str, Any]:
    """At the end, or after it as each game ends: over once no game is played."""
    records = tournament_records()
    tournament = records.get(tournament_id)
    if tournament is None or not tournament.over_at(_now_ms()):
        return {"tournament_id": tournament_id, "finished": False}
    if tournament.status is TournamentStatus.FINISHED:
        return {"tournament_id": tournament_id, "finished": True}
    save_arena_standings(records, tournament_id)
    if not records.finish(tournament_id):
        return {"tournament_id": tournament_id, "finished": False}
    tell(tournament.app, [finished_notice(tournament_id, tournament.round)])
    return {"tournament_id": tournament_id, "finished": True}


def save_arena_standings(records: TournamentRecords, tournament_id: str) -> None:
    """Keep the table recomputed from every kept result (entrants with no game included),
    read in the write that keeps it: points, wins and games; an arena has no Buchholz,
    Sonneborn-Berger or bye (0)."""

    def table(kept: Kept) -> list[StandingRow]:
        players = [entry.player for entry in kept.entries]
        return [
            StandingRow(s.player, s.rank, s.points, 0, 0, s.wins, s.games, 0)
            for s in arena_standings(results_of(kept.boards), players)
        ]

    records.recompute_standings(tournament_id, table)


def ask_for_arena(connection: Redis, records: TournamentRecords, tournament: Tournament) -> int:
    """What a started arena waits on, asked for again if its job was lost: its start, the
    games of a claimed round not made, the count of a game ended, a pairing of players
    waiting who could be paired, its end. The number of asks."""
    now = datetime.now(UTC)
    if tournament.status is TournamentStatus.CREATED:
        schedule_round(connection, tournament.id, 1, now)
        return 1
    asked = 0
    boards = records.every_board(tournament.id)
    missing: set[int] = set()
    for board in boards:
        if board.winner is not None:
            continue
        current = game_of(board.game_id)
        if current is None:
            missing.add(board.round)
        elif winner_of(current) is not None:
            enqueue_game_ended(connection, board.game_id)
            asked += 1
    for number in sorted(missing):
        schedule_round(connection, tournament.id, number, now)
        asked += 1
    if tournament.over_at(int(now.timestamp() * 1000)):
        if all(board.winner is not None for board in boards):
            schedule_end(connection, tournament.id, now)
            asked += 1
        return asked
    free = waiting(records.entries(tournament.id), boards)
    if arena_pairings([Waiting(p) for p in free], results_of(boards)):
        schedule_round(connection, tournament.id, tournament.round + 1, now)
        asked += 1
    return asked


__all__ = [
    "arena_game_ended",
    "ask_for_arena",
    "end_arena",
    "pair_arena",
    "save_arena_standings",
    "start_arena",
    "waiting",
]
