"""Tournaments in the database of record: the tournament, its entries, rounds, boards,
results and standings, for good; Redis holds only what is live (the games in play).

One SQL text for SQLite and PostgreSQL (``service.store.records_db``), tables of
``migrations/<dialect>/0009_tournaments.sql``. Two writes carry the tournament's
promises:

- ``claim_round`` inserts a round's row, its boards and the tournament's new round in
  one transaction: the row's primary key (tournament, round) is the one claim, so two
  workers racing to pair a round leave one pairing, and a worker killed after the
  claim leaves a complete pairing (its seed names the games, so the games made again
  are the same games);
- ``record_result`` writes a board's winner once; the standings written beside it are
  replaced whole (``recompute_standings``), always a recomputation from the boards read
  in the same write.

The store knows players by their ids only; what a pairing or a standing means is the
competition core's (``service.competition``).
"""

from __future__ import annotations

import enum
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from service.store.records_db import Duplicate, RecordsDatabase, Transaction

_TOURNAMENT = (
    "tournament_id, app, kind, name, variant, clock, rounds, starts_ms, created_ms, status, "
    "round, ends_ms"
)
_STANDING = "player_id, rank, points, buchholz, sonneborn_berger, wins, games, byes"


class TournamentKind(enum.StrEnum):
    """A Swiss: a fixed number of rounds; an arena: a fixed time, each player paired again
    as soon as their game ends (docs/tournaments.md)."""

    SWISS = "swiss"
    ARENA = "arena"


class TournamentStatus(enum.StrEnum):
    """Where a tournament is: entries open before its first round or its start
    (``created``), being played (``started``), over (``finished``)."""

    CREATED = "created"
    STARTED = "started"
    FINISHED = "finished"


@dataclass(frozen=True, slots=True)
class Tournament:
    """A tournament as kept: ``round`` is the latest round paired (0 before the first);
    in an arena each pairing is a round, and ``ends_ms`` its end (None in a Swiss)."""

    id: str
    app: str
    kind: str
    name: str
    variant: str
    clock: dict[str, Any] | None
    rounds: int
    starts_ms: int
    created_ms: int
    status: TournamentStatus = TournamentStatus.CREATED
    round: int = 0
    ends_ms: int | None = None

    @property
    def arena(self) -> bool:
        return self.kind == TournamentKind.ARENA.value

    def over_at(self, now_ms: int) -> bool:
        """Whether an arena's time is up at ``now_ms`` (no new pairing after it)."""
        return self.ends_ms is not None and now_ms >= self.ends_ms


@dataclass(frozen=True, slots=True)
class Entry:
    """A player's entry: the rating they brought (it orders them in a score group)."""

    player: str
    rating: float
    joined_ms: int
    withdrawn_ms: int | None = None

    @property
    def playing(self) -> bool:
        return self.withdrawn_ms is None


@dataclass(frozen=True, slots=True)
class Board:
    """One game of a round: ``dealer`` deals first, ``winner`` once the game has ended."""

    round: int
    board: int
    game_id: str
    dealer: str
    forehand: str
    winner: str | None = None


@dataclass(frozen=True, slots=True)
class PairedRound:
    """A round's claim: its seed (the games' ids come from it), its boards and bye."""

    round: int
    seed: str
    paired_ms: int
    boards: tuple[Board, ...]
    bye: str | None = None

    @property
    def over(self) -> bool:
        return all(board.winner is not None for board in self.boards)


@dataclass(frozen=True, slots=True)
class StandingRow:
    """One stored line of the table (the competition core's ``Standing``, as kept)."""

    player: str
    rank: int
    points: int
    buchholz: int
    sonneborn_berger: int
    wins: int
    games: int
    byes: int


@dataclass(frozen=True, slots=True)
class Kept:
    """What a tournament's standings are computed from, read at once: every board (round
    and board order), every entry (withdrawn ones too) and every (round, bye)."""

    boards: list[Board]
    entries: list[Entry]
    byes: list[tuple[int, str]]


#: Tournaments not finished an app may hold at once: each is a row and a scheduled job,
#: made with an app's key alone.
MAX_UNFINISHED_PER_APP = 100


