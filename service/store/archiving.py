"""Finished games leave Redis for the archive: archived, checked, then forgotten.

Redis holds what is live; a game that has ended moves to the archive
(``service.store.archive``) in three steps, each safe to repeat, so a worker
killed at any point loses no game and writes none twice:

1. **noted**: the append that ends a game lists it in ``sch:{lifecycle}:ended``
   (``note_ended``, by an append listener), and a job is asked to archive it;
2. **archived**: ``archive`` reads the whole log and seats record, encodes them
   (``archive_codec``), writes the row (written once: a second ``put`` of the
   same game writes nothing), reads the row back and checks that it decodes
   to a game with the same digest as the log; if the seats changed meanwhile (a
   player's erasure anonymised them), the row is rewritten with the seats as they
   are now, so that it never keeps an erased player. Only then does the game get its
   mark, ``sch:{<id>}:archived`` = ``<head>:<digest>``, and a place in
   ``sch:{lifecycle}:release``, scored by when its grace period ends;
3. **forgotten**: once the grace period is over, ``release`` deletes every key
   of the game in one script, and only if the mark is there and the log is
   still the length it names; its idempotency record alone is left to expire
   by itself, so that a keyed request retried within its day answers as before. Reads then come from the archive
   (``service.store.archived_log``), and answer the same.

A full store (past its ``maxmemory``, ``service.store.full``) refuses the
mark and every job's bookkeeping, but still deletes: the sweep then makes
room (``sweep(full=True)``, which the workers run in their own process while
no job can be taken): archived games are forgotten at once, their grace cut
short (the archive answers the same), and every game noted as ended is
archived at once and forgotten without a mark (``forget.lua``: only while its
log is the length the checked row holds). A rated game is not forgotten
before its mark: its ratings, written in Redis, wait for room.

A game noted but not archived a while later (its job was lost) is archived by
the sweep (``sweep``), and a game that ended without being noted at all (its
process died between the append and the listener), or that nobody touched for
a long time, is found by ``stray_games``, a scan of the games' logs.

Keys (the lifecycle's own hash tag, so on a Redis Cluster both sets live in
one slot; each game's keys stay in its own):

- ``sch:{lifecycle}:ended``    sorted set: game id -> when it ended (ms)
- ``sch:{lifecycle}:release``  sorted set: game id -> when Redis may forget it (ms)
- ``sch:{<id>}:archived``      string: ``<head>:<digest hex>`` once archived
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

import redis

from service.engine import replay
from service.engine.events import event_from_dict
from service.game.seats import Seats
from service.store import archive_codec
from service.store.archive import Archive, ArchiveConflict, ArchiveRecord
from service.store.client_games import index_key
from service.store.events import PREFIX, keys
from service.store.full import refused_for_memory
from service.store.redis_clients import AnyRedis
from service.store.scripts import Script, lua_script

log = logging.getLogger(__name__)

ENDED = f"{PREFIX}:{{lifecycle}}:ended"
RELEASE = f"{PREFIX}:{{lifecycle}}:release"
#: Games one sweep reads at a time of each kind: a sweep is a job with a timeout.
SWEEP_BATCH = 500
#: A sweep forgets due games batch after batch for this long at most (s), well within
#: its job's timeout: games that end faster than a batch a sweep must not pile up in
#: Redis past their grace (a release is a few round trips: thousands a second).
RELEASE_SECONDS = 60.0
#: A game noted as ended and not archived this long after (ms) has lost its job.
LATE_MS = 60_000

_RELEASE = lua_script("release")
_FORGET = lua_script("forget")


class ArchiveMismatch(Exception):
    """The archive's row does not decode to the game Redis holds: Redis keeps the game."""

    def __init__(self, game_id: str):
        super().__init__(f"the archived row of game {game_id} does not match its log")
        self.game_id = game_id


class NotEnded(Exception):
    """The game is still being played (or waits for a player): it is not archived."""


def archived_key(game_id: str) -> str:
    return f"{PREFIX}:{{{game_id}}}:archived"


@dataclass(frozen=True, slots=True)
class Archived:
    """A game in the archive: whether this call wrote its row, and the row's size."""

    game_id: str
    written: bool
    size: int


@dataclass(frozen=True, slots=True)
class Swept:
    """What one sweep did: games forgotten by Redis, and late games archived."""

    released: int
    archived: int


