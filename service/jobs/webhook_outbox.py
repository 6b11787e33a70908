"""Every app's webhook deliveries wait in the app's own outbox, and apps take turns.

A delivery is not a job of its own: it waits in its app's outbox (a list on
the queues' Redis), and an app with deliveries waiting has exactly one *turn*
(an RQ job, ``workers.jobs.webhook_turn``) queued or running on the
``webhooks`` queue. A turn sends one delivery, the oldest of its app's, once;
then, if the app has more, it queues the app's next turn, behind every turn
already waiting (while no job at all waits, it sends the next one itself, for
up to ``TURN_SECONDS``: the new turn would run next anyway). The queue is first in, first out, so apps take turns round
the table: an app's slow receiver, a burst of its notices or its
redeliveries hold at most one attempt in each round, and a delivery at the
head of its app's outbox starts after at most one attempt of every other app
with deliveries waiting (docs/webhooks.md, "Fair shares").

Keys, on the queues' Redis (never a cluster), per app:

- ``sch:hooks:<app>:outbox``   list: the ids of deliveries due now, oldest first
- ``sch:hooks:<app>:held``     set: the ids in the outbox or being sent; a delivery
  asked for while held is not queued twice
- ``sch:hooks:<app>:again``    set: the held ids the app asked to redeliver: at most
  ``redeliveries_per_app``
- ``sch:hooks:<app>:turn``     string: ``<job id> <unix time>`` of the app's one turn
- ``sch:hooks:apps``           set: the apps with a turn, for the recovery of lost turns

A failed attempt is not retried by RQ: the worker schedules a small job that
puts the delivery back in its outbox after the pause
(``workers.jobs.webhook_due``), so a retry also waits for its app's turn.
"""

from __future__ import annotations

import enum
import time
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Literal

from redis import Redis
from rq import Retry
from rq.job import Job

from service.jobs.names import LEGACY_QUEUES, QUEUES, WEBHOOKS
from service.jobs.queues import FAILURE_TTL, queue

#: A turn's own bound: its attempts (each within its send deadline) and their bookkeeping.
TURN_TIMEOUT = 30
#: While no other job waits, a turn goes on with its app's next delivery for this long
#: (s), each attempt begun only if it can end within ``TURN_TIMEOUT``: one app alone
#: pays no queueing per delivery.
TURN_SECONDS = 10
#: Deliveries an app's outbox holds; a notice past it is recorded as failed at once.
OUTBOX_CAP = 10_000
#: A turn whose job is gone or ended this long after it was set was lost (the process
#: died between the turn and its job): the recovery queues a new one.
LOST_TURN_SECONDS = 60
#: Seconds between recoveries of lost turns, one worker at a time.
RECOVERY_SECONDS = 10

_ADD = """
local id, again = ARGV[1], ARGV[2] == '1'
if redis.call('SISMEMBER', KEYS[2], id) == 1 then return 0 end
if again and redis.call('SCARD', KEYS[3]) >= tonumber(ARGV[3]) then return -1 end
if redis.call('LLEN', KEYS[1]) >= tonumber(ARGV[4]) then return -2 end
if again then redis.call('SADD', KEYS[3], id) end
redis.call('SADD', KEYS[2], id)
redis.call('RPUSH', KEYS[1], id)
if redis.call('SET', KEYS[4], ARGV[5], 'NX') then
  redis.call('SADD', KEYS[5], ARGV[6])
  return 2
end
return 1
"""

_HEAD = """
local turn = redis.call('GET', KEYS[4])
if not turn or string.sub(turn, 1, string.len(ARGV[1]) + 1) ~= ARGV[1] .. ' ' then
  return {-1}
end
local id = redis.call('LINDEX', KEYS[1], 0)
if not id then return {0} end
return {1, id, redis.call('SISMEMBER', KEYS[3], id)}
"""