class TournamentRecords:
    """Tournaments, kept for good."""

    def __init__(self, db: RecordsDatabase):
        self.db = db

    def create(self, tournament: Tournament) -> None:
        t = tournament
        with self.db.write() as run:
            run(
                f"INSERT INTO tournaments ({_TOURNAMENT}) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    t.id,
                    t.app,
                    t.kind,
                    t.name,
                    t.variant,
                    None if t.clock is None else json.dumps(t.clock, sort_keys=True),
                    t.rounds,
                    t.starts_ms,
                    t.created_ms,
                    t.status.value,
                    t.round,
                    t.ends_ms,
                ),
            )

    def unfinished(self, app: str) -> int:
        """How many of ``app``'s tournaments are not finished (``MAX_UNFINISHED_PER_APP``)."""
        with self.db.read() as run:
            row = run(
                "SELECT COUNT(*) FROM tournaments WHERE app = ? AND status <> ?",
                (app, TournamentStatus.FINISHED.value),
            ).fetchone()
        return int(row[0])

    def get(self, tournament_id: str) -> Tournament | None:
        with self.db.read() as run:
            row = run(
                f"SELECT {_TOURNAMENT} FROM tournaments WHERE tournament_id = ?", (tournament_id,)
            ).fetchone()
        return None if row is None else _tournament(row)

    def due(self, now_ms: int, limit: int = 100) -> list[Tournament]:
        """Tournaments not finished whose start has come, soonest first: what a sweep
        looks at when a deadline job was lost."""
        with self.db.read() as run:
            rows = run(
                f"SELECT {_TOURNAMENT} FROM tournaments WHERE status <> ? AND starts_ms <= ? "
                "ORDER BY starts_ms, tournament_id LIMIT ?",
                (TournamentStatus.FINISHED.value, now_ms, limit),
            ).fetchall()
        return [_tournament(row) for row in rows]

    def join(self, tournament_id: str, player: str, rating: float, at_ms: int) -> Entry:
        """Enter ``player`` (again, after a withdrawal: the first entry's time stays)."""
        with self.db.write() as run:
            run(
                "INSERT INTO tournament_entries (tournament_id, player_id, rating, joined_ms) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (tournament_id, player_id) DO NOTHING",
                (tournament_id, player, rating, at_ms),
            )
            run(
                "UPDATE tournament_entries SET withdrawn_ms = NULL "
                "WHERE tournament_id = ? AND player_id = ?",
                (tournament_id, player),
            )
            return _entry(_one_entry(run, tournament_id, player))

    def withdraw(self, tournament_id: str, player: str, at_ms: int) -> Entry | None:
        """Take ``player`` out of the next rounds (their results stay); None if never in."""
        with self.db.write() as run:
            run(
                "UPDATE tournament_entries SET withdrawn_ms = ? "
                "WHERE tournament_id = ? AND player_id = ? AND withdrawn_ms IS NULL",
                (at_ms, tournament_id, player),
            )
            row = _one_entry(run, tournament_id, player)
        return None if row is None else _entry(row)

    def entries(self, tournament_id: str) -> list[Entry]:
        """Every entry, withdrawn ones too, in the order they joined."""
        with self.db.read() as run:
            rows = _entry_rows(run, tournament_id)
        return [_entry(row) for row in rows]

    def claim_round(
        self,
        tournament_id: str,
        number: int,
        seed: str,
        at_ms: int,
        boards: Sequence[Board],
        bye: str | None,
        entered_only: bool = False,
    ) -> bool:
        """Keep round ``number``'s pairing and make it the tournament's round, all at
        once; False (and nothing written) when the round was claimed already, when the
        tournament is over (an arena's time up at ``at_ms``), when a player of the
        pairing is on a board still played (nobody is in two games at once, whatever the
        pairing read before), or, ``entered_only`` (an arena's), when one is not entered
        or has paused since."""
        players = [p for b in boards for p in (b.dealer, b.forehand)]
        try:
            with self.db.write() as run:
                run.lock(f"tournament-play:{tournament_id}")
                run(
                    "INSERT INTO tournament_rounds (tournament_id, round, seed, paired_ms, bye) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (tournament_id, number, seed, at_ms, bye),
                )
                if players and _any_playing(run, tournament_id, players):
                    raise _Refused
                if entered_only and _entered(run, tournament_id, players) != len(set(players)):
                    raise _Refused
                for b in boards:
                    run(
                        "INSERT INTO tournament_boards (tournament_id, round, board, game_id, "
                        "dealer, forehand) VALUES (?, ?, ?, ?, ?, ?)",
                        (tournament_id, number, b.board, b.game_id, b.dealer, b.forehand),
                    )
                changed = run(
                    "UPDATE tournaments SET round = ?, status = ? WHERE tournament_id = ? "
                    "AND status <> ? AND (ends_ms IS NULL OR ends_ms > ?)",
                    (
                        number,
                        TournamentStatus.STARTED.value,
                        tournament_id,
                        TournamentStatus.FINISHED.value,
                        at_ms,
                    ),
                ).rowcount
                if changed != 1:
                    raise _Refused
        except (Duplicate, _Refused):
            return False
        return True

    def paired_round(self, tournament_id: str, number: int) -> PairedRound | None:
        with self.db.read() as run:
            row = run(
                "SELECT seed, paired_ms, bye FROM tournament_rounds "
                "WHERE tournament_id = ? AND round = ?",
                (tournament_id, number),
            ).fetchone()
            if row is None:
                return None
            boards = _boards(run, tournament_id, number)
        seed, paired_ms, bye = row
        return PairedRound(number, seed, int(paired_ms), tuple(boards), bye)

    def every_board(self, tournament_id: str) -> list[Board]:
        """Every board of every round, in round and board order."""
        with self.db.read() as run:
            return _boards(run, tournament_id, None)

    def byes(self, tournament_id: str) -> list[tuple[int, str]]:
        """Every (round, player) who sat out a round."""
        with self.db.read() as run:
            rows = _bye_rows(run, tournament_id)
        return [(int(number), player) for number, player in rows]

    def board_of_game(self, game_id: str) -> tuple[str, Board] | None:
        """The tournament and board a game is; None for a game of no tournament."""
        with self.db.read() as run:
            row = run(
                "SELECT tournament_id, round, board, game_id, dealer, forehand, winner "
                "FROM tournament_boards WHERE game_id = ?",
                (game_id,),
            ).fetchone()
        return None if row is None else (row[0], _board(row[1:]))

    def record_result(self, game_id: str, winner: str) -> bool:
        """Keep a board's winner, once: False when it was kept already (or no board)."""
        with self.db.write() as run:
            changed = run(
                "UPDATE tournament_boards SET winner = ? WHERE game_id = ? AND winner IS NULL",
                (winner, game_id),
            ).rowcount
        return changed == 1

    def recompute_standings(
        self, tournament_id: str, table: Callable[[Kept], Sequence[StandingRow]]
    ) -> None:
        """Replace the stored table with ``table`` of what is kept, read in the same write
        (taking turns with every other): two jobs counting two games at once cannot
        leave the table of the one that read before the other's result."""
        with self.db.write() as run:
            run.lock(f"tournament:{tournament_id}")
            kept = Kept(
                _boards(run, tournament_id, None),
                [_entry(row) for row in _entry_rows(run, tournament_id)],
                [(int(n), p) for n, p in _bye_rows(run, tournament_id)],
            )
            _write_standings(run, tournament_id, table(kept))

    def save_standings(self, tournament_id: str, rows: Sequence[StandingRow]) -> None:
        """Replace the stored table with ``rows`` (a recomputation from the boards)."""
        with self.db.write() as run:
            run.lock(f"tournament:{tournament_id}")
            _write_standings(run, tournament_id, rows)

    def standings(
        self, tournament_id: str, offset: int = 0, limit: int = 50
    ) -> tuple[list[StandingRow], int]:
        """A page of the stored table, best first, and how many lines it has in all."""
        with self.db.read() as run:
            rows = run(
                f"SELECT {_STANDING} FROM tournament_standings WHERE tournament_id = ? "
                "ORDER BY rank LIMIT ? OFFSET ?",
                (tournament_id, limit, offset),
            ).fetchall()
            total = run(
                "SELECT COUNT(*) FROM tournament_standings WHERE tournament_id = ?",
                (tournament_id,),
            ).fetchone()[0]
        return [_standing(row) for row in rows], int(total)

    def start(self, tournament_id: str) -> bool:
        """Mark an arena begun (its start came), once: False when it was already."""
        with self.db.write() as run:
            changed = run(
                "UPDATE tournaments SET status = ? WHERE tournament_id = ? AND status = ?",
                (TournamentStatus.STARTED.value, tournament_id, TournamentStatus.CREATED.value),
            ).rowcount
        return changed == 1

    def in_play(self, tournament_id: str) -> list[Board]:
        """The boards whose games have no result kept yet, in round and board order."""
        with self.db.read() as run:
            rows = run(
                "SELECT round, board, game_id, dealer, forehand, winner FROM tournament_boards "
                "WHERE tournament_id = ? AND winner IS NULL ORDER BY round, board",
                (tournament_id,),
            ).fetchall()
        return [_board(row) for row in rows]

    def finish(self, tournament_id: str) -> bool:
        """Mark the tournament over, once, and only with no board still played (taking
        turns with ``claim_round``): False when it was over already or a game is played."""
        with self.db.write() as run:
            run.lock(f"tournament-play:{tournament_id}")
            changed = run(
                "UPDATE tournaments SET status = ? WHERE tournament_id = ? AND status <> ? "
                "AND NOT EXISTS (SELECT 1 FROM tournament_boards "
                "WHERE tournament_id = ? AND winner IS NULL)",
                (
                    TournamentStatus.FINISHED.value,
                    tournament_id,
                    TournamentStatus.FINISHED.value,
                    tournament_id,
                ),
            ).rowcount
        return changed == 1

    def of_player(self, player: str, limit: int = 50) -> list[Tournament]:
        """The tournaments ``player`` entered, the latest joined first."""
        with self.db.read() as run:
            rows = run(
                f"SELECT {', '.join('t.' + c.strip() for c in _TOURNAMENT.split(','))} "
                "FROM tournament_entries e JOIN tournaments t "
                "ON t.tournament_id = e.tournament_id WHERE e.player_id = ? "
                "ORDER BY e.joined_ms DESC, e.tournament_id DESC LIMIT ?",
                (player, limit),
            ).fetchall()
        return [_tournament(row) for row in rows]

    def close(self) -> None:
        self.db.close()


