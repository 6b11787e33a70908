"""The event log of each game in Redis: the only truth there is.

Keys of one game share the hash tag ``{<game_id>}``, so they live in one
Redis Cluster slot and one Lua script can touch them atomically:

- ``sch:{id}:log``   a stream; entry ``<v>-0`` is event version v (1, 2, 3...):
                     field ``e`` the event's JSON, ``t`` the Redis server's time of
                     the append in ms (entries written before it existed have none)
- ``sch:{id}:seats`` a hash: per seat the SHA-256 of its token, the player
                     kind, nonces for re-deriving secrets, the invite's hash
- ``sch:{id}:idem``  a hash: idempotency key -> request fingerprint + version
- ``sch:{id}:snap``  a hash of snapshots (a cache, safe to delete): the latest
                     state, and the state at the start of each deal
- ``sch:{id}:snapidx`` a sorted set of the deal-start snapshot versions

Appending is one Lua script that checks the expected version (and the
idempotency key) and adds every event of a command, or nothing. There is no
WATCH and no read-modify-write across round trips. The script then announces
the append on ``sch:appended``: ``"<game_id> <version>"``, a newline, and the
new events' JSON, one a line (``announced_events`` reads them back), so the
waiters it wakes need not read the log again (``service.live.watcher``).

On a Redis Cluster (``service.store.redis_clients``) each script runs on the
primary of its game's slot, and the announcement goes to the game's shard
channel ``sch:{<id>}:appended`` instead (``service.live.cluster``). With
``replica_acks`` (``SCHNAPSEN_REPLICA_ACKS``) an append is acknowledged only
after ``WAIT`` counted that many replicas with it, sent on the script's own
connection (``WAIT`` counts the writes of its connection); a retry answered
from the idempotency record waits the same way, so no acknowledged append
lives on its primary alone.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

import redis
from redis.cluster import RedisCluster

from service.engine.events import ActionTaken, Event, event_from_dict, event_to_dict
from service.game.log import (
    Duplicate,
    LimitReached,
    Loaded,
    RateCounts,
    StaleVersionError,
    TurnClock,
)
from service.store.redis_clients import AnyRedis, primary_of, refresh
from service.store.scripts import Script, lua_script

PREFIX = "sch"
#: What a node answers for a slot it does not serve (now): the script did not run.
_REDIRECTED = (
    redis.exceptions.AskError,  # MovedError too
    redis.exceptions.ClusterDownError,
    redis.exceptions.TryAgainError,
)
#: The events' and snapshots' JSON, compact: ``json.dumps(..., separators=(",", ":"))``
#: with its encoder made once, not once a call (an append writes two or more).
_COMPACT_JSON = json.JSONEncoder(separators=(",", ":")).encode
#: How long an idempotency key is remembered (seconds).
IDEMPOTENCY_TTL = 24 * 3600

#: The append (one script: the version check, the events, the seats, the idempotency
#: record, the snapshot, the announcement), the touch of an idempotency record, the
#: load of a game and its turn clock: service/store/lua/*.lua.
_APPEND = lua_script("append")
_TOUCH = lua_script("touch")
_LOAD = lua_script("load")
_CLOCK = lua_script("clock")

#: How the append script announces an append: on one Redis, on the channel every
#: process listens to (service.live.watcher); on a cluster, on the game's shard channel
#: (sharded pub/sub, heard only on the game's shard: service.live.cluster).
_PUBLISH = (
    "redis.call('PUBLISH', 'sch:appended', "
    "string.match(KEYS[1], '{(.-)}') .. ' ' .. version .. '\\n' .. news)"
)
_SPUBLISH = (
    "local game = string.match(KEYS[1], '{(.-)}')\n"
    "redis.call('SPUBLISH', 'sch:{' .. game .. '}:appended', game .. ' ' .. version .. '\\n' .. news)"
)


class NotReplicated(redis.exceptions.ConnectionError):
    """``WAIT`` counted fewer replicas with an append than asked for, within its timeout.

    The append may or may not survive a failover, so it is not acknowledged:
    the API answers 503 and a retry with the same Idempotency-Key finds it, or
    appends it, exactly once.
    """

    def __init__(self, game_id: str, asked: int, acked: int):
        super().__init__(f"{acked} of {asked} replicas confirmed the append to game {game_id}")
        self.asked = asked
        self.acked = acked


def keys(game_id: str) -> dict[str, str]:
    tag = f"{PREFIX}:{{{game_id}}}"
    return {
        "log": f"{tag}:log",
        "seats": f"{tag}:seats",
        "idem": f"{tag}:idem",
        "snap": f"{tag}:snap",
        "snapidx": f"{tag}:snapidx",
    }


class EventStore:
    """The per-game event logs, their seat records and snapshot caches in Redis.

    The game's log as the commands use it (``service.game.log.GameLog``).
    """

    def __init__(
        self,
        client: AnyRedis,
        *,
        replica_acks: int = 0,
        replica_ack_timeout_ms: int = 500,
        action_counter: str | None = None,
    ):
        self.redis = client
        #: Replicas that must have an append before it is acknowledged (0: none asked).
        self.replica_acks = replica_acks
        self.replica_ack_timeout_ms = replica_ack_timeout_ms
        sharded = isinstance(client, RedisCluster)
        #: The key the append script counts appended actions in, in the same step (on
        #: one Redis: a round trip less per action); None on a cluster, where the
        #: counter lives in another slot than the game and is counted after the append.
        self.action_counter = None if sharded else action_counter
        self._append = Script(
            client, _APPEND.replace("__PUBLISH__", _SPUBLISH if sharded else _PUBLISH)
        )
        self._touch = Script(client, _TOUCH)
        self._load = Script(client, _LOAD)
        self._clock = Script(client, _CLOCK)

    # -- writing ---------------------------------------------------------
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
        """Append ``events`` if the log is at ``expected_version``; return the new version.

        In the same atomic step: ``seats`` fields go to the seats hash, the
        idempotency key is remembered, and ``snapshot`` (the state after the
        events) becomes the latest snapshot (kept for good when
        ``deal_start``). When ``idempotency_key`` was used before, nothing is
        written and the earlier request's ``Duplicate`` comes back instead.
        Raises ``StaleVersionError`` when the log is elsewhere, or when the caller
        decided on the game it ``held`` and a player's seat was erased since.
        ``counts`` (a request's rate limits) are counted in the same step, once the
        version is right; a count past its quota appends nothing (``LimitReached``).
        On a cluster, where the counters live in other slots, the caller counts them.
        """
        k = keys(game_id)
        seat_fields = [item for pair in (seats or {}).items() for item in pair]
        payloads = [_COMPACT_JSON(event_to_dict(event)) for event in events]
        snapshot_json = "" if snapshot is None else _COMPACT_JSON(snapshot)
        script_keys = [k["log"], k["idem"], k["seats"], k["snap"], k["snapidx"]]
        if self.action_counter:
            script_keys.append(self.action_counter)
        limits = [] if counts is None else list(counts.limits())
        script_keys += [key for key, _window, _quota in limits]
        script_args = [
            expected_version,
            idempotency_key or "",
            fingerprint,
            IDEMPOTENCY_TTL,
            snapshot_json,
            int(deal_start),
            sum(isinstance(event, ActionTaken) for event in events),
            len(seat_fields) // 2,
            int(held),
            len(limits),
            *[bound for _key, window, quota in limits for bound in (window, quota)],
            *seat_fields,
            *payloads,
        ]
        if self.replica_acks:
            answer, acked = self._replicated(self._append, script_keys, script_args)
        else:
            answer = self._append(keys=script_keys, args=script_args)
            acked = 0
        status, value = answer[0].decode(), answer[1]
        if status == "limited" and counts is not None:
            counts.counted(_pairs(answer[1:]))
            raise LimitReached()
        if status == "duplicate":
            return self._confirmed(game_id, _duplicate(value))
        if status == "stale":
            since = None
            if len(answer) == 4:  # a held game behind the head: what came after it
                entries, seats_raw = answer[2], answer[3]
                since = ([_parse_raw(entry) for entry in entries], _fields(seats_raw))
            raise StaleVersionError(expected_version, int(value), since)
        if counts is not None:
            counts.counted(_pairs(answer[2:]))
        if acked < self.replica_acks:
            raise NotReplicated(game_id, self.replica_acks, acked)
        return int(value)

    def _replicated(
        self, script: Any, script_keys: list[str], script_args: list[Any]
    ) -> tuple[Any, int]:
        """Run ``script`` then ``WAIT`` on one connection to the primary of its keys.

        Returns the script's answer and the replicas ``WAIT`` counted. A node
        that answers MOVED (its slot moved in a failover) makes the cluster's
        slots be read again, and the script runs once more on the new primary.
        A lost connection is not retried here (the script may have run): the
        caller's retry with its Idempotency-Key finds out.
        """
        for attempt in (1, 2):
            node = primary_of(self.redis, script_keys[0])
            try:
                with node.pipeline(transaction=False) as pipe:
                    script(keys=script_keys, args=script_args, client=pipe)
                    pipe.execute_command("WAIT", self.replica_acks, self.replica_ack_timeout_ms)
                    answer, acked = pipe.execute()
                return answer, int(acked)
            except _REDIRECTED as error:
                refresh(self.redis)
                if attempt == 2:
                    raise redis.exceptions.ConnectionError(f"the slot moved: {error}") from error
            except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
                refresh(self.redis)
                raise
        raise AssertionError("unreachable")

    def _confirmed(self, game_id: str, duplicate: Duplicate) -> Duplicate:
        """An idempotency record found, answered only once ``replica_acks`` replicas have it."""
        if self.replica_acks:
            _touched, acked = self._replicated(
                self._touch, [keys(game_id)["idem"]], [IDEMPOTENCY_TTL]
            )
            if acked < self.replica_acks:
                raise NotReplicated(game_id, self.replica_acks, acked)
        return duplicate

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
        after it, the seats, and the record of ``idempotency_key``: one round trip.

        ``held``: the version of this game the caller holds already; when that is
        the head (and the head is asked for), nothing but the head and the record
        is read (``Loaded.held``). ``counts`` (a request's rate limits) are counted
        in the same step, whatever the game (none, or past its quota: the caller
        judges); on a cluster, where the counters live in other slots, the caller
        counts them.
        """
        k = keys(game_id)
        limits = [] if counts is None else list(counts.limits())
        head, snap_version, snap, entries, seats, duplicate, counted = self._load(
            keys=[
                k["log"], k["snap"], k["snapidx"], k["seats"], k["idem"],
                *[key for key, _window, _quota in limits],
            ],
            args=[
                "" if version is None else version,
                "1" if snapshots else "0",
                idempotency_key or "",
                "" if held is None else held,
                len(limits),
                *[window for _key, window, _quota in limits],
            ],
        )  # fmt: skip
        if counts is not None:
            counts.counted(_pairs(counted))
        if int(snap_version) == -1:
            return Loaded(
                head=int(head),
                snapshot_version=int(head),
                snapshot=None,
                events=[],
                seats={},
                duplicate=self._confirmed(game_id, _duplicate(duplicate)) if duplicate else None,
                held=True,
            )
        return Loaded(
            head=int(head),
            snapshot_version=int(snap_version),
            snapshot=json.loads(snap) if snap else None,
            events=[_parse_raw(entry) for entry in entries],
            seats=_fields(seats),
            duplicate=self._confirmed(game_id, _duplicate(duplicate)) if duplicate else None,
        )

    def events(self, game_id: str, after: int = 0, until: int | None = None) -> list[Event]:
        """Events with versions in ``after+1 .. until`` (default: to the head)."""
        end = "+" if until is None else f"{until}-0"
        entries = self.redis.xrange(keys(game_id)["log"], f"{after + 1}-0", end)
        return [_parse_entry(entry) for entry in entries]

    def clock(self, game_id: str) -> TurnClock:
        """The time of the log's last append and the time now, both from Redis."""
        head, last, now = self._clock(keys=[keys(game_id)["log"]])
        return TurnClock(int(head), None if last is None else int(last), int(now))

    def last_append_times(self, game_ids: Sequence[str]) -> dict[str, int | None]:
        """The time of each log's last append, in ms by the log's clock (None: no log, or
        an entry written before entries had a time), read in one pipelined round trip
        (on a Redis Cluster, one per node)."""
        with self.redis.pipeline(transaction=False) as pipe:
            for game_id in game_ids:
                pipe.xrevrange(keys(game_id)["log"], count=1)
            found = pipe.execute()
        times: dict[str, int | None] = {}
        for game_id, entries in zip(game_ids, found, strict=True):
            fields = entries[0][1] if entries else {}
            stamp = fields.get(b"t")
            times[game_id] = None if stamp is None else int(stamp)
        return times

    def head(self, game_id: str) -> int:
        """The log's current version; 0 when the game does not exist."""
        return int(self.redis.xlen(keys(game_id)["log"]))

    def duplicate(self, game_id: str, idempotency_key: str) -> Duplicate | None:
        raw = self.redis.hget(keys(game_id)["idem"], idempotency_key)
        return None if raw is None else self._confirmed(game_id, _duplicate(raw))

    def keyed_game_id(self, scoped_key: str) -> str:
        """A keyed create's game id: random, set once (``SET NX``) and kept
        ``IDEMPOTENCY_TTL``, in a key of its own (hashed: a scope may hold an address)."""
        record = f"{PREFIX}:keyed-create:{hashlib.sha256(scoped_key.encode()).hexdigest()[:32]}"
        while True:
            drawn = secrets.token_hex(8)
            if self.redis.set(record, drawn, nx=True, ex=IDEMPOTENCY_TTL):
                return drawn
            kept = self.redis.get(record)
            if kept is not None:  # else it expired in between: draw again
                return str(kept.decode())


def _duplicate(raw: bytes) -> Duplicate:
    fingerprint, _, version = raw.decode().rpartition(" ")
    return Duplicate(fingerprint, int(version))


def _parse_entry(entry: tuple[bytes, dict[bytes, bytes]]) -> Event:
    """A stream entry as redis-py's XRANGE returns it: (id, {field: value})."""
    _entry_id, fields = entry
    return event_from_dict(json.loads(fields[b"e"]))


def announced_events(news: bytes) -> list[Event]:
    """The events an append announced (the lines after the first of its message)."""
    return [event_from_dict(json.loads(line)) for line in news.split(b"\n") if line]


def _parse_raw(entry: list[Any]) -> Event:
    """A stream entry as a Lua script returns it: [id, [field, value, ...]]."""
    _entry_id, fields = entry
    values = dict(zip(fields[::2], fields[1::2], strict=True))
    return event_from_dict(json.loads(values[b"e"]))


def _pairs(counted: Sequence[Any]) -> list[tuple[int, int]]:
    """The append script's counts, (count, seconds left) per counter."""
    return [(int(counted[i]), int(counted[i + 1])) for i in range(0, len(counted), 2)]


def _fields(raw: Sequence[bytes]) -> dict[str, str]:
    """A hash as a Lua script returns it (HGETALL: field, value, ...)."""
    return {raw[i].decode(): raw[i + 1].decode() for i in range(0, len(raw), 2)}
