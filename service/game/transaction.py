"""One path for every command: load the game, decide, fold, append; decide again when
another writer got in first.

A command is a decision on the game as loaded: the events it adds (and the
seat-record fields they bring), or a refusal. Everything around the decision
is the same for every command and lives here once:

- load the newest snapshot and the events after it, with the record of the
  request's Idempotency-Key, in one round trip; a key seen before answers the
  game as that request left it, and nothing is decided again;
- take the engine's decision on the loaded state: its events and the state
  they fold to (``service.engine.decide``), each event folded once, by the
  fold any later replay of the log runs, so the state a command answers is the
  state that replay gives, and nothing applies the events again;
- append only if the log is still at the loaded version; when it is not,
  load and decide again, a bounded number of times (then ``busy``), or, for a
  command that named the version it decided on, refuse (``VersionConflict``);
- tell the append listeners, each on its own.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from service.engine import DealStarted, Decision, Event, replay
from service.engine.snapshot import StaleSnapshotError, state_from_dict, state_to_dict
from service.game.log import Duplicate, GameLog, RateCounts, StaleVersionError, TurnClock
from service.game.problem_codes import ProblemCode
from service.game.problems import Conflict, GameNotFound, IdempotencyKeyReused, VersionConflict
from service.game.seats import Seats
from service.game.values import Current

log = logging.getLogger(__name__)

#: How often a command decides again after another writer got in first.
APPEND_ATTEMPTS = 5
#: The newest snapshot is written at versions that are a multiple of this (and at every
#: deal start and a game's end), not at every append: encoding the state cost an action
#: about a fortieth of its CPU, and a load that does not hold the game folds at most
#: this many events less one after the newest snapshot.
SNAPSHOT_EVERY = 4

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Decided(Generic[T]):
    """What a command decided: the engine's decision (the events to append and the state
    they lead to), the command's own answer (the seat that acted, a new seat's token),
    and the seats record after them (None: unchanged)."""

    decision: Decision
    answer: T
    seats: Seats | None = None

    @property
    def events(self) -> tuple[Event, ...]:
        return self.decision.events


@dataclass(frozen=True, slots=True)
class Appended(Generic[T]):
    """The decided events are in the log: the game after them, and the command's answer."""

    current: Current
    answer: T


@dataclass(frozen=True, slots=True)
class Replayed:
    """The request's Idempotency-Key was used before: the game as that request left it."""

    current: Current


@dataclass(frozen=True, slots=True)
class Turn:
    """What a decision on the clock knows besides the game: the log's turn clock at the
    game's version and, when asked for, the log's events up to it.

    The transaction reads them with the game (``run_timed``), so a decision is a
    function of what it is handed and reads no store itself.
    """

    clock: TurnClock
    events: tuple[Event, ...] = ()


class AppendListener(Protocol):
    """Told of every append once it is done; never of an idempotent replay.

    The bot dispatcher and the counters of ``service.store.stats`` listen; the one
    composition root (``service.ops.composition``) lists them for the API and the
    workers alike.
    """

    def appended(self, current: Current, events: Sequence[Event]) -> None:
        """``current`` is the game after the append, ``events`` what it added."""


class KnownGames(Protocol):
    """Games this process holds at versions (the API's memory, ``service.live.memory``).

    A game at a version is a fact: when the log's head is the version held, the
    game need not be read and folded again.
    """

    def newest(self, game_id: str) -> Current | None: ...

    def remember_game(self, current: Current) -> None: ...