def _write_standings(run: Transaction, tournament_id: str, rows: Sequence[StandingRow]) -> None:
    run("DELETE FROM tournament_standings WHERE tournament_id = ?", (tournament_id,))
    for r in rows:
        run(
            f"INSERT INTO tournament_standings (tournament_id, {_STANDING}) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (tournament_id, r.player, r.rank, r.points, r.buchholz, r.sonneborn_berger,
             r.wins, r.games, r.byes),
        )  # fmt: skip


def _entry_rows(run: Transaction, tournament_id: str) -> list[Any]:
    return run(
        "SELECT player_id, rating, joined_ms, withdrawn_ms FROM tournament_entries "
        "WHERE tournament_id = ? ORDER BY joined_ms, player_id",
        (tournament_id,),
    ).fetchall()


def _bye_rows(run: Transaction, tournament_id: str) -> list[Any]:
    return run(
        "SELECT round, bye FROM tournament_rounds "
        "WHERE tournament_id = ? AND bye IS NOT NULL ORDER BY round",
        (tournament_id,),
    ).fetchall()


class _Refused(Exception):
    """A claim that may not be kept: its transaction is rolled back."""


def _any_playing(run: Transaction, tournament_id: str, players: Sequence[str]) -> bool:
    marks = ", ".join("?" for _ in players)
    row = run(
        "SELECT 1 FROM tournament_boards WHERE tournament_id = ? AND winner IS NULL "
        f"AND (dealer IN ({marks}) OR forehand IN ({marks})) LIMIT 1",
        (tournament_id, *players, *players),
    ).fetchone()
    return row is not None


