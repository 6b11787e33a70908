"""The server's clocks: a delayed job at every person's deadline, and its recovery.

Whenever a clocked game waits for a person's move (after the create, a join,
every append), a job is scheduled for the turn's deadline
(``workers.jobs.clock_ran_out``). Its id is the game's and the version's
(``clock-<game>-<version>``), so asking again is a no-op, and its append
expects that version, so a job whose turn was played in time adds nothing.

The jobs go on the ``moves`` queue: once due, a clock's move is as urgent as
a bot opponent's (a person waits for it), runs as briefly, in the worker's own
process, and is recovered the same way after a ``kill -9`` (its lapsed
execution is put back with a retry). A job waits in RQ's scheduled registry
until its deadline, not in the queue, so it never stands before a bot
opponent's move that is due earlier.

RQ's scheduler (one per queue, behind a lock) moves due jobs to the queue
within its poll (1 s). A scheduler killed with its worker keeps that lock for
a minute; meanwhile every worker's maintenance pass moves jobs overdue by
``OVERDUE_SECONDS`` itself (``enqueue_overdue``). A job lost before it was
scheduled (the API died after its append) is scheduled again by the game's
next view (``ClockKeeper.ensure``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from redis import Redis
from rq import Retry
from rq.exceptions import NoSuchJobError
from rq.job import Job
from rq.registry import ScheduledJobRegistry
from rq.serializers import JSONSerializer

from service.engine import Event, GameStatus
from service.game.values import Current
from service.jobs.names import MOVES
from service.jobs.queues import BOT_MOVE_TIMEOUT, FAILURE_TTL, RESULT_TTL, queue

#: A scheduled clock job this late is moved to its queue by any worker's maintenance.
OVERDUE_SECONDS = 2
#: The scheduled jobs a maintenance pass moves when overdue: clocks, and tournaments'
#: rounds (``service.jobs.tournaments``), both waited for by people.
OVERDUE_KINDS = ("clock-", "tournament-")
#: Jobs a maintenance pass moves at most (the rest wait for the next pass).
OVERDUE_BATCH = 100


def clock_job_id(game_id: str, version: int) -> str:
    """Deterministic: one clock per turn (RQ 3 allows letters, digits, ``_`` and ``-``)."""
    return f"clock-{game_id}-{version}"


def person_waited_for(current: Current) -> bool:
    """A clocked game that waits for a person's move (a bot's turn is never timed)."""
    state = current.state
    seat = state.to_move
    return (
        current.seats.clock is not None
        and state.status is GameStatus.ACTIVE
        and seat is not None
        and not current.seats[seat].bot
    )


def schedule_clock(connection: Redis, game_id: str, version: int, due: datetime) -> str:
    """Schedule the clock of the turn at ``version`` for ``due`` (UTC), once.

    A job of that turn that exists (scheduled, queued, running, done, or failed
    for good) is left alone: its turn had its clock.
    """
    job_id = clock_job_id(game_id, version)
    if connection.exists(Job.key_for(job_id)):
        return job_id
    queue(MOVES, connection).enqueue_at(
        _whole_second_after(due),
        "workers.jobs.clock_ran_out",
        game_id,
        version,
        job_id=job_id,
        job_timeout=BOT_MOVE_TIMEOUT,
        retry=Retry(max=3),  # at once: a person waits for the move
        result_ttl=RESULT_TTL,
        failure_ttl=FAILURE_TTL,
        description=f"clock of game {game_id} at version {version}",
    )
    return job_id


def _whole_second_after(due: datetime) -> datetime:
    """RQ's scheduled registry keeps whole seconds, cut down: a deadline rounded up to
    the next one, so that a person's time is never cut short."""
    if due.microsecond == 0:
        return due
    return due.replace(microsecond=0) + timedelta(seconds=1)


class ClockKeeper:
    """Schedules a clocked game's deadline job after every append (an append listener)."""

    def __init__(self, queue_connection: Redis):
        self.connection = queue_connection

    def appended(self, current: Current, events: Sequence[Event]) -> None:
        """The turn starts now (the append just returned): its deadline is a move's time
        from now, never earlier than the log's own time plus a move's time."""
        control = current.seats.clock
        if control is None or not person_waited_for(current):
            return
        due = datetime.now(UTC) + timedelta(seconds=control.seconds_per_move)
        schedule_clock(self.connection, current.game_id, current.version, due)

    def ensure(self, current: Current, deadline_ms: int | None) -> None:
        """A read saw the game: schedule its clock again if the job was lost."""
        if deadline_ms is None or not person_waited_for(current):
            return
        due = datetime.fromtimestamp(max(deadline_ms / 1000, time.time()), UTC)
        schedule_clock(self.connection, current.game_id, current.version, due)


def enqueue_overdue(connection: Redis, *, overdue_seconds: float = OVERDUE_SECONDS) -> int:
    """Move the clock jobs overdue by ``overdue_seconds`` from the scheduled registry to
    the queue; the number moved. Each is taken out of the registry first, so two
    workers never both move one; a scheduler that moves it too makes it run twice,
    and the second run's append is refused (it expects the version)."""
    registry = ScheduledJobRegistry(MOVES, connection=connection, serializer=JSONSerializer)
    cutoff = int(time.time() - overdue_seconds)
    due = connection.zrangebyscore(registry.key, 0, cutoff, start=0, num=OVERDUE_BATCH)
    moved = 0
    moves = queue(MOVES, connection)
    for raw in due:
        job_id = raw.decode() if isinstance(raw, bytes) else raw
        if not job_id.startswith(OVERDUE_KINDS) or not connection.zrem(registry.key, job_id):
            continue
        try:
            job = Job.fetch(job_id, connection=connection, serializer=JSONSerializer)
        except NoSuchJobError:  # its hash expired: nothing to run
            continue
        moves.enqueue_job(job)
        moved += 1
    return moved


__all__ = [
    "ClockKeeper",
    "clock_job_id",
    "enqueue_overdue",
    "person_waited_for",
    "schedule_clock",
]