class GameArchiver:
    """Moves ended games from the log's Redis to ``archive`` (see the module docstring)."""

    def __init__(
        self,
        client: AnyRedis,
        archive: Archive,
        *,
        grace_seconds: float,
        on_written: Callable[[], None] = lambda: None,
        sweep_batch: int = SWEEP_BATCH,
    ):
        self.redis = client
        #: Games a sweep reads at a time of each kind (``SWEEP_BATCH``; smaller in tests,
        #: so that "more than one batch" is a few dozen games, not a thousand).
        self.sweep_batch = sweep_batch
        self.archive = archive
        #: Called once a game, when it is first marked archived (the finished games'
        #: counter): a run killed after writing the row and before marking the game
        #: leaves the count to the run that marks it.
        self.on_written = on_written
        self.grace_ms = int(grace_seconds * 1000)
        self._release = Script(client, _RELEASE)
        self._forget = Script(client, _FORGET)

    # -- step 1 ----------------------------------------------------------
    def note_ended(self, game_id: str, ended_ms: int) -> None:
        """List an ended game for archiving (a second note keeps the first time)."""
        self.redis.zadd(ENDED, {game_id: ended_ms}, nx=True)

    # -- step 2 ----------------------------------------------------------
    def read(self, game_id: str) -> archive_codec.ArchivedGame | None:
        """The whole game as Redis holds it: every event with its time, and the seats."""
        k = keys(game_id)
        entries = self.redis.xrange(k["log"])
        if not entries:
            return None
        seats = self._seats(game_id)
        events = []
        times: list[int | None] = []
        for _entry_id, fields in entries:
            events.append(event_from_dict(json.loads(fields[b"e"])))
            raw = fields.get(b"t")
            times.append(None if raw is None else int(raw))
        return archive_codec.ArchivedGame.of(game_id, events, times, seats)

    def _seats(self, game_id: str) -> dict[str, str]:
        """The game's seats hash as Redis holds it now."""
        held = self.redis.hgetall(keys(game_id)["seats"])
        return {name.decode(): value.decode() for name, value in held.items()}

    def _seats_since(self, game: archive_codec.ArchivedGame, record: ArchiveRecord) -> bytes:
        """The row takes the game's seats as Redis holds them after it was written: a
        player's erasure may have anonymised them after ``read`` and looked for the row
        before it was there, so the row would keep the player. The row's digest."""
        seats = self._seats(game.game_id)
        if not seats or seats == game.seat_fields:
            return record.digest
        now = archive_codec.ArchivedGame.of(game.game_id, game.events, game.times, seats)
        rewritten = replace(
            record, data=archive_codec.encode(now), digest=archive_codec.digest(now)
        )
        self.archive.rewrite(rewritten)
        return rewritten.digest

    def archive_game(self, game_id: str) -> Archived | None:
        """Archive an ended game, check the row, and mark it for Redis to forget.

        None when Redis no longer holds the game (archived and forgotten
        already, or never there). Raises ``NotEnded`` for a game still in
        play and ``ArchiveMismatch`` when the row read back differs.
        """
        game = self.read(game_id)
        if game is None:
            self.redis.zrem(ENDED, game_id)
            return None
        state = replay(game.events)
        if not state.over:
            raise NotEnded(f"game {game_id} has not ended")
        data = archive_codec.encode(game)
        want = archive_codec.digest(game)
        now = _now_ms()
        owner = Seats.decode(game.seat_fields).owner
        # A client's game is listed by the time its index gave it, so the listing's
        # order (and its cursors) stay the same when the game moves to the archive.
        listed = None if owner is None else self.redis.zscore(index_key(owner), game_id)
        created = game.times[0] if game.times[0] is not None else now
        record = ArchiveRecord(
            game_id=game_id,
            client_id=owner,
            variant=state.variant.value,
            status=state.status.value,
            created_ms=int(listed) if listed is not None else created,
            ended_ms=game.times[-1] if game.times[-1] is not None else now,
            data=data,
            digest=want,
        )
        written = self.archive.put(record)
        stored = self.archive.get(game_id)
        if stored is None or archive_codec.digest(archive_codec.decode(stored.data)) != want:
            raise ArchiveMismatch(game_id)
        want = self._seats_since(game, record)
        try:
            marked = self._mark(game_id, game.version, want, ended_ms=record.ended_ms)
        except redis.exceptions.ResponseError as error:
            if not refused_for_memory(error) or Seats.decode(game.seat_fields).rated:
                raise
            marked = self._forget_checked(game_id, game.version, owner)
        if marked:
            self.on_written()
        return Archived(game_id, written, len(data))

    def _forget_checked(self, game_id: str, head: int, owner: str | None) -> bool:
        """The store is full and refused the mark: forget the game now, its row checked
        at ``head``, if its log is still that long (``forget.lua``). True when forgotten;
        a log that grew since keeps the game, noted, for the next pass."""
        k = keys(game_id)
        done, _owner = self._forget(
            keys=[k["log"], k["seats"], k["snap"], k["snapidx"], archived_key(game_id)],
            args=[head],
        )
        if int(done) != 1:
            return False
        if owner is not None:  # the client's index of games lists it from the archive now
            self.redis.zrem(index_key(owner), game_id)
        self.redis.zrem(RELEASE, game_id)
        self.redis.zrem(ENDED, game_id)
        log.info("the store is full: game %s is archived and forgotten at once", game_id)
        return True

    def _mark(self, game_id: str, head: int, digest: bytes, *, ended_ms: int) -> bool:
        """The game is safe in the archive: Redis may forget it once its grace is over.

        The grace runs from the game's end, so a game archived late (by a sweep)
        is not kept longer for it. True when this call made the mark: the one run
        that counts the game's finish, even when an earlier run, killed before
        its mark, wrote the row.
        """
        first = bool(self.redis.set(archived_key(game_id), f"{head}:{digest.hex()}", nx=True))
        due = max(ended_ms + self.grace_ms, 0)
        self.redis.zadd(RELEASE, {game_id: due})
        self.redis.zrem(ENDED, game_id)
        return first

    # -- step 3 ----------------------------------------------------------
    def release(self, game_id: str) -> bool:
        """Forget an archived game's keys (all at once); False when it is not archived.

        Its idempotency record stays until it expires (``IDEMPOTENCY_TTL`` after the
        game's last keyed request): a retry within that day is answered from it, as
        it was while Redis held the game (``ArchivedLog``).
        """
        k = keys(game_id)
        done, owner = self._release(
            keys=[k["log"], k["seats"], k["snap"], k["snapidx"], archived_key(game_id)]
        )
        if int(done) == 1:
            if owner:  # the client's index of games lists it from the archive now
                self.redis.zrem(index_key(owner.decode()), game_id)
            self.redis.zrem(RELEASE, game_id)
            return True
        self.redis.zrem(RELEASE, game_id)
        if int(done) == -1:  # the log grew after the mark: archive it again
            try:
                self.note_ended(game_id, _now_ms())
            except redis.exceptions.ResponseError as error:
                if not refused_for_memory(error):
                    raise
                # Unmarked, it is found again by the scan of stray games.
                log.warning("game %s grew after its archiving; noted later: %s", game_id, error)
        return False

    # -- the sweep ---------------------------------------------------------
    def sweep(self, now_ms: int | None = None, *, full: bool = False) -> Swept:
        """Forget the games whose grace is over; archive the games whose job was lost.

        ``full``: the store refuses writes, so no job runs: every archived game is
        forgotten, grace or not, and every noted game is archived (and forgotten) now.
        """
        now = _now_ms() if now_ms is None else now_ms
        released = self._release_due("+inf" if full else now)
        archived = 0
        late = self.redis.zrangebyscore(
            ENDED, "-inf", "+inf" if full else now - LATE_MS, start=0, num=self.sweep_batch
        )
        for member in late:
            game_id = member.decode()
            try:
                archived += self.archive_game(game_id) is not None
            except NotEnded:  # noted by mistake: the scan notes it again when it ends
                self.redis.zrem(ENDED, game_id)
            except (ArchiveMismatch, ArchiveConflict, archive_codec.ArchiveEncodeError) as error:
                # Redis keeps the game, still noted; one such game must not stop the rest.
                log.error("sweep: game %s stays in Redis: %s", game_id, error)
            except redis.exceptions.ResponseError as error:
                if not refused_for_memory(error):
                    raise
                # A rated game waits for room for its ratings; the others went on.
                log.warning("sweep: game %s waits for room: %s", game_id, error)
        return Swept(released, archived)

    def _release_due(self, due: float | str) -> int:
        """Forget every archived game due by ``due``, a batch at a time, for at most
        ``RELEASE_SECONDS``; the games forgotten. Each game looked at leaves the
        release set (forgotten, not archived, or noted again), so every batch is new."""
        released = 0
        stop = time.monotonic() + RELEASE_SECONDS
        while True:
            batch = self.redis.zrangebyscore(RELEASE, "-inf", due, start=0, num=self.sweep_batch)
            for member in batch:
                released += self.release(member.decode())
            if len(batch) < self.sweep_batch or time.monotonic() > stop:
                return released

    def strays(self) -> Iterator[str]:
        """Every game Redis holds that is not archived yet: a scan of all the logs.

        For the rare pass that finds games nobody noted (see the module docstring);
        on a Redis Cluster redis-py scans every primary. A game archived but
        missing from the release set (its worker died between the two writes)
        gets its place there instead of being yielded.
        """
        for key in self.redis.scan_iter(match=f"{PREFIX}:{{*}}:log", count=1000, _type="stream"):
            text = key.decode() if isinstance(key, bytes) else key
            game_id = text[len(PREFIX) + 2 : -len("}:log")]
            if not self.redis.exists(archived_key(game_id)):
                yield game_id
            elif self.redis.zscore(RELEASE, game_id) is None:
                try:
                    self.redis.zadd(RELEASE, {game_id: _now_ms() + self.grace_ms}, nx=True)
                except redis.exceptions.ResponseError as error:
                    if not refused_for_memory(error):
                        raise
                    self.release(game_id)  # a full store: it is archived, so forgotten now


def _now_ms() -> int:
    return int(time.time() * 1000)


__all__ = [
    "ENDED",
    "RELEASE",
    "ArchiveMismatch",
    "Archived",
    "GameArchiver",
    "NotEnded",
    "Swept",
    "archived_key",
]
