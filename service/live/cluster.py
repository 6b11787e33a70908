"""Waiting for a game's next event on a Redis Cluster: a shard subscription per watched game.

On one Redis the append script PUBLISHes every append on one channel and one
subscription per process hears them all (``service.live.watcher``). A classic PUBLISH
on a cluster is sent to every node, so its cost grows with the cluster; the
append script there SPUBLISHes on the game's own shard channel instead,
``sch:{<game_id>}:appended`` (sharded pub/sub, Redis 7), which lives in the
game's slot and is heard only on the shard that holds it.

``ShardedLogWatcher`` keeps ``LogWatcher``'s contract with one change of means:

- the first waiter of a game SSUBSCRIBEs the game's channel, on the primary
  that holds its slot, and waits for the confirmation before it reads the
  version ("check after subscribing"); later waiters of the game find the
  subscription in place (a channel nobody waits on is dropped after
  ``IDLE_SECONDS``, so a game's waiters that come and go cost no round trip);
- one listener thread (a greenlet under gevent) per primary the process
  subscribes on; requests only send (``SSUBSCRIBE``), the listener only reads;
- when a primary is lost (killed, failed over) or moves a slot away
  (``SUNSUBSCRIBE`` from the server, ``MOVED``), or a subscription cannot be
  sent, its games are subscribed again on the primary that serves them now,
  and then their waiters are woken to look again, so nothing appended
  meanwhile is missed. One retrier per process keeps trying, for as long as
  a game has waiters: a takeover can take longer than noticing the loss, and
  until it is done the cluster still names the dead node as the primary.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import redis
from redis.backoff import NoBackoff
from redis.cluster import RedisCluster
from redis.retry import Retry

from service.live.watcher import LogWatcher

log = logging.getLogger(__name__)

#: A channel without waiters is unsubscribed after this many seconds.
IDLE_SECONDS = 10.0
#: A first waiter waits at most this long for its subscription's confirmation.
CONFIRM_SECONDS = 2.0
#: A listener looks for idle channels at least this often.
LISTEN_SECONDS = 1.0
#: The retrier's pause between tries grows to this (from a tenth of a second).
RETRY_MAX_SECONDS = 2.0


def channel(game_id: str) -> str:
    """The shard channel of a game's appends (in the game's slot)."""
    return f"sch:{{{game_id}}}:appended"


def _game_of(name: bytes | str) -> str:
    text = name.decode() if isinstance(name, bytes) else name
    return text.partition("{")[2].partition("}")[0]


@dataclass(eq=False)
class _Subscription:
    """A game's shard subscription on one primary."""

    game_id: str
    confirmed: threading.Event = field(default_factory=threading.Event)
    #: When its last waiter left (None: it has waiters).
    idle_since: float | None = None


