"""A worker on a full store stays up, takes no job, and makes room where it can.

RQ's worker writes its own bookkeeping to the queues' Redis at every step: its
registration, heartbeats and state, a job's execution, registries and hash. A
Redis past its ``maxmemory`` under ``noeviction`` (``service.store.full``)
refuses each of those writes, and RQ's loop ends the worker at the first
refusal; started again, the worker meets the refusal at its registration and
exits again (a crash loop), while the jobs that would free memory (archiving,
the sweep) cannot run. So a worker here (``RoomKeeping``, a part of
``workers.worker.SchnapsenWorker``):

- skips a write of its own bookkeeping that is refused for memory (logged once
  while the store is full): the next heartbeat tries again;
- looks at the queues' Redis before each dequeue (``INFO memory``, a read): while
  it is full, it takes no job (a job taken could not be recorded as started,
  and a worker of several queues takes one out of its queue with a read), and
  instead calls ``make_room`` every ``ROOM_POLL_SECONDS``: the workers of the
  archive queue run the sweep in their own process, which on a full store
  forgets archived games before their grace is over and archives ended games
  at once (``workers.jobs.sweep``);
- waits in the same way to register, at its start, instead of exiting (and
  leaves RQ's scheduler, whose locks are writes, to its maintenance's next try);
- once there is room, registers again (its registration may have lapsed
  meanwhile) and puts back at the front of its queue a job it took just as the
  store filled up and could not record as started.

A job that ran while the store filled up and whose end could not be recorded
stays started; its execution lapses, and a worker's maintenance finds it
abandoned and runs it again once there is room (every job here is safe to run
twice: a bot's move expects its version, the archive writes a game once).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

import redis
from redis.client import Pipeline
from rq import Queue, Worker, worker_registration
from rq.executions import Execution
from rq.job import Job

from service.store.full import refused_for_memory, room

log = logging.getLogger(__name__)

#: Seconds between looks at a full store (and passes of ``make_room``).
ROOM_POLL_SECONDS = 1.0


class JobNotTaken(Exception):
    """A dequeued job whose start the full store refused to record: it goes back."""

    def __init__(self, job: Job):
        super().__init__(f"job {job.id} could not be recorded as started")
        self.job = job


class RoomKeeping(Worker):
    """RQ's worker that lives through a full store (see the module docstring)."""

    #: Called once per look while the queues' Redis is full: makes room (the sweep), or None.
    make_room: Callable[[], object] | None = None
    #: When this worker first met the full store (``time.monotonic``); None: there is room.
    _full_since: float | None = None

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        #: Jobs taken out of their queue whose start could not be recorded, to put back.
        self._taken_back: list[tuple[str, Queue]] = []

    # -- the worker's own bookkeeping --------------------------------------
    def register_birth(self) -> None:
        """Register; on a full store, wait for room (making room) instead of exiting."""
        while True:
            try:
                super().register_birth()
            except redis.exceptions.ResponseError as error:
                if not refused_for_memory(error):
                    raise
                self._refused("register", error)
                self._one_pass_while_full()
                continue
            self._full_since = None
            return

    def register_death(self) -> None:
        self._skip_if_full("register its end", super().register_death)

    def heartbeat(self, timeout: int | None = None, pipeline: Pipeline | None = None) -> None:
        self._skip_if_full("beat", lambda: super(RoomKeeping, self).heartbeat(timeout, pipeline))

    def maintain_heartbeats(self, job: Job, execution: Execution) -> None:
        self._skip_if_full(
            f"beat for job {job.id}",
            lambda: super(RoomKeeping, self).maintain_heartbeats(job, execution),
        )

    def set_state(self, state: str, pipeline: Pipeline | None = None) -> None:
        self._skip_if_full(
            "record its state", lambda: super(RoomKeeping, self).set_state(state, pipeline)
        )

    def check_for_suspension(self, burst: bool) -> None:
        """RQ's look for a suspension beats first (a write): skipped on a full store."""
        self._skip_if_full(
            "look for a suspension",
            lambda: super(RoomKeeping, self).check_for_suspension(burst),
        )

    def set_shutdown_requested_date(self) -> None:
        """A stop asked for on a full store stops the worker all the same."""
        self._skip_if_full("record a stop request", super().set_shutdown_requested_date)

    def run_maintenance_tasks(self) -> None:
        self._skip_if_full("run its maintenance", super().run_maintenance_tasks)

    def _start_scheduler(self, *args: Any, **kwargs: Any) -> None:
        """RQ's scheduler (its locks are writes): on a full store, maintenance starts it later."""
        self._skip_if_full(
            "start its scheduler",
            lambda: super(RoomKeeping, self)._start_scheduler(*args, **kwargs),
        )

    # -- taking jobs ---------------------------------------------------------
    def dequeue_job_and_maintain_ttl(
        self, timeout: int | None, max_idle_time: int | None = None
    ) -> tuple[Job, Queue] | None:
        """A job, taken only while the queues' Redis has room."""
        while True:
            self._wait_for_room()
            try:
                return super().dequeue_job_and_maintain_ttl(timeout, max_idle_time)
            except redis.exceptions.ResponseError as error:
                if not refused_for_memory(error):
                    raise
                self._refused("take a job", error)

    def prepare_execution(self, job: Job) -> Execution:
        try:
            return super().prepare_execution(job)
        except redis.exceptions.ResponseError as error:
            if not refused_for_memory(error):
                raise
            self.executions.clear()  # the one RQ had noted was never written
            raise JobNotTaken(job) from error

    def execute_job(self, job: Job, queue: Queue) -> None:
        try:
            super().execute_job(job, queue)
        except JobNotTaken as error:
            self._refused(f"start job {job.id}", error)
            self._taken_back.append((error.job.id, queue))
        except redis.exceptions.ResponseError as error:
            if not refused_for_memory(error):
                raise
            # Its execution lapses; a worker's maintenance runs it again once there is room.
            self._refused(f"record the end of job {job.id}", error)

    # -- the full store ------------------------------------------------------
    def _wait_for_room(self) -> None:
        """Return once the queues' Redis has room, making room meanwhile; then catch up."""
        while self._full_now():
            self._one_pass_while_full()
        if self._full_since is not None or self._taken_back:
            self._room_again()

    def _full_now(self) -> bool:
        try:
            full = room(self.connection).full
        except redis.RedisError:  # unreachable: RQ's own dequeue waits for it
            return False
        if full:
            self._refused("take a job", None)
        return full

    def _one_pass_while_full(self) -> None:
        if self.make_room is not None:
            try:
                self.make_room()
            except Exception:  # noqa: BLE001  (the next pass tries again; the worker stays)
                log.warning("worker %s could not make room in this pass", self.name, exc_info=True)
        time.sleep(ROOM_POLL_SECONDS)

    def _room_again(self) -> None:
        """Register again (the registration may have lapsed) and put taken jobs back."""
        try:
            with self.connection.pipeline() as pipeline:
                if self.birth_date is not None and self.last_heartbeat is not None:
                    pipeline.hset(self.key, mapping=self.serialize())
                    worker_registration.register(self, pipeline)
                    pipeline.expire(self.key, self.worker_ttl + 60)
                for job_id, queue in self._taken_back:
                    pipeline.lrem(queue.intermediate_queue_key, 1, job_id)
                    queue.push_job_id(job_id, pipeline=pipeline, at_front=True)
                pipeline.execute()
        except redis.exceptions.ResponseError as error:
            if not refused_for_memory(error):
                raise
            self._refused("register again", error)
            return
        taken_back = len(self._taken_back)
        waited = time.monotonic() - self._full_since if self._full_since is not None else 0.0
        log.warning(
            "the store has room again: worker %s takes jobs after %.0f s (%d put back)",
            self.name,
            waited,
            taken_back,
        )
        self._taken_back.clear()
        self._full_since = None

    def _skip_if_full(self, what: str, write: Callable[[], object]) -> None:
        try:
            write()
        except redis.exceptions.ResponseError as error:
            if not refused_for_memory(error):
                raise
            self._refused(what, error)

    def _refused(self, what: str, error: BaseException | None) -> None:
        """Note the full store; the first refusal of a full spell is logged."""
        if self._full_since is not None:
            return
        self._full_since = time.monotonic()
        log.warning(
            "the store is full: worker %s cannot %s and waits for room%s",
            self.name,
            what,
            f" ({error})" if error else "",
        )


__all__ = ["ROOM_POLL_SECONDS", "JobNotTaken", "RoomKeeping"]
