"""Waiting for a game's next event: one listener per server process, no Redis call per waiter.

Most clients spend their life waiting for the other side's move, on a
long-poll or an SSE stream. A waiter here costs one ``threading.Event`` (under
gunicorn's gevent worker: a greenlet, a few KiB) and no Redis connection:

- the append script PUBLISHes ``"<game_id> <version>"`` on ``sch:appended``
  after every append, with the new events on the lines after it
  (``service.store.events``);
- one ``LogWatcher`` per process holds the only subscription (a thread; a
  greenlet under gevent) and wakes that process's waiters of the game;
- a waiter registers first and reads the version after, so an append that
  lands between its read and its wait is never missed ("check after
  subscribing"); the version it reads is the newest announced one, or, for a
  game not announced since the process subscribed, the log's head, which
  the process then remembers (every later append is announced on top of it);
- a wait that ends with nothing announced (most do: the other side is
  thinking) proves the log has not grown, so its empty answer, a long-poll's
  or an SSE heartbeat's, reads nothing from Redis either (``Waited``);
- when the subscription is lost (Redis restarted) every waiter is woken to
  look again, so nothing published meanwhile is missed either;
- the waiters of one game wake together at the same version, and the
  announcement brought the events they wait for (``LogWatcher.news``): they
  read nothing from Redis; when it did not (a waiter further behind), ``OneRead``
  lets the first of them read the log while the others wait for its answer,
  and ``Recent`` keeps the newest answers per process for those who come later;
- a waiter whose client has gone (closed socket) gives its slot back within
  ``CLOSED_CHECK_SECONDS``, without waiting for a heartbeat: one sweep per
  process polls every waiter's socket at once.
"""

from __future__ import annotations

import logging
import os
import select
import socket
import threading
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from enum import Enum
from typing import Generic, TypeVar

import redis

log = logging.getLogger(__name__)

T = TypeVar("T")

#: The channel the append script publishes every append on.
CHANNEL = "sch:appended"
#: The SSE event that closes a finished game's stream (then the server closes it).
END_EVENT = "end"
#: Games whose newest announced version a process remembers.
ANNOUNCED_GAMES = 100_000
#: Games whose last announced events a process keeps for the waiters they woke.
NEWS_GAMES = 10_000
#: How often a waiter looks whether its client has gone.
CLOSED_CHECK_SECONDS = 0.5


@dataclass(eq=False)
class Waiter:
    """One waiting request: woken when its game's log passes ``after``, or its client left."""

    game_id: str
    after: int
    #: The request's socket, watched for the client leaving (None: not watched).
    client: socket.socket | None = None
    woken: threading.Event = field(default_factory=threading.Event)
    #: The newest version a publish announced (0: none yet), so a woken waiter
    #: need not ask Redis again.
    announced: int = 0
    #: The client closed its connection: stop waiting and give the slot back.
    gone: bool = False

    def wait(self, timeout: float) -> bool:
        """Wait until woken or ``timeout``; False when not woken or the client has gone."""
        return self.woken.wait(timeout) and not self.gone


class Waited(Enum):
    """How a wait for a game's next event ended."""

    #: The log passed the version waited after.
    APPENDED = "appended"
    #: Time ran out with nothing announced: the log is still at that version.
    UNCHANGED = "unchanged"
    #: Time ran out or the client left, and this process cannot vouch for the head.
    UNKNOWN = "unknown"


def client_gone(client: socket.socket) -> bool:
    """The peer closed the connection: readable, and a peek reads nothing.

    Looked at with one ``poll(0)`` (``_readable``), never ``select``: a process
    holding thousands of waiting clients has sockets whose descriptors are past
    1024, where ``select`` raises ``ValueError`` (under gevent's patch too), and
    reading that error as "gone" ended every such stream at its first quiet
    heartbeat (tests/live/test_streams_on_high_descriptors.py).
    """
    if client.fileno() < 0:  # already closed on our side
        return True
    if not _readable([client]):
        return False
    try:
        return client.recv(1, socket.MSG_PEEK) == b""
    except OSError:  # reset by the peer
        return True