class _Shard:
    """The subscription connection of this process to one primary, and its listener."""

    def __init__(self, watcher: ShardedLogWatcher, name: str, host: str, port: int):
        self.watcher = watcher
        self.name = name
        # No retries inside redis-py: a dead node is noticed at once (not after its
        # backoff of seconds) and the watcher's retrier looks for the new primary.
        client = redis.Redis(
            host=host,
            port=port,
            socket_connect_timeout=2,
            health_check_interval=0,
            retry=Retry(NoBackoff(), 0),
        )
        self.pubsub = client.pubsub()
        #: Sends and the decisions they carry out happen under it, in order.
        self.send_lock = threading.Lock()
        self.subscriptions: dict[str, _Subscription] = {}
        #: Games unsubscribed by us whose SUNSUBSCRIBE is not confirmed yet.
        self.leaving: set[str] = set()
        self.lost = False
        threading.Thread(target=self._listen, name=f"shard-watcher {name}", daemon=True).start()

    def subscribe(self, game_id: str) -> _Subscription:
        """The game's subscription here (sent now if it is new).

        A send that fails loses the shard (its connection is gone): no
        subscription is left behind that nobody will ever confirm.
        """
        failed: BaseException | None = None
        games: list[str] = []
        with self.send_lock:
            if self.lost:
                raise redis.exceptions.ConnectionError(f"the subscription to {self.name} is lost")
            found = self.subscriptions.get(game_id)
            if found is None:
                found = self.subscriptions[game_id] = _Subscription(game_id)
                try:
                    self.pubsub.ssubscribe(channel(game_id))
                except (redis.exceptions.RedisError, OSError) as error:
                    failed = error
                    games = self._mark_lost()
            found.idle_since = None
        if failed is not None:
            self._give_up(failed, games)
            raise failed
        return found

    def idle(self, game_id: str) -> None:
        with self.send_lock:
            found = self.subscriptions.get(game_id)
            if found is not None:
                found.idle_since = time.monotonic()

    def _drop_idle(self) -> None:
        now = time.monotonic()
        with self.send_lock:
            idle = [
                game_id
                for game_id, found in self.subscriptions.items()
                if found.idle_since is not None and now - found.idle_since > IDLE_SECONDS
            ]
            for game_id in idle:
                del self.subscriptions[game_id]
            self.leaving.update(idle)
            if idle:
                self.pubsub.sunsubscribe(*[channel(game_id) for game_id in idle])
        self.watcher.forget(idle, self)

    def _listen(self) -> None:
        try:
            while not self.lost:
                message = self.pubsub.get_sharded_message(timeout=LISTEN_SECONDS)
                if message is None:
                    self._drop_idle()
                    continue
                kind = message["type"]
                game_id = _game_of(message["channel"])
                if kind == "smessage":  # "<game_id> <version>", then the events a line each
                    head, _, news = message["data"].partition(b"\n")
                    _game, _, version = head.decode().partition(" ")
                    self.watcher.notify(game_id, int(version), news)
                elif kind == "ssubscribe":
                    with self.send_lock:
                        found = self.subscriptions.get(game_id)
                    if found is not None:
                        found.confirmed.set()
                elif kind == "sunsubscribe":
                    with self.send_lock:
                        asked = game_id in self.leaving
                        self.leaving.discard(game_id)
                        found = None if asked else self.subscriptions.pop(game_id, None)
                    if found is not None:  # not asked for: the slot moved away from here
                        self.watcher.unplace(game_id, self)
                        self.watcher.retry([game_id])
        except (redis.exceptions.RedisError, OSError) as error:  # MOVED is a ResponseError
            with self.send_lock:
                if self.lost:  # a failed send lost it already, and closed the connection
                    return
                games = self._mark_lost()
            self._give_up(error, games)

    def _mark_lost(self) -> list[str]:
        """Lose this shard (under ``send_lock``): the games subscribed here."""
        self.lost = True
        games = list(self.subscriptions)
        self.subscriptions.clear()
        return games

    def _give_up(self, error: BaseException, games: list[str]) -> None:
        """Close the lost connection; the retrier subscribes ``games`` where they are now."""
        log.warning("shard watcher lost %s (%s); resubscribing %d games", self.name, error,
                    len(games))  # fmt: skip
        with contextlib.suppress(Exception):  # the connection is gone already
            self.pubsub.reset()
        self.watcher.retry(games)


