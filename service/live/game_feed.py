"""A game's event feed for its readers: the long-poll's answer and the SSE stream's lines.

What the views of ``/events`` and ``/stream`` do between parsing a request and
sending the answer: find the game at the version the reader has seen, wait
for the next append (``service.live.watcher``), read what is new through this
process's feed reads (``service.live.feed``), and, for a stream, ride out a
store that does not answer for a moment (``service.live.outage``). No Flask
here: the views hand in what only a request knows (its waiting slot, its
socket, how to render the reader's view), so the feed is one call.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import redis

from service.engine import Event, GameState
from service.engine.replays import visible_events
from service.game.problem_codes import ProblemCode
from service.game.problems import Problem, Unauthorized
from service.live.feed import FeedReads
from service.live.memory import GameMemory
from service.live.outage import StoreOutage
from service.live.stream_end import StreamEnding, log_stream_end
from service.live.watcher import END_EVENT, LogWatcher, OneRead, Waited, client_gone

if TYPE_CHECKING:  # types only: the feed is handed its command service
    from service.game.commands import Current, GameService

#: The reader's view of the game at a version (``service.web.render``), for ``include=view``.
ViewOf = Callable[["Current", "int | None"], dict[str, Any]]
#: Takes a waiting slot for the reader (or raises the refusal); returns its release.
Admit = Callable[[], Callable[[], None]]


@dataclass(frozen=True, slots=True)
class Reader:
    """A reader of a game's feed: the game at the version it has seen, and its seat."""

    game_id: str
    after: int
    known: Current
    seat: int | None

    @property
    def has_everything(self) -> bool:
        """The game is over and the reader has seen its last event: nothing more comes."""
        return self.known.state.status == "finished" and self.after == self.known.version


@dataclass(frozen=True, slots=True)
class OpenStream:
    """An SSE stream opened: its writes, and the release of its waiting slot (once the
    server closes the answer, whether or not the stream started)."""

    lines: Iterator[str]
    release: Callable[[], None]