class Transaction:
    """Commands' one way to a game's log (a ``GameLog``): load, decide, append."""

    def __init__(
        self,
        game_log: GameLog,
        listeners: Sequence[AppendListener] = (),
        known: KnownGames | None = None,
    ):
        self.log = game_log
        self.listeners = tuple(listeners)
        self.known = known

    def run(
        self,
        game_id: str,
        decide: Callable[[Current], Decided[T]],
        *,
        admit: Callable[[Current], str],
        idempotency_key: str | None = None,
        expected_version: int | None = None,
        counts: RateCounts | None = None,
    ) -> Appended[T] | Replayed:
        """Decide on the game as it is now and append the decision.

        ``admit(current)`` says whether the caller may ask at all (a refusal
        raises, before even an earlier answer is replayed) and gives the
        request's fingerprint, which an Idempotency-Key's retry must match.
        ``decide(current)`` returns the events, or raises the refusal; it may
        raise ``StaleVersionError`` itself when what it read besides the game
        (a clock) no longer fits the loaded version. With
        ``expected_version``, a game at any other version is refused, never
        decided on again. ``counts`` (the request's rate limits) are counted by the
        append that records the decision.

        When this process holds the game (``KnownGames``) and the request has no
        Idempotency-Key, the decision is made on the game held and the append is
        the one round trip: it refuses if the log moved on, and the game is then
        read and decided on again, as is any refusal of the game held.
        """
        held = self._held(game_id, idempotency_key, expected_version)
        caught_up = False  # the game held was brought to the head by a refused append
        attempts = 0
        while attempts < APPEND_ATTEMPTS:
            if held is not None:
                attempts += caught_up
                try:
                    fingerprint = admit(held)
                    decided = decide(held)
                except Exception:
                    if caught_up:
                        raise  # decided on the head, as a load would have read it
                    # The game held may be behind the head: a refusal is the log's to make.
                    held = None
                    continue
                try:
                    return self._commit(
                        game_id, held.version, held.seats, decided, None, fingerprint,
                        held=True, counts=counts,
                    )  # fmt: skip
                except StaleVersionError as stale:
                    # Another process appended: catch up with what the append read,
                    # or read the log, and decide again.
                    held, caught_up = self._caught_up(held, stale, expected_version), True
                    continue
            attempts += 1
            current, earlier = self.load(game_id, idempotency_key=idempotency_key)
            fingerprint = admit(current)
            if earlier is not None:
                return self._replayed(game_id, earlier, fingerprint)
            if expected_version is not None and expected_version != current.version:
                raise VersionConflict(expected_version, current.version)
            try:
                decided = decide(current)
                return self._commit(
                    game_id, current.version, current.seats, decided, idempotency_key,
                    fingerprint, counts=counts,
                )  # fmt: skip
            except StaleVersionError as stale:
                if expected_version is not None:
                    raise VersionConflict(expected_version, stale.actual) from None
                continue  # another writer got in first: decide again on the new game
        raise Conflict("the game changed too often; try again", code=ProblemCode.BUSY)

    def _caught_up(
        self, held: Current, stale: StaleVersionError, expected_version: int | None
    ) -> Current | None:
        """The game held, brought to the head with the events a refused append read
        after it; None when it read none (read the log) or the request named the
        version held, which is no longer the head (refused as such by a load)."""
        if stale.since is None or expected_version is not None:
            return None
        events, seats = stale.since
        current = Current(
            held.game_id, stale.actual, replay(events, held.state), Seats.decode(seats)
        )
        if self.known is not None:
            self.known.remember_game(current)
        return current

    def _held(
        self, game_id: str, idempotency_key: str | None, expected_version: int | None
    ) -> Current | None:
        """The game as this process holds it, to decide on without reading the log; the
        append then checks that the log is still at its version.

        Not for a keyed request (a retry must find its earlier answer before anything
        is decided again), nor for one that names a version the game held is not at.
        """
        if self.known is None or idempotency_key is not None:
            return None
        held = self.known.newest(game_id)
        if held is None or expected_version not in (None, held.version):
            return None
        return held

    def run_timed(
        self,
        game_id: str,
        decide: Callable[[Current, Turn], Decided[T]],
        *,
        admit: Callable[[Current], str],
        with_events: bool = False,
        idempotency_key: str | None = None,
        expected_version: int | None = None,
    ) -> Appended[T] | Replayed:
        """``run`` for a decision on the clock: ``decide(current, turn)`` is handed the
        turn's clock (and with ``with_events`` the log's events) at the game's version.

        The clock is read after the game; when the log moved on in between, the
        game is read and decided on again (or, with ``expected_version``, refused).
        """

        def on_the_clock(current: Current) -> Decided[T]:
            clock = self.log.clock(game_id)
            if clock.head != current.version:  # a move landed after the load
                raise StaleVersionError(current.version, clock.head)
            events = tuple(self.log.events(game_id, until=current.version)) if with_events else ()
            return decide(current, Turn(clock, events))

        return self.run(
            game_id,
            on_the_clock,
            admit=admit,
            idempotency_key=idempotency_key,
            expected_version=expected_version,
        )

    def begin(
        self,
        game_id: str,
        decided: Decided[T],
        *,
        idempotency_key: str | None = None,
        fingerprint: str = "",
    ) -> Appended[T] | Replayed | None:
        """A new game's first append, onto an empty log; ``None`` when ``game_id`` is taken.

        There is nothing to load and nothing to decide again: a log that is no
        longer empty belongs to another game, and the caller names a new one.
        """
        try:
            return self._commit(game_id, 0, Seats(), decided, idempotency_key, fingerprint)
        except StaleVersionError:
            return None

    def earlier(self, game_id: str, idempotency_key: str, fingerprint: str) -> Replayed | None:
        """The answer of a request done before under this key, without loading the game."""
        found = self.log.duplicate(game_id, idempotency_key)
        return None if found is None else self._replayed(game_id, found, fingerprint)

    def load(
        self,
        game_id: str,
        version: int | None = None,
        *,
        idempotency_key: str | None = None,
        counts: RateCounts | None = None,
    ) -> tuple[Current, Duplicate | None]:
        """The game at ``version`` (default: now), folded from its newest snapshot; or,
        when this process holds the game at the log's head, that game as it is.
        ``counts`` (a read's rate limits) are counted by the load, whatever the game."""
        held = None if version is not None or self.known is None else self.known.newest(game_id)
        loaded = self.log.load(
            game_id,
            version,
            idempotency_key=idempotency_key,
            held=None if held is None else held.version,
            counts=counts,
        )
        if loaded.head == 0:
            raise GameNotFound(f"there is no game {game_id!r}")
        if loaded.held and held is not None:
            return held, loaded.duplicate
        start = None
        if loaded.snapshot is not None:
            try:
                start = state_from_dict(loaded.snapshot)
            except StaleSnapshotError:  # written by another engine version: rebuild
                loaded = self.log.load(
                    game_id, version, snapshots=False, idempotency_key=idempotency_key
                )
        state = replay(loaded.events, start)
        current = Current(game_id, loaded.version, state, Seats.decode(loaded.seats))
        if version is None and self.known is not None:
            self.known.remember_game(current)
        return current, loaded.duplicate

    def _commit(
        self,
        game_id: str,
        version: int,
        seats: Seats,
        decided: Decided[T],
        idempotency_key: str | None,
        fingerprint: str,
        *,
        held: bool = False,
        counts: RateCounts | None = None,
    ) -> Appended[T] | Replayed:
        """Append the decided events onto the game at ``version`` only if the log is
        still there, keep the state the decision folded them to, tell the listeners."""
        state = decided.decision.state
        deal_start = isinstance(decided.events[-1], DealStarted)
        due = deal_start or state.over or (version + len(decided.events)) % SNAPSHOT_EVERY == 0
        result = self.log.append(
            game_id,
            version,
            decided.events,
            seats=None if decided.seats is None else decided.seats.encode(),
            idempotency_key=idempotency_key,
            fingerprint=fingerprint,
            snapshot=state_to_dict(state) if due else None,
            deal_start=deal_start,
            held=held,
            counts=counts,
        )
        if isinstance(result, Duplicate):  # the same key's request landed first
            return self._replayed(game_id, result, fingerprint)
        after = Current(game_id, result, state, seats if decided.seats is None else decided.seats)
        self._tell(after, decided.events)
        return Appended(after, decided.answer)

    def _replayed(self, game_id: str, earlier: Duplicate, fingerprint: str) -> Replayed:
        if earlier.fingerprint != fingerprint:
            raise IdempotencyKeyReused("this Idempotency-Key was used with a different request")
        return Replayed(self.load(game_id, earlier.version)[0])

    def _tell(self, current: Current, events: Sequence[Event]) -> None:
        """After a successful append: tell every listener, each on its own.

        The append is done, so a failing listener must not fail the command
        nor keep the others from hearing of it; read paths ask the bot
        dispatcher again (see service.jobs.dispatch).
        """
        for listener in self.listeners:
            try:
                listener.appended(current, events)
            except Exception:
                log.exception(
                    "append listener failed for %s at version %s", current.game_id, current.version
                )