_DONE = """
if ARGV[1] ~= '' then
  redis.call('LREM', KEYS[1], 1, ARGV[1])
  redis.call('SREM', KEYS[2], ARGV[1])
  redis.call('SREM', KEYS[3], ARGV[1])
end
local turn = redis.call('GET', KEYS[4])
if not turn or string.sub(turn, 1, string.len(ARGV[2]) + 1) ~= ARGV[2] .. ' ' then
  return 0
end
if redis.call('LLEN', KEYS[1]) > 0 then
  if ARGV[5] == '1' then return 2 end
  redis.call('SET', KEYS[4], ARGV[3])
  return 1
end
redis.call('DEL', KEYS[4])
redis.call('SREM', KEYS[5], ARGV[4])
return 0
"""

_REPLACE = """
local turn = redis.call('GET', KEYS[4])
if turn ~= (ARGV[1] ~= '' and ARGV[1] or false) then return 0 end
if redis.call('LLEN', KEYS[1]) == 0 then
  if turn then redis.call('DEL', KEYS[4]) end
  redis.call('SREM', KEYS[5], ARGV[3])
  return 0
end
redis.call('SET', KEYS[4], ARGV[2])
return 1
"""


class Asked(enum.Enum):
    """What became of a delivery put in its app's outbox."""

    #: In the outbox now, behind the app's other deliveries.
    QUEUED = "queued"
    #: Already in the outbox or being sent (or this keyed request was made before):
    #: nothing more is queued.
    HELD = "held"
    #: The app has as many redeliveries waiting as it may.
    TOO_MANY_AGAIN = "too_many_again"
    #: The app's outbox is full.
    OUTBOX_FULL = "outbox_full"


@dataclass(frozen=True, slots=True)
class Head:
    """The delivery a turn sends: the oldest of its app's, and whether the app asked
    for it again (then it is one attempt and a fresh round of retries)."""

    delivery_id: str
    asked_again: bool


def _keys(app: str) -> list[str]:
    base = f"sch:hooks:{app}"
    return [f"{base}:outbox", f"{base}:held", f"{base}:again", f"{base}:turn", "sch:hooks:apps"]


def turn_job_id() -> str:
    return f"hookturn-{uuid.uuid4().hex}"


def _turn_value(job_id: str) -> str:
    return f"{job_id} {int(time.time())}"