class LogWatcher:
    """The one subscription of a server process, and the waiters it wakes."""

    def __init__(self, connect: Callable[[], redis.Redis]):
        self._connect = connect
        self._lock = threading.Lock()
        self._waiters: dict[str, set[Waiter]] = {}
        self._pid: int | None = None
        self._subscribed = threading.Event()
        #: The newest version announced per game since the subscription began, so a
        #: new waiter usually need not ask Redis for the head (bounded: oldest dropped).
        self._announced: dict[str, int] = {}
        #: Per game that had waiters here: the version its last announcement reached,
        #: and the events it carried (their JSON lines), for the waiters it woke
        #: (bounded: oldest dropped; a waiter that finds nothing reads the log).
        self._news: dict[str, tuple[int, bytes]] = {}
        #: Counts what was forgotten (``_forget``): a head read before (it may have
        #: missed publishes) is not remembered after (``head``).
        self._generation = 0
        #: The one subscription stands (set by the listener, cleared when it is lost).
        self._hearing = False
        #: Set by ``close``: the listener and the sweep end, and say nothing more.
        self._closed = threading.Event()
        self._pubsub: redis.client.PubSub | None = None

    @contextmanager
    def watch(
        self, game_id: str, after: int, client: socket.socket | None = None
    ) -> Iterator[Waiter]:
        """A registered waiter for ``game_id`` past ``after``; read the version inside.

        With ``client``, the waiter is also woken (``gone``) when that socket closes.
        """
        self._ensure_listening()
        waiter = Waiter(game_id, after, client)
        with self._lock:
            self._waiters.setdefault(game_id, set()).add(waiter)
        try:
            self._watching(game_id)
            yield waiter
        finally:
            with self._lock:
                waiting = self._waiters.get(game_id)
                if waiting is not None:
                    waiting.discard(waiter)
                    if not waiting:
                        del self._waiters[game_id]
                last = game_id not in self._waiters
            if last:
                self._unwatched(game_id)

    def _watching(self, game_id: str) -> None:
        """A waiter of ``game_id`` has registered and is about to read the version. On one
        Redis the process's one subscription hears every game: nothing to do."""

    def _unwatched(self, game_id: str) -> None:
        """The last waiter of ``game_id`` in this process has left."""

    @property
    def waiting(self) -> int:
        """Waiters of this process now (for metrics and tests)."""
        with self._lock:
            return sum(len(waiters) for waiters in self._waiters.values())

    def announced(self, game_id: str) -> int | None:
        """The newest version announced for ``game_id`` while subscribed; None: unknown.

        Read by a registered waiter instead of the log's head: every append after
        its registration wakes it, and every append before is announced here
        (or the game is unknown and it asks Redis).
        """
        with self._lock:
            return self._announced.get(game_id)

    def head(self, game_id: str, read_head: Callable[[], int]) -> int:
        """The version of ``game_id``'s log, for a registered waiter: the newest announced,
        else ``read_head()`` (Redis), which is remembered as if announced.

        Remembering it is safe when the process heard the game's announcements
        from before the read on: every append after the read is then announced
        on top of it. A read that a lost subscription overtook (``_forget``) is
        used once and not remembered.
        """
        known = self.announced(game_id)
        if known is not None:
            return known
        with self._lock:
            generation = self._generation
        hearing = self._hears(game_id)
        version = read_head()
        if hearing:
            with self._lock:
                if generation == self._generation:
                    self._remember(game_id, version)
        return version

    def unchanged(self, game_id: str, after: int) -> bool:
        """For a registered waiter that was not woken: whether the log is known to be still
        at ``after`` (an announcement past it would have woken the waiter)."""
        return self._hears(game_id) and self.announced(game_id) == after

    def _hears(self, game_id: str) -> bool:
        """Whether the game's announcements reach this process now: on one Redis, while
        the one subscription stands."""
        return self._hearing

    def news(self, game_id: str, after: int) -> tuple[int, bytes] | None:
        """The newest announcement of ``game_id`` if it carried exactly the events after
        ``after``: (the version it reached, their JSON lines); else None (read the log)."""
        with self._lock:
            news = self._news.get(game_id)
        if news is None or not news[1] or news[0] - (news[1].count(b"\n") + 1) != after:
            return None
        return news

    def notify(self, game_id: str, version: int, news: bytes = b"") -> None:
        """The log of ``game_id`` reached ``version`` (``news``: the events that got it
        there, a JSON line each): wake its waiters behind it."""
        with self._lock:
            self._remember(game_id, version)
            waiters = list(self._waiters.get(game_id, ()))
            self._news.pop(game_id, None)
            if waiters:
                self._news[game_id] = (version, news)
                if len(self._news) > NEWS_GAMES:
                    del self._news[next(iter(self._news))]
        for waiter in waiters:
            if version > waiter.after:
                waiter.announced = max(waiter.announced, version)
                waiter.woken.set()

    def _remember(self, game_id: str, version: int) -> None:
        """Under the lock: ``game_id``'s log has reached ``version`` (never lowered: a head
        read may be ahead of announcements still on their way)."""
        known = self._announced.pop(game_id, 0)  # re-inserted last: the newest stays longest
        self._announced[game_id] = max(known, version)
        if len(self._announced) > ANNOUNCED_GAMES:
            del self._announced[next(iter(self._announced))]

    def _forget(self, game_ids: Iterable[str] | None = None) -> None:
        """Under the lock: what was announced for ``game_ids`` (None: every game) may be
        stale (publishes may have been missed): drop it, and any head read meanwhile."""
        self._generation += 1
        if game_ids is None:
            self._announced.clear()
            return
        for game_id in game_ids:
            self._announced.pop(game_id, None)

    def wake_all(self) -> None:
        """Wake every waiter to look again (and forget what was announced: we may have
        missed publishes)."""
        with self._lock:
            self._forget()
            self._news.clear()
            waiters = [w for group in self._waiters.values() for w in group]
        for waiter in waiters:
            waiter.woken.set()

    def close(self) -> None:
        """End the listener and the sweep (an app that goes away before its Redis:
        a test session's apps; a server process simply exits). Waiters are woken."""
        self._closed.set()
        self._hearing = False
        pubsub = self._pubsub
        if pubsub is not None:
            with suppress(Exception):  # unblocks the listener's read
                pubsub.close()
        self.wake_all()

    # -- the listener ----------------------------------------------------
    def _ensure_listening(self) -> None:
        """Start listening once per process (after a fork, again), and the closed-client
        sweep."""
        if self._pid == os.getpid():
            return
        with self._lock:
            if self._pid == os.getpid():
                return
            self._pid = os.getpid()
            self._start_listening()
            threading.Thread(target=self._sweep, name="closed-clients", daemon=True).start()
        # The first waiter waits for the subscription, so it cannot miss a publish.
        self._subscribed.wait(5)

    def _start_listening(self) -> None:
        """Once per process, under the lock: the thread of the one subscription."""
        self._subscribed.clear()
        threading.Thread(target=self._listen, name="log-watcher", daemon=True).start()

    def _listen(self) -> None:
        backoff = 0.1
        while not self._closed.is_set():
            try:
                pubsub = self._pubsub = self._connect().pubsub(ignore_subscribe_messages=True)
                pubsub.subscribe(CHANNEL)
                pubsub.get_message(timeout=5)  # the subscription's confirmation
                self._hearing = True
                # Anything published while we were not listening: look again. Before the
                # first waiter is let in, so its head read is not overtaken by this.
                self.wake_all()
                self._subscribed.set()
                backoff = 0.1
                while not self._closed.is_set():
                    message = pubsub.get_message(timeout=30)
                    if message is not None and message["type"] == "message":
                        head, _, news = message["data"].partition(b"\n")
                        game_id, _, version = head.decode().partition(" ")
                        self.notify(game_id, int(version), news)
            except Exception as error:  # lost Redis: wake everyone, then resubscribe
                if self._closed.is_set():
                    return
                log.warning("log watcher lost its subscription (%s); resubscribing", error)
                self._hearing = False
                self._subscribed.set()  # do not hold new waiters; they read the version
                self.wake_all()
                self._closed.wait(backoff)
                backoff = min(backoff * 2, 5)

    def _sweep(self) -> None:
        """Every ``CLOSED_CHECK_SECONDS``, one poll over every waiter's socket: wake the
        waiters whose clients have gone (cheaper than each waiter looking itself)."""
        while not self._closed.wait(CLOSED_CHECK_SECONDS):
            with self._lock:
                watched = [w for group in self._waiters.values() for w in group if w.client]
            if not watched:
                continue
            try:
                ready = _readable([waiter.client for waiter in watched])
            except Exception:  # a socket closed under us: look at each on its own
                ready = {id(w.client) for w in watched}
            for waiter in watched:
                if id(waiter.client) in ready and client_gone(waiter.client):
                    waiter.gone = True
                    waiter.woken.set()


