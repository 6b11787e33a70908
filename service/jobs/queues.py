"""Enqueueing jobs by dotted name on the queues of ``service.jobs.names``, and their reports.

Here in ``service``, so the API enqueues without importing the workers:
jobs are named by their dotted names (``workers.jobs.bot_move``), sent with
the JSON serializer, and take only ids and small JSON. The workers import
this module too (``queue``); never the other way round.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from redis import Redis
from rq import Queue, Retry
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer
from rq.worker import Worker

from service.jobs.names import ARCHIVE, DECISIONS, EXPORTS, MOVES, QUEUES
from service.jobs.watch import JobWatcher

#: Per kind of job: (queue, timeout s, retry policy, result TTL s).
BOT_MOVE_TIMEOUT = 20
DECISION_TIMEOUT = 30
EXPORT_TIMEOUT = 60
#: A whole game's analysis takes at most 30 s on one worker (benchmarks/analysis.py).
ANALYSIS_TIMEOUT = 180
#: Archiving one game reads it, writes a row and reads it back; a sweep does a batch.
ARCHIVE_TIMEOUT = 30
SWEEP_TIMEOUT = 300
#: Finished results are kept this long (seconds) for GET /v1/jobs/{id}.
RESULT_TTL = 3600
FAILURE_TTL = 24 * 3600

#: An export job's report is kept as long as the export (``service.store.exports.EXPORT_TTL``), so a
#: later request for the same export finds its job and answers with it.
EXPORT_RESULT_TTL = 3600
#: While one request enqueues a job, others for the same job wait for it at most this long
#: (seconds): the claim outlives a request that died between claiming and enqueueing.
CLAIM_SECONDS = 30
#: A job that still runs or will run: a request for the same work joins it.
UNFINISHED = frozenset(
    {
        JobStatus.CREATED,
        JobStatus.QUEUED,
        JobStatus.STARTED,
        JobStatus.DEFERRED,
        JobStatus.SCHEDULED,
        JobStatus.RATE_LIMITED,
        JobStatus.READY_TO_ENQUEUE,
    }
)

#: ``admit(queue, job_id)``: entered just before a new job is enqueued, left once it is;
#: it raises (a problem for the caller) when the job may not be queued. The API's
#: admission control (``service.web.job_admission``) passes one; the default admits all.
Admit = Callable[[str, str], AbstractContextManager[None]]


@contextmanager
def admit_all(_queue: str, _job_id: str) -> Iterator[None]:
    yield


#: The same states as RQ writes them in a job's hash.
_UNFINISHED_NAMES = frozenset(status.value for status in UNFINISHED)
#: A job in one of these states has ended: a wait for it is over.
ENDED = ("finished", "failed", "stopped", "canceled")
#: Job id prefixes a client may look up.
PUBLIC_KINDS = ("move", "hint", "export", "analysis")


def job_kind(job_id: str) -> str:
    """What a job does: every job id begins with its kind and a dash ("move-3f2a...")."""
    return job_id.partition("-")[0]


def queue(name: str, connection: Redis) -> Queue:
    return Queue(name, connection=connection, serializer=JSONSerializer)


def bot_move_job_id(game_id: str, version: int) -> str:
    """Deterministic: a second enqueue for the same position is a no-op.

    (RQ 3 allows letters, digits, ``_`` and ``-`` in job ids.)
    """
    return f"bot-{game_id}-{version}"


#: A job in one of these states will not run again by itself.
_GIVEN_UP = frozenset({JobStatus.FAILED.value, JobStatus.STOPPED.value, JobStatus.CANCELED.value})


#: A job taken from its queue and not started this long after it was queued was lost
#: with the worker that took it (taking and starting are a few milliseconds apart).
LOST_AFTER_SECONDS = 10


def waits_nowhere(connection: Redis, job_id: str, queue_name: str) -> bool:
    """Whether the job's record says it waits while nothing holds it any more: queued, but
    in no queue for ``LOST_AFTER_SECONDS`` (a worker of several queues takes a job with
    BLPOP, which leaves no trace, and was killed before starting it), or scheduled, but
    in neither the scheduled registry nor its queue (a worker killed between moving an
    overdue job out of the registry and queueing it, ``service.jobs.clocks``). Nothing
    would ever run such a job, and ``_free_for_another`` would keep it."""
    raw_status, raw_queued = connection.hmget(Job.key_for(job_id), ["status", "enqueued_at"])
    status = raw_status.decode() if isinstance(raw_status, bytes) else raw_status
    if status not in (JobStatus.QUEUED.value, JobStatus.SCHEDULED.value):
        return False
    if connection.lpos(queue(queue_name, connection).key, job_id) is not None:
        return False
    if status == JobStatus.SCHEDULED.value:
        registry = queue(queue_name, connection).scheduled_job_registry
        return connection.zscore(registry.key, job_id) is None
    queued = raw_queued.decode() if isinstance(raw_queued, bytes) else raw_queued
    if not queued:
        return True
    at = datetime.fromisoformat(queued.replace("Z", "+00:00"))
    return (datetime.now(UTC) - at).total_seconds() > LOST_AFTER_SECONDS


def forget_if_lost(connection: Redis, job_id: str, queue_name: str) -> bool:
    """Delete the job if it waits nowhere (``waits_nowhere``), so it may be asked again."""
    if not waits_nowhere(connection, job_id, queue_name):
        return False
    with contextlib.suppress(NoSuchJobError):
        Job.fetch(job_id, connection=connection, serializer=JSONSerializer).delete()
    return True


def _free_for_another(connection: Redis, job_id: str, keep: Callable[[str], bool]) -> bool:
    """Whether a job of this fixed id may be enqueued now: no job has the id, or its job's
    status is not one to ``keep`` (then that job is deleted first). One read of the status."""
    raw = connection.hget(Job.key_for(job_id), "status")
    status = raw.decode() if isinstance(raw, bytes) else raw
    if status is None:
        return True
    if keep(status):
        return False
    with contextlib.suppress(NoSuchJobError):  # another caller asked again first
        Job.fetch(job_id, connection=connection, serializer=JSONSerializer).delete()
    return True


def enqueue_bot_move(connection: Redis, game_id: str, version: int) -> str:
    """Ask a worker to play the bot's move at ``version`` (at most once per version).

    A job of that move that is queued, running or done is left alone (one
    read of its status). One that failed for good (every retry, say while
    the worker could not reach the game store) is asked again: a bot's turn
    is never claimed on time, so nothing else would end the wait. A second
    run is harmless: the move's append expects ``version``.
    """
    job_id = bot_move_job_id(game_id, version)
    if not _free_for_another(connection, job_id, keep=lambda status: status not in _GIVEN_UP):
        return job_id
    queue(MOVES, connection).enqueue(
        "workers.jobs.bot_move",
        game_id,
        version,
        job_id=job_id,
        job_timeout=BOT_MOVE_TIMEOUT,
        retry=Retry(max=3),  # at once: a player is waiting
        result_ttl=RESULT_TTL,
        failure_ttl=FAILURE_TTL,
        description=f"bot move in game {game_id} at version {version}",
    )
    return job_id


def archive_job_id(game_id: str) -> str:
    """One archiving job per game: a second enqueue while it waits or runs is a no-op."""
    return f"archive-{game_id}"


def enqueue_archive(connection: Redis, game_id: str) -> str:
    """Ask a worker to move an ended game to the archive (``workers.jobs.archive_game``).

    A job of the game that waits or runs is left alone; one that ended is
    replaced (archiving again is harmless: the archive writes a game once).
    Retried with backoff: the archive's database may be away for a while, and
    the sweep archives what every retry missed.
    """
    return _enqueue_game_upkeep(
        connection, "workers.jobs.archive_game", archive_job_id(game_id), game_id, "archive"
    )


def _enqueue_game_upkeep(
    connection: Redis, function: str, job_id: str, game_id: str, what: str
) -> str:
    """An ended game's upkeep on the archive's queue (archiving, rating), once at a time.

    A job of that id that waits or runs is left alone; one that ended is replaced
    (running it again is harmless: each writes once). Retried with backoff: the
    archive's database may be away for a while, and the sweep makes good what every
    retry missed.
    """
    if not _free_for_another(connection, job_id, keep=lambda status: status in _UNFINISHED_NAMES):
        return job_id
    queue(ARCHIVE, connection).enqueue(
        function,
        game_id,
        job_id=job_id,
        job_timeout=ARCHIVE_TIMEOUT,
        retry=Retry(max=5, interval=[1, 5, 30, 120, 600]),
        # Nobody reads it: a second, so Redis keeps nothing of a game once it is done. Not
        # 0: RQ then deletes the job with every execution it lists, and one of a run
        # killed minutes before is gone already, so the job failed after its work was
        # done, again at each retry, and stayed a day among the failed.
        result_ttl=1,
        failure_ttl=FAILURE_TTL,
        description=f"{what} game {game_id}",
    )
    return job_id


def rating_job_id(game_id: str) -> str:
    """One rating job per game: a second enqueue while it waits or runs is a no-op."""
    return f"rate-{game_id}"


def enqueue_rating(connection: Redis, game_id: str) -> str:
    """Ask a worker to write a rated game's new ratings (``workers.jobs.rate_game``).

    On the archive's queue, never the moves'. Running it again is harmless
    (the ratings are written once a game, ``service.store.ratings``), and the
    game's archiving job rates it too, so a lost job loses no rating.
    """
    return _enqueue_game_upkeep(
        connection, "workers.jobs.rate_game", rating_job_id(game_id), game_id, "rate"
    )


def enqueue_sweep(connection: Redis, interval_seconds: float) -> str | None:
    """Ask for one sweep of the games' lifecycle (``workers.jobs.sweep``) per interval.

    Every worker that serves the archive queue calls this on its maintenance
    passes; the first in an interval enqueues (a key that expires with the
    interval), the others do nothing. The job's id: None when another asked.
    """
    slot = int(time.time() // max(interval_seconds, 1))
    if not connection.set("sch:sweep:asked", slot, nx=True, ex=max(int(interval_seconds), 1)):
        return None
    job_id = f"sweep-{slot}"
    queue(ARCHIVE, connection).enqueue(
        "workers.jobs.sweep",
        job_id=job_id,
        job_timeout=SWEEP_TIMEOUT,
        result_ttl=0,  # one a minute: kept, their results would outweigh a few games
        failure_ttl=FAILURE_TTL,
        description="sweep: forget archived games, archive what lost jobs missed",
    )
    return job_id


def enqueue_decision(
    connection: Redis,
    position: dict[str, Any],
    level: str,
    *,
    seed: int,
    budget_ms: int | None,
    kind: str = "move",
    admit: Admit = admit_all,
) -> str:
    """Ask a worker for a bot's decision in a position (the bot-move service, hints).

    ``admit`` holds the caller to its share of the decision workers; the job's id.
    """
    job_id = f"{kind}-{uuid.uuid4().hex}"
    with admit(DECISIONS, job_id):
        queue(DECISIONS, connection).enqueue(
            "workers.jobs.bot_decision",
            position,
            level,
            seed,
            budget_ms,
            job_id=job_id,
            job_timeout=DECISION_TIMEOUT,
            retry=Retry(max=2),
            result_ttl=RESULT_TTL,
            failure_ttl=FAILURE_TTL,
            description=f"{level} decision",
        )
    return job_id


def export_id_for(
    game_id: str, version: int, viewer: int | None, export_format: str, secret: bytes
) -> str:
    """The one export of a game at a version, as a seat or a spectator sees it, in a format.

    Every request for the same export names the same id, so the same job and
    the same stored bytes. The id is keyed with the server's secret: whoever
    may ask for an export learns its id from the answer, and nobody else can
    compute it (a seat's export's job reports the SHA-256 of bytes that hold
    that seat's hand, which an opponent could match against the few hands left).
    """
    seen_by = "spectator" if viewer is None else f"seat{viewer}"
    name = f"export|{game_id}|{version}|{seen_by}|{export_format}"
    return hmac.new(secret, name.encode(), hashlib.sha256).hexdigest()[:32]


def enqueue_export(
    connection: Redis,
    game_id: str,
    version: int,
    viewer: int | None,
    export_format: str,
    *,
    secret: bytes,
    stored: Callable[[str], bool],
    admit: Admit = admit_all,
) -> tuple[str, str]:
    """Ask a worker to build a replay export, once; returns the job's id and the export's.

    A request for an export that is stored (``stored(export_id)``), or whose
    job is queued or running, joins that job: nothing new is queued or kept.
    """
    export_id = export_id_for(game_id, version, viewer, export_format, secret)
    job_id = f"export-{export_id}"

    def reusable(job: Job) -> bool:
        status = job.get_status()
        return status in UNFINISHED or (status == JobStatus.FINISHED and stored(export_id))

    _enqueue_once(
        connection,
        EXPORTS,
        job_id,
        reusable,
        admit,
        lambda: queue(EXPORTS, connection).enqueue(
            "workers.jobs.export_replay",
            game_id,
            viewer,
            export_format,
            export_id,
            version,
            job_id=job_id,
            job_timeout=EXPORT_TIMEOUT,
            retry=Retry(max=3, interval=[2, 10, 30]),  # backoff: nobody waits on a move
            result_ttl=EXPORT_RESULT_TTL,
            failure_ttl=FAILURE_TTL,
            description=f"{export_format} export of game {game_id} at version {version}",
        ),
    )
    return job_id, export_id


def _enqueue_once(
    connection: Redis,
    queue_name: str,
    job_id: str,
    reusable: Callable[[Job], bool],
    admit: Admit,
    enqueue: Callable[[], Job],
) -> None:
    """Enqueue the job ``job_id`` unless a reusable one is there; one request at a time.

    A request that finds another enqueueing the same job (its claim) joins it.
    """
    if _reusable(connection, job_id, reusable):
        return
    claim = f"sch:claim:{job_id}"
    if not connection.set(claim, 1, nx=True, ex=CLAIM_SECONDS):
        return
    try:
        if _reusable(connection, job_id, reusable):  # enqueued while this one looked
            return
        with admit(queue_name, job_id):
            enqueue()
    finally:
        connection.delete(claim)


def _reusable(connection: Redis, job_id: str, reusable: Callable[[Job], bool]) -> bool:
    try:
        job = Job.fetch(job_id, connection=connection, serializer=JSONSerializer)
    except NoSuchJobError:
        return False
    return reusable(job)


def analysis_job_id(game_id: str, parts: list[tuple[int, int]]) -> str:
    """One job per game and set of parts: a second request while it runs joins it."""
    digest = hashlib.sha256(repr(sorted(parts)).encode()).hexdigest()[:16]
    return f"analysis-{game_id}-{digest}"


def enqueue_analysis(
    connection: Redis,
    game_id: str,
    parts: list[tuple[int, int]],
    *,
    admit: Admit = admit_all,
) -> str:
    """Ask a worker to analyse the (deal, seat) parts of a game (cached parts are skipped).

    A job for the same parts that is still queued or running is reused; the job's id.
    """
    job_id = analysis_job_id(game_id, parts)
    _enqueue_once(
        connection,
        EXPORTS,
        job_id,
        lambda job: job.get_status() in UNFINISHED,
        admit,
        lambda: queue(EXPORTS, connection).enqueue(
            "workers.jobs.analyse_game",
            game_id,
            [list(part) for part in parts],
            job_id=job_id,
            job_timeout=ANALYSIS_TIMEOUT,
            retry=Retry(max=2, interval=[2, 10]),
            result_ttl=RESULT_TTL,
            failure_ttl=FAILURE_TTL,
            description=f"analysis of game {game_id}",
        ),
    )
    return job_id


@dataclass(frozen=True, slots=True)
class JobReport:
    """A job as a client sees it: its status, and its result or error."""

    id: str
    status: str
    result: Any = None
    error: str | None = None
    #: The fraction of the work done (analysis jobs), 0 to 1.
    progress: float | None = None

    @property
    def kind(self) -> str:
        """What the job does ("move", "export", "analysis"): its id begins with it."""
        return job_kind(self.id)

    def to_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {"id": self.id, "kind": self.kind, "status": self.status}
        if self.progress is not None:
            body["progress"] = self.progress
        if self.result is not None:
            body["result"] = self.result
        if self.error is not None:
            body["error"] = self.error
        return body


def report(connection: Redis, job_id: str) -> JobReport | None:
    """The public report of a job now; ``None`` for unknown (or non-public) ids."""
    kind = job_kind(job_id)
    if kind not in PUBLIC_KINDS:
        return None
    try:
        job = Job.fetch(job_id, connection=connection, serializer=JSONSerializer)
    except NoSuchJobError:
        return None
    status = job.get_status()
    progress = _progress(job) if kind == "analysis" else None
    if status == JobStatus.FINISHED:
        return JobReport(
            job_id,
            "finished",
            result=job.return_value(),
            progress=1.0 if kind == "analysis" else None,
        )
    if status == JobStatus.FAILED:
        return JobReport(job_id, "failed", error=_last_line(job.exc_info), progress=progress)
    name = str(status.value if hasattr(status, "value") else status)
    return JobReport(job_id, name, progress=progress)


def wait_for_report(
    connection: Redis, watcher: JobWatcher, job_id: str, wait: float
) -> JobReport | None:
    """The public report of a job once it has ended, or after ``wait`` seconds.

    Holds no Redis connection while it waits: the process's ``JobWatcher`` wakes
    it when a worker announces the job's end. It registers before it reads the
    status, so an end between the read and the wait still wakes it.
    """
    found = report(connection, job_id)
    if found is None or found.status in ENDED or wait <= 0:
        return found
    deadline = time.monotonic() + wait
    with watcher.watch(job_id) as ended:
        while True:
            ended.clear()  # before the read: an announcement after it sets it again
            found = report(connection, job_id)
            left = deadline - time.monotonic()
            if found is None or found.status in ENDED or left <= 0:
                return found
            watcher.pause(ended, left)


def _progress(job: Job) -> float:
    """The fraction of an analysis done, as its worker last saved it (0 before it starts)."""
    meta = job.get_meta(refresh=True)
    value = meta.get("progress", 0.0)
    return float(value) if isinstance(value, (int, float)) else 0.0


def live_workers(client: Redis) -> dict[str, int]:
    """Per queue, the registered workers whose key has not expired (read-only)."""
    keys = {name: sorted(Worker.all_keys(queue=queue(name, client))) for name in QUEUES}
    with client.pipeline(transaction=False) as pipe:
        for name in QUEUES:
            for key in keys[name]:
                pipe.exists(key)
        alive = iter(pipe.execute())
    return {name: sum(1 for _ in keys[name] if next(alive)) for name in QUEUES}


def _last_line(text: str | None) -> str:
    if not text:
        return "the job failed"
    return text.strip().splitlines()[-1]
