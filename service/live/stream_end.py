"""Why an event stream ended: the only reasons it does, each logged as it happens.

An SSE client reconnects after any end (``retry: 1000``), so a stream that
ends for no reason costs a reconnect and looks like nothing at all from
outside: a stream that carried only ``retry`` and closed. Every end is named
here and logged with its reason, so an end that is none of these is a bug
that shows.
"""

from __future__ import annotations

import logging
from enum import Enum

log = logging.getLogger(__name__)


class StreamEnding(Enum):
    """The reasons an event stream ends (docs/guarantees.md lists them)."""

    #: The game is over: its last event and ``end`` were sent (an EventSource opening it
    #: again gets 204 and stops).
    GAME_OVER = "game_over"
    #: The client closed its connection (noticed by a poll, or a write that failed).
    CLIENT_LEFT = "client_left"
    #: The stream lived ``SCHNAPSEN_SSE_MAX_SECONDS``; the client reconnects and resumes.
    DEADLINE = "deadline"
    #: The store did not answer for longer than the stream waits it out
    #: (``service.live.outage``); the client resumes once it answers again.
    STORE_AWAY = "store_away"
    #: The server closed the answer under the stream: a write to a client that had left
    #: failed, or the server process is stopping.
    CONNECTION_CLOSED = "connection_closed"
    #: An unexpected error (the server logs it with its traceback).
    FAILED = "failed"


#: Ends that say something is wrong with the server rather than the client or the game.
_WARNINGS = frozenset({StreamEnding.STORE_AWAY, StreamEnding.FAILED})


def log_stream_end(game_id: str, reason: StreamEnding, detail: str = "") -> None:
    """One line per ended stream: its game and its reason (a warning for the store)."""
    level = logging.WARNING if reason in _WARNINGS else logging.INFO
    extra = {"game_id": game_id, "stream_end": reason.value}
    log.log(level, "event stream of %s ended: %s%s", game_id, reason.value,
            f" ({detail})" if detail else "", extra=extra)  # fmt: skip
