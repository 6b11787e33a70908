"""Which new jobs a request may queue: a bounded exports queue, a cap per caller on export
and analysis jobs, and each caller's share of the decision workers.

Only a job that is really new is admitted here; a request for an export or an
analysis that is stored, queued or running joins it and costs nothing
(``service.jobs.queues``). A refusal queues and stores nothing:

- the exports queue (exports and analyses) holds at most
  ``EXPORT_QUEUE_MAX_JOBS`` waiting jobs: one more is 503 ``queue_full``;
- a caller (``service.web.callers``) starts at most
  ``EXPORT_JOBS_PER_CALLER_PER_HOUR`` export and analysis jobs an hour: 429
  ``too_many_jobs``;
- decisions (the bot-move service, hints): ``service.jobs.decision_shares``, 429
  ``too_many_decisions``; and the decisions queue holds at most
  ``DECISION_QUEUE_MAX_JOBS`` waiting jobs, all callers together: 503 ``queue_full``.

Each answers problem+json with ``Retry-After``. A limit of 0 turns it off.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from redis import Redis

from service.game.problem_codes import ProblemCode
from service.game.problems import Problem
from service.jobs.decision_shares import DecisionShares, TooManyDecisions, cost_ms
from service.jobs.queues import Admit, queue
from service.web.callers import current_caller
from service.web.limits import Policy, RateLimiter
from service.web.services import queues, services

#: A full exports queue answers: retry after this many seconds (a few jobs' time).
QUEUE_FULL_RETRY_SECONDS = 30
#: A reservation of a place in a queue whose job is not queued yet lapses after this (ms).
RESERVATION_MS = 10_000

_RESERVE = """
local waiting, reserved = KEYS[1], KEYS[2]
local job_id, most, now, lapse = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', reserved, '-inf', now - lapse)
if redis.call('LLEN', waiting) + redis.call('ZCARD', reserved) >= most then
  return 0
end
redis.call('ZADD', reserved, now, job_id)
redis.call('PEXPIRE', reserved, lapse)
return 1
"""


def export_admission() -> Admit:
    """The admission of a new export or analysis job for this request's caller."""
    settings = services().settings
    most = settings.export_queue_max_jobs
    policy = Policy(
        "export_jobs",
        settings.export_jobs_per_caller_per_hour,
        3600,
        "export and analysis jobs",
        code=ProblemCode.TOO_MANY_JOBS,
    )
    caller = current_caller().scope

    @contextmanager
    def admit(queue_name: str, job_id: str) -> Iterator[None]:
        with _place_in_queue(queues(), queue_name, job_id, most):
            if policy.quota > 0:
                limiter = RateLimiter(services().redis)
                usage = limiter.hit(policy, caller)
                if usage.exceeded:
                    raise Problem(
                        f"more than {policy.quota} {policy.what} in {policy.window} s for this "
                        f"caller; retry in {usage.reset} s (asking again for an export or "
                        "analysis already made costs nothing)",
                        code=policy.code,
                        headers={"Retry-After": str(max(usage.reset, 1))},
                    )
            yield

    return admit


@contextmanager
def _place_in_queue(client: Redis, queue_name: str, job_id: str, most: int) -> Iterator[None]:
    """A place among the ``most`` waiting jobs of the queue, held while the job is enqueued."""
    if most <= 0:
        yield
        return
    reserved = f"sch:reserved:{queue_name}"
    seconds, micros = client.time()
    now_ms = int(seconds) * 1000 + int(micros) // 1000
    waiting = queue(queue_name, client).key
    if not client.eval(_RESERVE, 2, waiting, reserved, job_id, most, now_ms, RESERVATION_MS):
        raise Problem(
            f"the {queue_name} queue holds {most} waiting jobs, as many as it may; retry "
            f"in {QUEUE_FULL_RETRY_SECONDS} s",
            code=ProblemCode.QUEUE_FULL,
            headers={"Retry-After": str(QUEUE_FULL_RETRY_SECONDS)},
        )
    try:
        yield
    finally:
        client.zrem(reserved, job_id)


def decision_admission(level: str, budget_ms: int | None, also: Sequence[str] = ()) -> Admit:
    """The admission of a new decision: the caller's share (and ``also``'s, a hint's seat)."""
    settings = services().settings
    shares = DecisionShares(
        queues(), settings.decision_ms_per_caller, settings.decisions_per_caller
    )
    callers = [current_caller().scope, *also]
    cost = cost_ms(level, budget_ms)

    most = settings.decision_queue_max_jobs

    @contextmanager
    def admit(queue_name: str, job_id: str) -> Iterator[None]:
        with _place_in_queue(queues(), queue_name, job_id, most), _share(job_id):
            yield

    @contextmanager
    def _share(job_id: str) -> Iterator[None]:
        try:
            shares.book(callers, job_id, cost)
        except TooManyDecisions as refused:
            held = refused.refusal
            raise Problem(
                f"this caller has {held.pending_jobs} decisions with {held.pending_ms} ms of "
                f"think time queued or running, its share (at most "
                f"{shares.decisions_per_caller} decisions and {shares.ms_per_caller} ms); "
                f"retry in {held.retry_after} s",
                code=ProblemCode.TOO_MANY_DECISIONS,
                headers={"Retry-After": str(held.retry_after)},
            ) from None
        try:
            yield
        except BaseException:
            shares.release(callers, job_id)
            raise

    return admit