class ShardedLogWatcher(LogWatcher):
    """``LogWatcher`` on a Redis Cluster: a shard subscription per watched game."""

    def __init__(self, cluster: Callable[[], RedisCluster]):
        super().__init__(lambda: redis.Redis())  # never called: no classic subscription
        self._cluster_factory = cluster
        self._cluster: RedisCluster | None = None
        self._shards: dict[str, _Shard] = {}
        #: Per game, the shard that holds its subscription.
        self._placed: dict[str, _Shard] = {}
        self._place_lock = threading.Lock()
        #: Games to subscribe again, and whether the retrier is running (``_retry_lock``).
        self._pending: set[str] = set()
        self._retrying = False
        self._retry_lock = threading.Lock()

    def _watching(self, game_id: str) -> None:
        """Subscribe to the game on its shard, confirmed before the waiter reads the version."""
        try:
            subscription = self._subscribe(game_id)
            subscription.confirmed.wait(CONFIRM_SECONDS)
        except (redis.exceptions.RedisError, OSError) as error:
            # No subscription now: the waiter reads the version and waits; the
            # retrier subscribes the game once its primary answers, and wakes it.
            log.warning("could not subscribe to game %s (%s)", game_id, error)
            self.retry([game_id])

    def _unwatched(self, game_id: str) -> None:
        shard = self._placed.get(game_id)
        if shard is not None:
            shard.idle(game_id)

    def announced(self, game_id: str) -> int | None:
        """Only a game whose subscription is confirmed has its announcements here."""
        return super().announced(game_id) if self._hears(game_id) else None

    def _hears(self, game_id: str) -> bool:
        """Whether the game's subscription on its shard is confirmed."""
        shard = self._placed.get(game_id)
        found = shard.subscriptions.get(game_id) if shard is not None else None
        return found is not None and found.confirmed.is_set()

    def _start_listening(self) -> None:
        """After a fork no shard of the parent's is ours: each game subscribes on its own
        shard as its waiters come (``_subscribe``), not here."""
        self._shards.clear()
        self._placed.clear()
        self._cluster = None
        self._pending = set()
        self._retrying = False
        self._subscribed.set()

    def _subscribe(self, game_id: str) -> _Subscription:
        """The game's subscription on the primary of its slot (made now if needed)."""
        with self._place_lock:
            shard = self._placed.get(game_id)
            if shard is None or shard.lost:
                shard = self._shard_for(game_id)
                self._placed[game_id] = shard
        return shard.subscribe(game_id)

    def _shard_for(self, game_id: str) -> _Shard:
        if self._cluster is None:
            self._cluster = self._cluster_factory()
        node = self._cluster.get_node_from_key(channel(game_id))
        shard = self._shards.get(node.name)
        if shard is None or shard.lost:
            shard = self._shards[node.name] = _Shard(self, node.name, node.host, node.port)
        return shard

    def unplace(self, game_id: str, shard: _Shard) -> None:
        """``game_id`` is not subscribed on ``shard`` any more (its slot moved away)."""
        with self._place_lock:
            if self._placed.get(game_id) is shard:
                del self._placed[game_id]

    def retry(self, games: list[str]) -> None:
        """Subscribe ``games`` again where their slots are served now (in the background)."""
        with self._retry_lock:
            self._pending.update(games)
            if self._retrying or not self._pending:
                return
            self._retrying = True
        threading.Thread(target=self._retry_pending, name="shard-retrier", daemon=True).start()

    def _retry_pending(self) -> None:
        """The retrier: until every pending game with waiters is subscribed again.

        Each pass reads the cluster's slots afresh, subscribes, and wakes the
        waiters of the games confirmed (they read the version again, so nothing
        appended meanwhile is missed). The others wait for the next pass: a
        takeover takes ``cluster-node-timeout`` and an election, and until it
        is done the dead node is still named as their primary.
        """
        pause = 0.1
        while True:
            with self._lock:
                waited = set(self._waiters)
            with self._retry_lock:
                todo = [game_id for game_id in self._pending if game_id in waited]
                self._pending.clear()
                if not todo:
                    self._retrying = False
                    return
            if self._cluster is not None:
                with contextlib.suppress(Exception):  # no node answers yet: the next pass
                    self._cluster.nodes_manager.initialize()
            tried = []
            for game_id in todo:
                try:
                    tried.append(self._subscribe(game_id))
                except (redis.exceptions.RedisError, OSError):
                    continue
            for subscription in tried:
                subscription.confirmed.wait(CONFIRM_SECONDS)
            confirmed = {s.game_id for s in tried if s.confirmed.is_set()}
            self._wake(confirmed)
            failed = [game_id for game_id in todo if game_id not in confirmed]
            with self._retry_lock:
                self._pending.update(failed)
            if failed:
                time.sleep(pause)
                pause = min(pause * 2, RETRY_MAX_SECONDS)
            else:
                pause = 0.1

    def forget(self, games: list[str], shard: _Shard) -> None:
        """``games`` were unsubscribed from ``shard`` (idle): what was announced for them
        is no news any more, and they are placed nowhere (unless a waiter came back)."""
        with self._lock:
            self._forget(games)
        with self._place_lock, shard.send_lock:
            for game_id in games:
                if self._placed.get(game_id) is shard and game_id not in shard.subscriptions:
                    del self._placed[game_id]

    def _wake(self, games: set[str]) -> None:
        with self._lock:
            self._forget(games)
            waiters = [w for game_id in games for w in self._waiters.get(game_id, ())]
        for waiter in waiters:
            waiter.woken.set()


__all__ = ["ShardedLogWatcher", "channel"]