class AppOutboxes:
    """The outboxes of every app and their turns, on the queues' Redis."""

    def __init__(
        self,
        connection: Redis,
        *,
        redeliveries_per_app: int = 50,
        outbox_cap: int = OUTBOX_CAP,
    ):
        self.connection = connection
        self.redeliveries_per_app = redeliveries_per_app
        self.outbox_cap = outbox_cap
        self._add = connection.register_script(_ADD)
        self._head = connection.register_script(_HEAD)
        self._done = connection.register_script(_DONE)
        self._replace = connection.register_script(_REPLACE)

    def add(self, app: str, delivery_id: str) -> Asked:
        """A new delivery, or one whose retry is due: in the app's outbox, once."""
        return self._put(app, delivery_id, again=False)

    def ask_again(self, app: str, delivery_id: str) -> Asked:
        """The app asks for a delivery again: queued once while it waits or is being sent,
        within the app's cap of redeliveries waiting. (A retried request with its
        Idempotency-Key is answered its first answer before it gets here.)"""
        return self._put(app, delivery_id, again=True)

    def _put(self, app: str, delivery_id: str, *, again: bool) -> Asked:
        job_id = turn_job_id()
        found = int(
            self._add(
                keys=_keys(app),
                args=[
                    delivery_id,
                    "1" if again else "0",
                    self.redeliveries_per_app,
                    self.outbox_cap,
                    _turn_value(job_id),
                    app,
                ],
            )
        )
        if found == 2:
            self._enqueue_turn(app, job_id)
        return {
            2: Asked.QUEUED,
            1: Asked.QUEUED,
            0: Asked.HELD,
            -1: Asked.TOO_MANY_AGAIN,
        }.get(found, Asked.OUTBOX_FULL)

    def head(self, app: str, turn_id: str) -> Head | None | Literal[False]:
        """The delivery this turn sends; None when the outbox is empty; False when this is
        not the app's turn (a stale copy of a turn: it sends nothing)."""
        found = self._head(keys=_keys(app), args=[turn_id])
        if found[0] == -1:
            return False
        if found[0] == 0:
            return None
        raw = found[1]
        return Head(raw.decode() if isinstance(raw, bytes) else str(raw), bool(found[2]))

    def done(self, app: str, turn_id: str, delivery_id: str | None, *, go_on: bool = False) -> bool:
        """The turn's attempt is over: the delivery leaves the outbox. If the app has more,
        the turn goes on with ``go_on`` (nothing else waits: ``others_waiting``), else the
        app's next turn is queued, behind every other app's. Whether the app had more."""
        job_id = turn_job_id()
        more = int(
            self._done(
                keys=_keys(app),
                args=[delivery_id or "", turn_id, _turn_value(job_id), app, "1" if go_on else "0"],
            )
        )
        if more == 1:
            self._enqueue_turn(app, job_id)
        return more > 0

    def others_waiting(self) -> bool:
        """Whether any job waits on any queue: another app's turn, or work that comes
        before webhooks. While none does, a turn may send its app's next delivery at once
        instead of queueing a new turn (which would run next anyway)."""
        with self.connection.pipeline(transaction=False) as pipe:
            for name in (*QUEUES, *LEGACY_QUEUES):
                pipe.llen(f"rq:queue:{name}")
            return any(int(length) for length in pipe.execute())

    def schedule_retry(
        self, app: str, delivery_id: str, round_: int, retry: int, pause: float
    ) -> None:
        """Put the delivery back in its outbox after ``pause`` s (``workers.jobs.webhook_due``)."""
        queue(WEBHOOKS, self.connection).enqueue_in(
            timedelta(seconds=pause),
            "workers.jobs.webhook_due",
            app,
            delivery_id,
            round_,
            job_id=f"hookdue-{delivery_id}-{round_}-{retry}",
            job_timeout=TURN_TIMEOUT,
            result_ttl=1,
            failure_ttl=FAILURE_TTL,
            description=f"webhook delivery {delivery_id} due again",
        )

    def recover(self, *, now: float | None = None) -> int:
        """Queue a turn for every app whose turn was lost (its job gone or ended
        ``LOST_TURN_SECONDS`` after it was set), or that has deliveries and no turn.
        One worker at a time, every ``RECOVERY_SECONDS``; the turns queued."""
        if not self.connection.set("sch:hooks:recovering", 1, nx=True, ex=RECOVERY_SECONDS):
            return 0
        now = time.time() if now is None else now
        queued = 0
        for raw in self.connection.sscan_iter("sch:hooks:apps", count=500):
            app = raw.decode() if isinstance(raw, bytes) else str(raw)
            keys = _keys(app)
            held = self.connection.get(keys[3])
            turn = held.decode() if isinstance(held, bytes) else held
            if turn is not None and not self._lost(turn, now):
                continue
            job_id = turn_job_id()
            if int(self._replace(keys=keys, args=[turn or "", _turn_value(job_id), app])):
                self._enqueue_turn(app, job_id)
                queued += 1
        return queued

    def _lost(self, turn: str, now: float) -> bool:
        job_id, _, since = turn.partition(" ")
        if now - float(since or 0) < LOST_TURN_SECONDS:
            return False
        raw = self.connection.hget(Job.key_for(job_id), "status")
        status = raw.decode() if isinstance(raw, bytes) else raw
        return status not in ("queued", "started", "scheduled", "deferred", "created")

    def _enqueue_turn(self, app: str, job_id: str) -> None:
        queue(WEBHOOKS, self.connection).enqueue(
            "workers.jobs.webhook_turn",
            app,
            job_id=job_id,
            job_timeout=TURN_TIMEOUT,
            # a turn whose worker was killed runs again (and sends its delivery again)
            retry=Retry(max=3),
            # Not 0: RQ would delete the job with its executions (service.jobs.queues)
            result_ttl=1,
            failure_ttl=FAILURE_TTL,
            description=f"webhooks of app {app}: one delivery",
        )


__all__ = [
    "OUTBOX_CAP",
    "TURN_SECONDS",
    "TURN_TIMEOUT",
    "AppOutboxes",
    "Asked",
    "Head",
    "turn_job_id",
]
