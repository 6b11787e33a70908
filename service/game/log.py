"""What the game needs from a game's log and from a client's listing, and nothing more.

The commands decide on the state a log folds to and append what they
decided, only if the log is still where they read it. They name that
contract here, in the game's own words, so the game imports no storage:
``service.store.events.EventStore`` and ``service.store.client_games.ClientGames``
implement these protocols, and the composition root (``service.ops.composition``)
hands them in.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from service.engine import Event

#: Most index entries one listing request reads while filtering by status; a
#: page may then hold fewer games than asked, with a cursor to go on.
LIST_SCAN_LIMIT = 500


class StaleVersionError(Exception):
    """The log moved on: it is at ``actual``, not at the version the writer expected.

    ``since``, when the writer decided on a game it held a few events behind: the
    events after ``expected`` up to ``actual`` and the seats record, read by the
    same refused append, so the writer catches up without reading the log again.
    """

    def __init__(
        self,
        expected: int,
        actual: int,
        since: tuple[list[Event], dict[str, str]] | None = None,
    ):
        super().__init__(f"the game is at version {actual}, not {expected}")
        self.expected = expected
        self.actual = actual
        self.since = since


class LimitReached(Exception):
    """The append counted a request past one of its rate limits, and wrote nothing."""


class RateCounts(Protocol):
    """A request's rate-limit counters, counted by the append that records the request.

    The caller (the API's limits) names each counter as (key, window in seconds,
    quota); the log counts them in the same atomic step as the append, only when
    the log is at the expected version, and refuses the append (``LimitReached``)
    when a count is past its quota.
    """

    def limits(self) -> Sequence[tuple[str, int, int]]: ...

    def counted(self, counts: Sequence[tuple[int, int]]) -> None:
        """Each counter's count and the seconds left in its window, in order."""
        ...


@dataclass(frozen=True, slots=True)
class Duplicate:
    """An idempotency key seen before: its request fingerprint and the version it reached."""

    fingerprint: str
    version: int


@dataclass(frozen=True, slots=True)
class Loaded:
    """What ``load`` read in one round trip.

    The log's head, the newest usable snapshot (if any) and the events after
    it, the game's seats record, and the idempotency record asked for.
    """

    head: int
    snapshot_version: int
    snapshot: dict[str, Any] | None
    events: list[Event]
    seats: dict[str, str]
    duplicate: Duplicate | None
    #: The head is the version the caller said it holds: nothing else was read.
    held: bool = False

    @property
    def version(self) -> int:
        """The version the snapshot plus events reach."""
        return self.snapshot_version + len(self.events)


@dataclass(frozen=True, slots=True)
class TurnClock:
    """When the log last grew, by the log's own clock, and what time it is now.

    ``last_ms`` is None for a head entry written before entries carried a time.
    """

    head: int
    last_ms: int | None
    now_ms: int

    @property
    def waited_ms(self) -> int | None:
        """How long the log has stood still; None when its last time is not known."""
        return None if self.last_ms is None else max(0, self.now_ms - self.last_ms)


#: The latest creation time a cursor may carry (ms since the epoch, year 287396): the
#: largest integer a Redis score (a double) holds exactly, far below what the archive's
#: 64-bit integers hold, so a forged time never reaches a store as a number it refuses.
MAX_CREATED_MS = 2**53 - 1


@dataclass(frozen=True, slots=True)
class Listed:
    """One game of a client's index: its id and when it was created (ms since the epoch).

    The last game a page shows is also where the next page starts: ``encode``
    gives the cursor handed to clients (opaque to them, base64url), ``decode``
    reads one back.
    """

    game_id: str
    created_ms: int

    def encode(self) -> str:
        raw = f"{self.created_ms}:{self.game_id}".encode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    @classmethod
    def decode(cls, text: str) -> Listed:
        """Raises ``ValueError`` for anything this service did not hand out."""
        try:
            raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode("ascii")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            raise ValueError("not a cursor of this listing") from None
        created, sep, game_id = raw.partition(":")
        if not sep or not created.isdigit() or not game_id.isalnum():
            raise ValueError("not a cursor of this listing")
        # Compared as a number before it reaches a store: a longer one is no time we gave out.
        if len(created) > len(str(MAX_CREATED_MS)) or int(created) > MAX_CREATED_MS:
            raise ValueError("not a cursor of this listing")
        return cls(game_id, int(created))


class GameLog(Protocol):
    """A game's append-only log, its seats record and its idempotency records.

    The one write is ``append``, which adds a command's events (with the seat
    fields and the idempotency record they bring) only if the log is still at
    the version the command decided on; everything else reads.
    """

    def load(
        self,
        game_id: str,
        version: int | None = None,
        *,
        snapshots: bool = True,
        idempotency_key: str | None = None,
        held: int | None = None,
        counts: RateCounts | None = None,
    ) -> Loaded:
        """The newest snapshot at or before ``version`` (default: the head), the events
        after it, the seats, and the record of ``idempotency_key``; ``counts``, a read's
        rate limits, counted in the same step whatever the game."""
        ...

    def append(
        self,
        game_id: str,
        expected_version: int,
        events: Sequence[Event],
        *,
        seats: Mapping[str, str] | None = None,
        idempotency_key: str | None = None,
        fingerprint: str = "",
        snapshot: dict[str, Any] | None = None,
        deal_start: bool = False,
        held: bool = False,
        counts: RateCounts | None = None,
    ) -> int | Duplicate:
        """The new version; the earlier request's ``Duplicate`` when the key was used;
        raises ``StaleVersionError`` when the log is not at ``expected_version``.

        ``held``: the caller decided on the game it holds, read nothing: a game whose
        seats changed at the same version (an erased player) is refused as stale.
        ``counts`` are counted with the append (``RateCounts``)."""
        ...

    def duplicate(self, game_id: str, idempotency_key: str) -> Duplicate | None:
        """The record of an idempotency key, without loading the game."""
        ...

    def keyed_game_id(self, scoped_key: str) -> str:
        """The id of the game a create with this (scoped) Idempotency-Key makes: drawn at
        random by the first create and kept for the key's day, so its retries name the
        same game; nothing of it follows from the key."""
        ...

    def events(self, game_id: str, after: int = 0, until: int | None = None) -> list[Event]:
        """Events with versions in ``after+1 .. until`` (default: to the head)."""
        ...

    def head(self, game_id: str) -> int:
        """The log's current version; 0 when the game does not exist."""
        ...

    def clock(self, game_id: str) -> TurnClock:
        """The time of the log's last append and the time now, by one clock."""
        ...


class GameListing(Protocol):
    """Which games each client app created, newest first (``GET /v1/games?client=me``)."""

    def add(self, client_id: str, game_id: str, created_ms: int) -> None:
        """List a new game; a retried create (same id) keeps its first time."""
        ...

    def page(self, client_id: str, after: Listed | None, count: int) -> list[Listed]:
        """Up to ``count`` games older than ``after`` (default: the newest), newest first."""
        ...
