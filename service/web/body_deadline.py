"""A request's body arrives within a deadline of its head, or the request is refused (408).

gunicorn's gevent worker bounds the wait for a request's head (its keep-alive
timeout) but not for the body: a client that sent a head announcing 64 bytes
and then nothing held its connection, and its greenlet, for as long as it
cared to, and a body trickled a byte at a time never let one read wait long.
Many such clients from one place took every connection a server process had.

``DeadlineBody`` stands in for gunicorn's body (the WSGI ``wsgi.input``): every
read is bounded by what is left of one deadline for the whole body, counted
from the moment the head was read, however the body is framed and however the
reads are cut. Past it the read raises ``BodyTimedOut``, which the API answers
with 408 ``body_timeout`` before any view ran (``service.web.bodies``), and the
connection closes after that answer: the rest of the body is never read.

How a read is bounded is the worker's: under gevent a ``gevent.Timeout``
(``service.serve.gunicorn_workers``). This module knows no worker, so the app can import it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

#: How a worker bounds one read: a context that raises ``BodyTimedOut`` after ``seconds``.
Bound = Callable[[float, "BodyTimedOut"], AbstractContextManager[Any]]


class BodyTimedOut(Exception):
    """The body did not arrive within the deadline.

    Not an ``OSError``: Werkzeug's stream takes those for a client that left
    (a 400), and this is a client still there, too slow.
    """

    def __init__(self, seconds: float):
        super().__init__(f"the body did not arrive within {seconds:g} s of the request's head")
        self.seconds = seconds


@dataclass(frozen=True, slots=True)
class DeadlineBody:
    """gunicorn's request ``body``, each read bounded by what is left of ``deadline``.

    ``request`` is gunicorn's request: past the deadline its ``must_close`` is set,
    so the answer says ``Connection: close`` and gunicorn reads nothing more from
    the connection (the body's rest would be the next request's start).
    """

    body: Any
    request: Any
    seconds: float
    deadline: float  # time.monotonic()
    bound: Bound

    @classmethod
    def starting_now(cls, body: Any, request: Any, seconds: float, bound: Bound) -> DeadlineBody:
        return cls(body, request, seconds, time.monotonic() + seconds, bound)

    def read(self, size: int | None = None) -> bytes:
        return self._bounded(self.body.read, size)

    def readline(self, size: int | None = None) -> bytes:
        return self._bounded(self.body.readline, size)

    def readlines(self, size: int | None = None) -> list[bytes]:
        return self._bounded(self.body.readlines, size)

    def __iter__(self) -> Iterator[bytes]:
        return self

    def __next__(self) -> bytes:
        return self._bounded(self.body.__next__)

    def _bounded(self, read: Callable[..., Any], *args: Any) -> Any:
        timed_out = BodyTimedOut(self.seconds)
        left = self.deadline - time.monotonic()
        try:
            if left <= 0:
                raise timed_out
            with self.bound(left, timed_out):
                return read(*args)
        except BodyTimedOut:
            self.request.must_close = True
            raise
