"""Games' logs from Redis, and from the archive once Redis has forgotten them.

Every read path (views, replays at any version, the event feed, exports, the
analysis, the bots' input) reads a game through ``GameLog``. This log asks
Redis first, as before; only when Redis holds no log for the game does it look
in the archive (``service.store.archive``), decode the game
(``archive_codec``) and answer from it what Redis answered: the same events at
the same versions, the same seats record, the same turn clock. So a game reads
the same before and after it moved, and nothing above the store knows where
it came from.

An archived game has ended: every command on it is refused by the rules before
anything is appended. Should an append reach an archived game anyway, Redis's
empty log refuses it as stale (it is not at the expected version), and the
next load finds the game over; a create whose id is an archived game's is
refused as stale too, and the create takes a new id. A keyed request
retried within its day is answered from the idempotency record, which Redis
keeps after the log has gone.

Decoded games are kept in a small per-process cache: decoding replays a game's
actions through the engine (a few ms). An archived game changes only when its
app erases one of its players (``service.web.player_erasure``): the process that
erases forgets the game at once (``forget``), every other one reads the row again
once its copy is ``CACHED_SECONDS`` old.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from service.engine import Event
from service.game.log import Duplicate, Loaded, RateCounts, StaleVersionError, TurnClock
from service.game.seats import ERASED_FIELD
from service.store.archive import Archive
from service.store.archive_codec import ArchivedGame, decode
from service.store.events import EventStore

#: Decoded archived games one process keeps (a game of a few KiB decoded).
CACHED_GAMES = 256
#: How long a decoded game is answered from the cache before its row is read again: the
#: longest another process shows an erased player's seat as it was.
CACHED_SECONDS = 30.0


class ArchivedLog:
    """``GameLog`` over the Redis ``EventStore`` and, behind it, the ``Archive``."""

    def __init__(self, live: EventStore, archive: Archive, *, cached: int = CACHED_GAMES):
        self.live = live
        self.archive = archive
        #: The log's Redis, as ``EventStore.redis`` (other stores share the client).
        self.redis = live.redis
        self._cached = cached
        self._games: OrderedDict[str, tuple[float, ArchivedGame]] = OrderedDict()
        self._lock = threading.Lock()

    # -- the archive's side ----------------------------------------------
    def archived(self, game_id: str) -> ArchivedGame | None:
        """The game from the archive, decoded (cached), or None when it is not there."""
        with self._lock:
            cached = self._games.get(game_id)
            if cached is not None and time.monotonic() - cached[0] < CACHED_SECONDS:
                self._games.move_to_end(game_id)
                return cached[1]
        record = self.archive.get(game_id)
        if record is None:
            return None
        game = decode(record.data)  # a damaged row raises ArchiveDecodeError: a server fault
        with self._lock:
            self._games[game_id] = (time.monotonic(), game)
            self._games.move_to_end(game_id)
            while len(self._games) > self._cached:
                self._games.popitem(last=False)
        return game

    def forget(self, game_id: str) -> None:
        """Drop this process's decoded copy of the game (its row was rewritten)."""
        with self._lock:
            self._games.pop(game_id, None)

    # -- GameLog ---------------------------------------------------------
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
        loaded = self.live.load(
            game_id,
            version,
            snapshots=snapshots,
            idempotency_key=idempotency_key,
            held=held,
            counts=counts,
        )
        if loaded.head > 0:
            return loaded
        game = self.archived(game_id)
        if game is None:
            return loaded
        # Redis keeps a game's idempotency record for its day after the log has gone.
        duplicate = (
            None if idempotency_key is None else self.live.duplicate(game_id, idempotency_key)
        )
        head = game.version
        until = head if version is None else max(0, min(version, head))
        # A game with an erased player's seat changed at the same version: not as held.
        erased = any(name.startswith(ERASED_FIELD) for name in game.seat_fields)
        if held is not None and held == head and version is None and not erased:
            return Loaded(head, head, None, [], {}, duplicate, held=True)
        return Loaded(
            head=head,
            snapshot_version=0,
            snapshot=None,
            events=list(game.events[:until]),
            seats=game.seat_fields,
            duplicate=duplicate,
        )

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
        if expected_version == 0 and idempotency_key is not None:
            # A keyed create's id is kept a day with its key: should it name an
            # archived game the id is taken.
            game = self.archived(game_id)
            if game is not None:
                raise StaleVersionError(0, game.version)
        return self.live.append(
            game_id,
            expected_version,
            events,
            seats=seats,
            idempotency_key=idempotency_key,
            fingerprint=fingerprint,
            snapshot=snapshot,
            deal_start=deal_start,
            held=held,
            counts=counts,
        )

    def keyed_game_id(self, scoped_key: str) -> str:
        return self.live.keyed_game_id(scoped_key)

    def duplicate(self, game_id: str, idempotency_key: str) -> Duplicate | None:
        return self.live.duplicate(game_id, idempotency_key)

    def events(self, game_id: str, after: int = 0, until: int | None = None) -> list[Event]:
        found = self.live.events(game_id, after, until)
        if found or (until is not None and until <= after):
            return found
        if self.live.head(game_id) > 0:  # Redis holds the game: nothing after ``after``
            return found
        game = self.archived(game_id)
        if game is None:
            return found
        return list(game.events[after:until])

    def head(self, game_id: str) -> int:
        head = self.live.head(game_id)
        if head > 0:
            return head
        game = self.archived(game_id)
        return 0 if game is None else game.version

    def last_append_times(self, game_ids: Sequence[str]) -> dict[str, int | None]:
        """Redis's answer alone: a game in play is in Redis (the live games ask)."""
        return self.live.last_append_times(game_ids)

    def clock(self, game_id: str) -> TurnClock:
        clock = self.live.clock(game_id)
        if clock.head > 0:
            return clock
        game = self.archived(game_id)
        if game is None:
            return clock
        last = game.times[-1] if game.times else None
        return TurnClock(game.version, last, max(clock.now_ms, int(time.time() * 1000)))


__all__ = ["CACHED_GAMES", "ArchivedLog"]