def _readable(clients: list[socket.socket | None]) -> set[int]:
    """The ``id`` of each socket that is readable (data, or the peer's close) now.

    One ``poll(0)`` of the operating system's: it never blocks, so it needs no
    cooperative version (gevent's would make a watcher per socket), and unlike
    ``select`` it takes any descriptor, however large.
    """
    poller = _original_poll()
    by_fd = {}
    for client in clients:
        fd = client.fileno()
        if fd < 0:
            continue
        by_fd[fd] = client
        poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    return {id(by_fd[fd]) for fd, _event in poller.poll(0)}


def _original_poll() -> select.poll:
    try:
        from gevent import monkey

        return monkey.get_original("select", "poll")()
    except ImportError:  # no gevent: select.poll is the system's
        return select.poll()


class WaitingSlots:
    """At most ``size`` waiting requests per process: taken without blocking, given back.

    A deque of free slots, since its appends and pops are thread-safe without a
    lock (the docs say so): every long-poll delivery takes a slot and gives it
    back, and ``threading.BoundedSemaphore`` paid a condition variable (three
    lock operations under gevent) for a wait that nobody here makes.
    """

    def __init__(self, size: int):
        self._size = size
        self._free: deque[None] = deque([None] * size)

    def take(self) -> bool:
        """A slot if one is free (True), else False at once."""
        try:
            self._free.pop()
        except IndexError:
            return False
        return True

    def give_back(self) -> None:
        """Return a slot that ``take`` gave (one given back twice is a bug: ValueError)."""
        if len(self._free) >= self._size:
            raise ValueError("a waiting slot was given back that was not taken")
        self._free.append(None)

    @property
    def free(self) -> int:
        return len(self._free)


