"""Each caller's share of the decision workers (the bot-move service and hints), in think time.

Decisions wait on one queue, first come first served, so a caller who queues
many long searches would hold every other caller's decision behind them. A
caller (a client app by its key, else its address; a hint also its seat) may
have at most ``DECISION_MS_PER_CALLER`` ms of think time and
``DECISIONS_PER_CALLER`` decisions queued or running at once; one more is
refused (429 ``too_many_decisions``) until some of them are done.

The ledger of each caller is a Redis hash in the queues' Redis (job id ->
"cost admitted_ms"); one Lua call checks and books a new decision for all
of its callers at once, reading each booked job's RQ status, so a finished,
failed or expired job frees its share without anyone releasing it (a
killed worker cannot leak a share). A booking whose job is not yet saved
counts for ``ENQUEUE_GRACE_MS``.

Hence the bound: behind one flooding caller another caller's decision waits
at most ``wait_bound_seconds(DECISION_MS_PER_CALLER, DECISIONS_PER_CALLER)``
on one worker serving decisions (bot opponents' moves, which come first, aside).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from redis import Redis

from service.bots.catalog import CATALOG
from service.bots.expert import GUARD_MARGIN_MS

#: At most this long, in seconds, for one decision job beyond its think time: the worker's
#: fork, loading the position, a level that does not search, and saving the result.
JOB_START_SECONDS = 1.0
#: A booking whose job is not in Redis yet counts this long (ms): the enqueue in between.
ENQUEUE_GRACE_MS = 10_000
#: A caller's ledger is forgotten this long (s) after its last booking.
LEDGER_TTL = 3600

#: Think time, per level, when a request gives none; None: the level does not search.
_DEFAULT_BUDGETS = {info.name: info.default_budget_ms for info in CATALOG}
_SEARCHES = {info.name: info.searches for info in CATALOG}

_BOOK = """
local job_id, cost = ARGV[1], tonumber(ARGV[2])
local max_ms, max_jobs, now = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local grace, ttl = tonumber(ARGV[6]), tonumber(ARGV[7])
local unfinished = {created=true, queued=true, started=true, deferred=true, scheduled=true,
                    rate_limited=true, ready_to_enqueue=true}
for _, ledger in ipairs(KEYS) do
  local booked = redis.call('HGETALL', ledger)
  local pending_ms, pending_jobs = 0, 0
  for i = 1, #booked, 2 do
    local id, entry = booked[i], booked[i + 1]
    local booked_cost, at = string.match(entry, '(%d+) (%d+)')
    local status = redis.call('HGET', 'rq:job:' .. id, 'status')
    if (status and unfinished[status]) or (not status and now - tonumber(at) < grace) then
      pending_ms = pending_ms + tonumber(booked_cost)
      pending_jobs = pending_jobs + 1
    else
      redis.call('HDEL', ledger, id)
    end
  end
  if (max_ms > 0 and pending_ms + cost > max_ms) or (max_jobs > 0 and pending_jobs + 1 > max_jobs) then
    return {0, pending_ms, pending_jobs}
  end
end
for _, ledger in ipairs(KEYS) do
  redis.call('HSET', ledger, job_id, cost .. ' ' .. now)
  redis.call('EXPIRE', ledger, ttl)
end
return {1, 0, 0}
"""


def cost_ms(level: str, budget_ms: int | None) -> int:
    """A decision's think time, as its caller's share counts it: a searching level's budget
    (its default when none is given); 0 for a level that does not search."""
    if not _SEARCHES.get(level, False):
        return 0
    budget = _DEFAULT_BUDGETS.get(level) if budget_ms is None else budget_ms
    return max(0, int(budget or 0))


def wait_bound_seconds(ms_per_caller: int, decisions_per_caller: int) -> float:
    """How long another caller's decision can wait behind one flooding caller, one worker.

    The flooder holds at most ``ms_per_caller`` of think time and
    ``decisions_per_caller`` jobs queued or running; a search stops at most
    ``GUARD_MARGIN_MS`` of wall time past its budget (``service.bots.expert``),
    however busy the machine; each job, the other caller's own included, takes
    at most ``JOB_START_SECONDS`` more. With the defaults (4000 ms, 4 jobs):
    4 s + 4 x 0.25 s + 5 s = 10 s.
    """
    searching = ms_per_caller + decisions_per_caller * GUARD_MARGIN_MS
    return searching / 1000 + (decisions_per_caller + 1) * JOB_START_SECONDS


@dataclass(frozen=True, slots=True)
class Refusal:
    """A caller's share is used up: what it holds now, and when to retry."""

    pending_ms: int
    pending_jobs: int

    @property
    def retry_after(self) -> int:
        """Seconds until the held think time is done, about (at least 1)."""
        return max(1, math.ceil(self.pending_ms / 1000))


class TooManyDecisions(Exception):
    def __init__(self, refusal: Refusal):
        super().__init__(refusal)
        self.refusal = refusal


class DecisionShares:
    """The per-caller ledgers of queued and running decisions, in the queues' Redis."""

    def __init__(self, client: Redis, ms_per_caller: int, decisions_per_caller: int):
        self.client = client
        self.ms_per_caller = ms_per_caller
        self.decisions_per_caller = decisions_per_caller
        self._book = client.register_script(_BOOK)

    @property
    def off(self) -> bool:
        return self.ms_per_caller <= 0 and self.decisions_per_caller <= 0

    def book(self, callers: Sequence[str], job_id: str, cost: int) -> None:
        """Book the decision ``job_id`` for every one of ``callers``; raises
        ``TooManyDecisions`` (nothing booked) when one of them has no room left."""
        if self.off:
            return
        admitted, pending_ms, pending_jobs = self._book(
            keys=_ledgers(callers),
            args=[
                job_id,
                cost,
                self.ms_per_caller,
                self.decisions_per_caller,
                _now_ms(self.client),
                ENQUEUE_GRACE_MS,
                LEDGER_TTL,
            ],
        )
        if not admitted:
            raise TooManyDecisions(Refusal(int(pending_ms), int(pending_jobs)))

    def release(self, callers: Sequence[str], job_id: str) -> None:
        """Give back a booking whose job was never enqueued."""
        if self.off:
            return
        with self.client.pipeline(transaction=False) as pipe:
            for ledger in _ledgers(callers):
                pipe.hdel(ledger, job_id)
            pipe.execute()


def _ledgers(callers: Sequence[str]) -> list[str]:
    return [f"sch:decisions:{caller}" for caller in callers]


def _now_ms(client: Redis) -> int:
    """Redis's clock, the one every API process shares (ms)."""
    seconds, micros = client.time()
    return int(seconds) * 1000 + int(micros) // 1000
