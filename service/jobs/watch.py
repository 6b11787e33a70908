"""Waiting for a job to end: one listener per server process, no Redis connection per waiter.

A client that asks for a job with ``?wait=S`` (the bot-move service, hints,
``GET /v1/jobs/{id}``) waits for a worker. Blocking in Redis for it (RQ's
``latest_result(timeout)``) held one pooled connection per waiter, so a few
hundred waits took every connection of a process and stalled everyone
else's. Here a waiter costs one ``threading.Event`` (a greenlet's worth under
gevent) and no connection, as the event feeds' waiters do (``service.live.watcher``):

- a worker PUBLISHes the job's id on ``sch:jobs:ended`` of the queues' Redis
  whenever a job ends (finished, failed, or put back for a retry:
  ``workers.worker``);
- one ``JobWatcher`` per process holds the only subscription (a thread; a
  greenlet under gevent) and wakes that process's waiters of the job;
- a waiter registers first and reads the job's status after, so an end that
  lands between the two is never missed ("check after subscribing");
- while the subscription is lost (Redis restarted), every waiter is woken and
  looks again every ``UNHEARD_POLL_SECONDS``, so nothing published meanwhile
  is missed either.

The queues live on a plain Redis even when the game log is a Redis Cluster
(``QUEUE_REDIS_URL``), so one plain subscription hears every worker.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress

import redis

log = logging.getLogger(__name__)

#: The channel workers publish every ended job's id on (the queues' Redis).
CHANNEL = "sch:jobs:ended"
#: While the subscription is lost, a waiter looks at its job this often.
UNHEARD_POLL_SECONDS = 0.5


def announce_ended(connection: redis.Redis, job_id: str) -> None:
    """Tell the servers' watchers that ``job_id`` has ended (its status is saved)."""
    connection.publish(CHANNEL, job_id)


class JobWatcher:
    """The one job subscription of a server process, and the waiters it wakes."""

    def __init__(self, connect: Callable[[], redis.Redis]):
        self._connect = connect
        self._lock = threading.Lock()
        self._waiters: dict[str, set[threading.Event]] = {}
        self._pid: int | None = None
        self._subscribed = threading.Event()
        self._hearing = False
        self._closed = threading.Event()
        self._pubsub: redis.client.PubSub | None = None

    @contextmanager
    def watch(self, job_id: str) -> Iterator[threading.Event]:
        """An event set when ``job_id`` may have ended; read the job's status inside."""
        self._ensure_listening()
        ended = threading.Event()
        with self._lock:
            self._waiters.setdefault(job_id, set()).add(ended)
        try:
            yield ended
        finally:
            with self._lock:
                waiting = self._waiters.get(job_id)
                if waiting is not None:
                    waiting.discard(ended)
                    if not waiting:
                        del self._waiters[job_id]

    def pause(self, ended: threading.Event, seconds: float) -> None:
        """Wait up to ``seconds`` for ``ended``; while the subscription is lost, look
        again every ``UNHEARD_POLL_SECONDS`` (an end may go unheard)."""
        if not self._hearing:
            seconds = min(seconds, UNHEARD_POLL_SECONDS)
        ended.wait(seconds)

    @property
    def waiting(self) -> int:
        """Waiters of this process now (for tests and metrics)."""
        with self._lock:
            return sum(len(events) for events in self._waiters.values())

    def notify(self, job_id: str) -> None:
        with self._lock:
            events = list(self._waiters.get(job_id, ()))
        for ended in events:
            ended.set()

    def wake_all(self) -> None:
        with self._lock:
            events = [e for group in self._waiters.values() for e in group]
        for ended in events:
            ended.set()

    def close(self) -> None:
        """End the listener (an app that goes away before its Redis); waiters are woken."""
        self._closed.set()
        self._hearing = False
        pubsub = self._pubsub
        if pubsub is not None:
            with suppress(Exception):
                pubsub.close()
        self.wake_all()

    def _ensure_listening(self) -> None:
        """Start listening once per process (after a fork, again)."""
        if self._pid == os.getpid():
            return
        with self._lock:
            if self._pid == os.getpid():
                return
            self._pid = os.getpid()
            self._subscribed.clear()
            threading.Thread(target=self._listen, name="job-watcher", daemon=True).start()
        # The first waiter waits for the subscription, so it cannot miss a publish.
        self._subscribed.wait(5)

    def _listen(self) -> None:
        backoff = 0.1
        while not self._closed.is_set():
            try:
                pubsub = self._pubsub = self._connect().pubsub(ignore_subscribe_messages=True)
                pubsub.subscribe(CHANNEL)
                pubsub.get_message(timeout=5)  # the subscription's confirmation
                self._hearing = True
                self.wake_all()  # anything ended while we were not listening: look again
                self._subscribed.set()
                backoff = 0.1
                while not self._closed.is_set():
                    message = pubsub.get_message(timeout=30)
                    if message is not None and message["type"] == "message":
                        self.notify(message["data"].decode())
            except Exception as error:  # lost Redis: wake everyone, then resubscribe
                if self._closed.is_set():
                    return
                log.warning("job watcher lost its subscription (%s); resubscribing", error)
                self._hearing = False
                self._subscribed.set()  # do not hold new waiters; they look on their own
                self.wake_all()
                self._closed.wait(backoff)
                backoff = min(backoff * 2, 5)


__all__ = ["CHANNEL", "JobWatcher", "announce_ended"]