class Recent(Generic[T]):
    """A small per-process memory of recent values by key, newest kept longest.

    Values must be immutable facts of a version (a game at version v, the
    events after v up to w), so a hit is as true as a fresh read.
    """

    def __init__(self, size: int = 10_000):
        self._size = size
        self._items: OrderedDict[object, T] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: object) -> T | None:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: object, value: T) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)


@dataclass(eq=False)
class _Read:
    done: threading.Event = field(default_factory=threading.Event)
    value: object = None
    error: BaseException | None = None
    followers: int = 0


class OneRead(Generic[T]):
    """Concurrent readers of the same key share one read: the first reads, the rest wait.

    The waiters of a game wake at the same instant; without this, each would
    miss the cache the first is about to fill and send its own read to Redis.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._reads: dict[object, _Read] = {}

    def followers(self, key: object) -> int:
        """How many readers wait for the read of ``key`` in flight (0: none in flight)."""
        with self._lock:
            current = self._reads.get(key)
            return current.followers if current is not None else 0

    def get(self, key: object, read: Callable[[], T], timeout: float = 5.0) -> T:
        with self._lock:
            current = self._reads.get(key)
            first = current is None
            if current is None:
                current = self._reads[key] = _Read()
            else:
                current.followers += 1
        if not first:
            if not current.done.wait(timeout):
                return read()  # the first reader hangs: do not hang with it
            if current.error is not None:
                raise current.error
            return current.value  # type: ignore[return-value]
        try:
            current.value = read()
            return current.value  # type: ignore[return-value]
        except BaseException as error:
            current.error = error
            raise
        finally:
            with self._lock:
                del self._reads[key]
            current.done.set()