def _entered(run: Transaction, tournament_id: str, players: Sequence[str]) -> int:
    """How many of ``players`` are entered and not withdrawn (paused)."""
    if not players:
        return 0
    marks = ", ".join("?" for _ in players)
    row = run(
        "SELECT COUNT(*) FROM tournament_entries WHERE tournament_id = ? "
        f"AND withdrawn_ms IS NULL AND player_id IN ({marks})",
        (tournament_id, *players),
    ).fetchone()
    return int(row[0])


def _one_entry(run: Transaction, tournament_id: str, player: str) -> Any:
    return run(
        "SELECT player_id, rating, joined_ms, withdrawn_ms FROM tournament_entries "
        "WHERE tournament_id = ? AND player_id = ?",
        (tournament_id, player),
    ).fetchone()


def _boards(run: Transaction, tournament_id: str, number: int | None) -> list[Board]:
    where, args = "tournament_id = ?", (tournament_id,)
    if number is not None:
        where, args = "tournament_id = ? AND round = ?", (tournament_id, number)
    rows = run(
        "SELECT round, board, game_id, dealer, forehand, winner FROM tournament_boards "
        f"WHERE {where} ORDER BY round, board",
        args,
    ).fetchall()
    return [_board(row) for row in rows]


def _tournament(row: Sequence[Any]) -> Tournament:
    tid, app, kind, name, variant, clock, rounds, starts, created, status, number, ends = row
    return Tournament(
        id=tid,
        app=app,
        kind=kind,
        name=name,
        variant=variant,
        clock=None if clock is None else json.loads(clock),
        rounds=int(rounds),
        starts_ms=int(starts),
        created_ms=int(created),
        status=TournamentStatus(status),
        round=int(number),
        ends_ms=None if ends is None else int(ends),
    )


def _entry(row: Sequence[Any]) -> Entry:
    player, rating, joined, withdrawn = row
    return Entry(player, float(rating), int(joined), None if withdrawn is None else int(withdrawn))


def _board(row: Sequence[Any]) -> Board:
    number, board, game_id, dealer, forehand, winner = row
    return Board(int(number), int(board), game_id, dealer, forehand, winner)


def _standing(row: Sequence[Any]) -> StandingRow:
    player, *numbers = row
    return StandingRow(player, *(int(n) for n in numbers))


__all__ = [
    "Board",
    "Entry",
    "PairedRound",
    "StandingRow",
    "Tournament",
    "TournamentRecords",
    "TournamentStatus",
]
