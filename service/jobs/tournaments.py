"""A tournament's jobs: each round paired on time, and each game's end counted.

The first round is a delayed job at the tournament's start (as a clock's deadline is,
``service.jobs.clocks``), on the ``moves`` queue: players wait for it. Its id is the
tournament's and the round's, so asking again is a no-op; what makes the pairing
happen once is the round's claim in the database (``service.store.tournament_records``),
so a job run twice, or two workers' jobs at once, still leave one pairing. Every later
round is asked for when the last game of the round before ends: each ended tournament
game's job (``tournament-game-<game>``) counts its result and, when it was the round's
last, asks for the next round at once. An arena's pairings are rounds too, each asked
for when a game ends or a player joins, and its end is a job at its end time.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from redis import Redis
from rq import Retry

from service.engine import Event
from service.game.values import Current
from service.jobs.names import MOVES
from service.jobs.queues import (
    _UNFINISHED_NAMES,
    BOT_MOVE_TIMEOUT,
    FAILURE_TTL,
    RESULT_TTL,
    _free_for_another,
    forget_if_lost,
    queue,
)

#: What a tournament's games say they were made by (``Seats.via``).
VIA = "tournament"
#: A pairing job's time bound (s): a round of a thousand players pairs in under two.
PAIRING_TIMEOUT = 60


def round_job_id(tournament_id: str, number: int) -> str:
    """One pairing job per round (RQ 3 allows letters, digits, ``_`` and ``-``)."""
    return f"tournament-{tournament_id}-round-{number}"


def end_job_id(tournament_id: str) -> str:
    """One end job per arena, at its end time."""
    return f"tournament-{tournament_id}-end"


def game_job_id(game_id: str) -> str:
    """One counting job per tournament game."""
    return f"tournament-game-{game_id}"


def schedule_round(connection: Redis, tournament_id: str, number: int, due: datetime) -> str:
    """Ask for round ``number`` to be paired at ``due`` (UTC; at once when past).

    A job of the round that waits or runs is left alone; one that ended, or that waits
    nowhere (lost with a killed worker, ``forget_if_lost``), is replaced (pairing again is
    harmless: the round's claim is made once)."""
    return _schedule(
        connection,
        round_job_id(tournament_id, number),
        "workers.tournaments.pair_tournament_round",
        (tournament_id, number),
        due,
        f"round {number} of tournament {tournament_id}",
    )


def schedule_end(connection: Redis, tournament_id: str, due: datetime) -> str:
    """Ask for an arena's end at ``due`` (at once when past): from then no pairing is
    made, and the arena is over once no game of it is played (``workers.arenas``). A job
    that waits or runs is left alone, one ended or lost is replaced, as a round's is."""
    return _schedule(
        connection,
        end_job_id(tournament_id),
        "workers.arenas.end_arena",
        (tournament_id,),
        due,
        f"end of arena {tournament_id}",
    )


def _schedule(
    connection: Redis,
    job_id: str,
    function: str,
    args: tuple[object, ...],
    due: datetime,
    description: str,
) -> str:
    """Enqueue ``function(*args)`` as ``job_id`` on the ``moves`` queue at ``due`` (at once
    when past), unless a job of that id waits or runs; one lost with a killed worker is
    forgotten first. Rounds and an arena's end keep one rule for this: two copies of it
    could drift, and a job asked for twice must stay one job."""
    forget_if_lost(connection, job_id, MOVES)
    if not _free_for_another(connection, job_id, keep=lambda status: status in _UNFINISHED_NAMES):
        return job_id
    options = {
        "job_id": job_id,
        "job_timeout": PAIRING_TIMEOUT,
        "retry": Retry(max=5, interval=[1, 2, 5, 10, 30]),
        "result_ttl": RESULT_TTL,
        "failure_ttl": FAILURE_TTL,
        "description": description,
    }
    if due > datetime.now(UTC):
        # RQ's scheduler keeps whole seconds: round up, so the job never runs early.
        whole = due.replace(microsecond=0) + timedelta(seconds=1 if due.microsecond else 0)
        queue(MOVES, connection).enqueue_at(whole, function, *args, **options)
    else:
        queue(MOVES, connection).enqueue(function, *args, **options)
    return job_id


def enqueue_game_ended(connection: Redis, game_id: str) -> str:
    """Ask a worker to count an ended tournament game (``tournament_game_ended``); a job
    of it lost with a killed worker is replaced, as a round's is."""
    job_id = game_job_id(game_id)
    forget_if_lost(connection, job_id, MOVES)
    if not _free_for_another(connection, job_id, keep=lambda status: status in _UNFINISHED_NAMES):
        return job_id
    queue(MOVES, connection).enqueue(
        "workers.tournaments.tournament_game_ended",
        game_id,
        job_id=job_id,
        job_timeout=BOT_MOVE_TIMEOUT,
        retry=Retry(max=5, interval=[1, 2, 5, 10, 30]),
        result_ttl=RESULT_TTL,
        failure_ttl=FAILURE_TTL,
        description=f"tournament game {game_id} ended",
    )
    return job_id


class CountWhenEnded:
    """Enqueues the counting job of every tournament game whose append ended it."""

    def __init__(self, queue_connection: Redis):
        self.connection = queue_connection

    def appended(self, current: Current, events: Sequence[Event]) -> None:
        if current.seats.via == VIA and current.state.over and current.state.winner is not None:
            enqueue_game_ended(self.connection, current.game_id)


__all__ = [
    "VIA",
    "CountWhenEnded",
    "end_job_id",
    "enqueue_game_ended",
    "game_job_id",
    "round_job_id",
    "schedule_end",
    "schedule_round",
]