@dataclass(frozen=True, slots=True)
class GameFeed:
    """The events after a version, as a seat or a spectator may see them (R11)."""

    games: GameService
    watcher: LogWatcher
    memory: GameMemory
    one_read: OneRead[Any]
    #: The events an append's announcement carries (``service.store.events``).
    announced: Callable[[bytes], Sequence[Event]]

    def reader(self, game_id: str, after: int, token: str | None) -> Reader:
        """The reader of ``game_id`` who has seen ``after``, with ``token``'s seat:
        404 for no such game, 422 past the head, 401 for a token of no seat."""
        known = self._game_at(game_id, after)
        return Reader(game_id, after, known, self._seat(known, token))

    def poll(
        self,
        game_id: str,
        after: int,
        token: str | None,
        wait: float,
        *,
        admit: Admit,
        client: socket.socket | None,
        view: ViewOf | None = None,
    ) -> dict[str, Any]:
        """The long-poll's answer: the events after ``after`` as ``token``'s seat sees them,
        waiting up to ``wait`` seconds (in a slot ``admit`` takes) when there are none yet
        and the game goes on; with ``view``, the reader's view at the version reached."""
        reader = self.reader(game_id, after, token)
        known, seat = reader.known, reader.seat
        if wait > 0 and known.version == after and known.state.status != "finished":
            with _slot(admit):
                waited = self._wait_for_append(game_id, after, wait, client)
        else:
            waited = Waited.UNKNOWN
        if waited is Waited.UNCHANGED:
            body, latest = {"version": after, "events": []}, known  # nothing to read
        else:
            shared = waited is Waited.APPENDED
            body, latest = self._feed(game_id, seat, after, known=known, shared=shared)
        if view is not None:
            body["view"] = view(latest, seat)
        return body

    def open_stream(
        self,
        game_id: str,
        after: int,
        token: str | None,
        *,
        admit: Admit,
        limit: float,
        heartbeat: float,
        client: socket.socket | None,
        view: ViewOf | None = None,
    ) -> OpenStream | None:
        """The SSE stream of the events after ``after`` as ``token``'s seat sees them, in a
        waiting slot ``admit`` takes; None when the game is over and the reader has every
        event (nothing will come: no slot is taken)."""
        reader = self.reader(game_id, after, token)
        if reader.has_everything:
            return None
        release = admit()
        return OpenStream(self._stream(reader, limit, heartbeat, client, view), release)

    def _stream(
        self,
        reader: Reader,
        limit: float,
        heartbeat: float,
        client: socket.socket | None,
        view: ViewOf | None,
    ) -> Iterator[str]:
        """The SSE stream's writes for ``limit`` seconds at most, a keep-alive every
        ``heartbeat`` seconds without news; it ends after the game's last event (with
        ``end``), when the client left, or when the store stayed away. One log line
        says why it ended, however it ended (``service.live.stream_end``)."""
        game_id = reader.game_id
        reason, detail = StreamEnding.CONNECTION_CLOSED, ""
        try:
            reason, detail = yield from self._events(reader, limit, heartbeat, client, view)
        except GeneratorExit:
            raise  # the server closed the answer: CONNECTION_CLOSED
        except Exception as error:
            reason, detail = StreamEnding.FAILED, repr(error)
            raise
        finally:
            log_stream_end(game_id, reason, detail)

    def _events(
        self,
        reader: Reader,
        limit: float,
        heartbeat: float,
        client: socket.socket | None,
        view: ViewOf | None,
    ) -> Generator[str, None, tuple[StreamEnding, str]]:
        """The stream's lines; returns why it ended (``StreamEnding``) and a detail."""
        game_id, after, seat = reader.game_id, reader.after, reader.seat
        yield "retry: 1000\n\n"
        deadline = time.monotonic() + limit
        known: Current | None = reader.known
        waited = Waited.UNKNOWN  # the first read asks Redis: the stream may start behind
        outage = StoreOutage()
        while True:
            try:
                if waited is not Waited.UNCHANGED:  # else nothing new: nothing to read
                    shared = waited is Waited.APPENDED
                    burst, after, known, finished = self._sse_burst(
                        game_id, seat, after, known, shared=shared, view=view
                    )
                    if burst:
                        yield burst  # one write for the burst
                    if finished:
                        return StreamEnding.GAME_OVER, f"at version {after}"
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return StreamEnding.DEADLINE, f"{limit:g} s, at version {after}"
                waited = self._wait_for_append(game_id, after, min(heartbeat, remaining), client)
                outage.over()
            except redis.exceptions.RedisError as error:
                # A failover or a restart: wait it out, then read again from ``after``
                # (nothing is missed). A store away for longer ends the stream; the
                # client resumes exactly with Last-Event-ID once it answers again.
                if time.monotonic() >= deadline:
                    return StreamEnding.DEADLINE, f"the store failed at it ({error})"
                if not outage.wait():
                    return StreamEnding.STORE_AWAY, str(error)
                waited = Waited.UNKNOWN
            if waited is not Waited.APPENDED:
                if client is not None and client_gone(client):
                    # The client left: give its slot back now.
                    return StreamEnding.CLIENT_LEFT, f"at version {after}"
                yield ": keep-alive\n\n"

    def _wait_for_append(
        self, game_id: str, after: int, seconds: float, client: socket.socket | None
    ) -> Waited:
        """Wait until the log passes ``after``, at most ``seconds`` or until the client leaves.

        The waiter registers before it reads the head, so an append that lands
        in between wakes it rather than being missed (service.live.watcher). A wait that
        ends unwoken says whether the subscription proves the log still at
        ``after`` (``Waited.UNCHANGED``: nothing to read).
        """
        watcher, store = self.watcher, self.games.store
        deadline = time.monotonic() + seconds
        with watcher.watch(game_id, after, client=client) as waiter:
            if watcher.head(game_id, lambda: store.head(game_id)) > after:
                return Waited.APPENDED
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not waiter.wait(remaining):
                    unchanged = not waiter.gone and watcher.unchanged(game_id, after)
                    return Waited.UNCHANGED if unchanged else Waited.UNKNOWN
                if waiter.announced > after:
                    return Waited.APPENDED
                waiter.woken.clear()  # woken without news (a resubscription): look again
                if store.head(game_id) > after:
                    return Waited.APPENDED

    def _game_at(self, game_id: str, version: int) -> Current:
        """The game at ``version``: from this process's memory when another reader put it
        there (a game at a version never changes), else loaded; 422 past the head.

        Readers ask for the game at the version they have seen, so a waiter that
        re-polls after a delivery finds it here and costs no Redis call; version 0
        (nothing seen yet) is the newest game, and the feed reads from the start.
        """
        if version > 0:
            known = self.memory.game_at(game_id, version)
            if known is not None:
                return known
        current = self.games.current(game_id, version or None)
        existing_version(version, current.version)
        self.memory.remember_game(current)
        return current

    def _seat(self, known: Current, token: str | None) -> int | None:
        """The caller's seat; a game remembered from before seat 1 joined is asked again."""
        try:
            return self.games.seat_for(known, token)
        except Unauthorized:
            if known.seats[1].joined:
                raise
            return self.games.seat_for(self.games.current(known.game_id), token)

    def _events_since(self, known: Current, *, shared: bool) -> tuple[list[Any], Current]:
        """``games.events_since``, through this process's feed reads (``service.live.feed``):
        ``shared``, a waiter that was woken, may take what memory or its announcement holds."""
        games, announced = self.games, self.announced

        def read(news: bytes | None) -> tuple[list[Any], Current]:
            return games.events_since(known, None if news is None else announced(news))

        reads = FeedReads(self.watcher, self.memory, self.one_read)
        return reads.since(known, read, shared=shared)

    def _sse_burst(
        self,
        game_id: str,
        seat: int | None,
        after: int,
        known: Current | None,
        *,
        shared: bool,
        view: ViewOf | None,
    ) -> tuple[str, int, Current, bool]:
        """The events after ``after`` as one SSE write, closed by ``end`` once the game is
        over: (the text, the last version sent, the game it leads to, whether it is over)."""
        body, latest = self._feed(game_id, seat, after, known=known, shared=shared)
        shown = body["events"]
        if view is not None and shown:
            shown[-1] = {**shown[-1], "view": view(latest, seat)}
        burst = [_sse(event["type"], event, event_id=event["version"]) for event in shown]
        finished = latest.state.status == "finished"
        if finished:
            burst.append(_sse(END_EVENT, _end_of(latest)))  # no id: Last-Event-ID stays
        last = shown[-1]["version"] if shown else after
        return "".join(burst), last, latest, finished

    def _feed(
        self,
        game_id: str,
        seat: int | None,
        after: int,
        known: Current | None = None,
        *,
        shared: bool = False,
    ) -> tuple[dict[str, Any], Current]:
        """The events after ``after`` as ``seat`` sees them, and the game they lead to.

        ``known``, the game at ``after`` when the caller has it (a waiter), saves
        loading it again: only the new events are read.
        """
        if known is not None and known.version == after:
            start: GameState | None = known.state
            log, latest = self._events_since(known, shared=shared)
        else:
            start, log, latest = self.games.events_after(game_id, after)
            self.memory.remember_game(latest)
        shown = (
            list(visible_events(log, seat, after=after, start=start, latest=latest.state))
            if log
            else []
        )
        return {"version": latest.version, "events": shown}, latest


@contextmanager
def _slot(admit: Admit) -> Iterator[None]:
    release = admit()
    try:
        yield
    finally:
        release()


def _sse(kind: str, data: dict[str, Any], *, event_id: int | None = None) -> str:
    head = "" if event_id is None else f"id: {event_id}\n"
    return f"{head}event: {kind}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def _end_of(latest: Current) -> dict[str, Any]:
    """The data of the final ``end`` event: how the game ended."""
    state = latest.state
    return {
        "version": latest.version,
        "status": state.status.value,
        "winner": state.winner,
        "game_points": list(state.game_points),
    }


def existing_version(version: int, head: int) -> int:
    """``version`` when the log has reached it, else 422 as /stream and /replay?at= answer."""
    if version > head:
        raise Problem(
            f"version {version} does not exist yet; the game is at version {head}",
            code=ProblemCode.VERSION_OUT_OF_RANGE,
        )
    return version


__all__ = ["Admit", "GameFeed", "OpenStream", "Reader", "ViewOf", "existing_version"]
