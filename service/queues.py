"""Enqueueing jobs by dotted name on the queues of ``service.queue_names``, and their reports.

Here in ``service``, so the API enqueues without importing the workers:
jobs are named by their dotted names (``workers.jobs.bot_move``), sent with
the JSON serializer, and take only ids and small JSON. The workers import
this module too (``queue``, ``bot_seed``); never the other way round.
"""

from __future__ import annotations

import hashlib
import time
import uuid
from dataclasses import dataclass
from typing import Any

from redis import Redis
from rq import Queue, Retry
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer
from rq.worker import Worker

from service.job_watch import JobWatcher
from service.queue_names import DECISIONS, EXPORTS, MOVES, QUEUES

#: Per kind of job: (queue, timeout s, retry policy, result TTL s).
BOT_MOVE_TIMEOUT = 20
DECISION_TIMEOUT = 30
EXPORT_TIMEOUT = 60
#: A whole game's analysis takes at most 30 s on one worker (benchmarks/analysis.py).
ANALYSIS_TIMEOUT = 180
#: Finished results are kept this long (seconds) for GET /v1/jobs/{id}.
RESULT_TTL = 3600
FAILURE_TTL = 24 * 3600

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


def bot_seed(game_id: str, version: int) -> int:
    """A bot's seed for one position of one game: reproducible, not guessable from outside."""
    digest = hashlib.sha256(f"{game_id}:{version}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def enqueue_bot_move(connection: Redis, game_id: str, version: int) -> str:
    """Ask a worker to play the bot's move at ``version`` (at most once per version)."""
    job_id = bot_move_job_id(game_id, version)
    if Job.exists(job_id, connection=connection):
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


def enqueue_decision(
    connection: Redis,
    position: dict[str, Any],
    level: str,
    *,
    seed: int,
    budget_ms: int | None,
    kind: str = "move",
) -> Job:
    """Ask a worker for a bot's decision in a position (the bot-move service, hints)."""
    return queue(DECISIONS, connection).enqueue(
        "workers.jobs.bot_decision",
        position,
        level,
        seed,
        budget_ms,
        job_id=f"{kind}-{uuid.uuid4().hex}",
        job_timeout=DECISION_TIMEOUT,
        retry=Retry(max=2),
        result_ttl=RESULT_TTL,
        failure_ttl=FAILURE_TTL,
        description=f"{level} decision",
    )


def enqueue_export(
    connection: Redis, game_id: str, viewer: int | None, export_format: str
) -> tuple[Job, str]:
    """Ask a worker to build a replay export; returns the job and the export's id."""
    export_id = uuid.uuid4().hex
    job = queue(EXPORTS, connection).enqueue(
        "workers.jobs.export_replay",
        game_id,
        viewer,
        export_format,
        export_id,
        job_id=f"export-{export_id}",
        job_timeout=EXPORT_TIMEOUT,
        retry=Retry(max=3, interval=[2, 10, 30]),  # backoff: nobody waits on a move
        result_ttl=RESULT_TTL,
        failure_ttl=FAILURE_TTL,
        description=f"{export_format} export of game {game_id}",
    )
    return job, export_id


def analysis_job_id(game_id: str, parts: list[tuple[int, int]]) -> str:
    """One job per game and set of parts: a second request while it runs joins it."""
    digest = hashlib.sha256(repr(sorted(parts)).encode()).hexdigest()[:16]
    return f"analysis-{game_id}-{digest}"


def enqueue_analysis(connection: Redis, game_id: str, parts: list[tuple[int, int]]) -> Job:
    """Ask a worker to analyse the (deal, seat) parts of a game (cached parts are skipped).

    A job for the same parts that is still queued or running is reused.
    """
    job_id = analysis_job_id(game_id, parts)
    try:
        job = Job.fetch(job_id, connection=connection, serializer=JSONSerializer)
    except NoSuchJobError:
        job = None
    if job is not None and job.get_status() not in (
        JobStatus.FINISHED,
        JobStatus.FAILED,
        JobStatus.STOPPED,
        JobStatus.CANCELED,
    ):
        return job
    return queue(EXPORTS, connection).enqueue(
        "workers.jobs.analyse_game",
        game_id,
        [list(part) for part in parts],
        job_id=job_id,
        job_timeout=ANALYSIS_TIMEOUT,
        retry=Retry(max=2, interval=[2, 10]),
        result_ttl=RESULT_TTL,
        failure_ttl=FAILURE_TTL,
        description=f"analysis of game {game_id}",
    )


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
