"""Each client app's games in play, by rating: what ``GET /v1/games/live`` lists and
``GET /v1/games/featured`` chooses from.

A game of an app (``Seats.owner``) enters its app's index when an append makes it
active (both seats taken: a bot game at its creation, a game between people when
seat 1 joins) and leaves it when an append ends it. The game's log lives in its own
slot (``{<game_id>}``) and the index in the app's, so the index is written by an
append listener just after the append, as ``service.store.stats`` counts. A listener
that did not run (its process died between the two writes) leaves an entry that
says less than the log: the reads check every entry against the game's log and
drop one whose game is over or gone, so a stale entry is never shown and is
removed by the first read that meets it.

The index is bounded: one entry per game in play of the app, and at most
``cap`` entries; past that, the lowest-rated entries leave. Nothing a caller sends
adds to it but a game that starts.

Redis keys (hash tag per app, so one app's keys are in one slot and a busy app
loads one slot only):

- ``sch:{client:<id>}:live``          a sorted set: game id, scored by its rating
- ``sch:{client:<id>}:live:<pool>``   the same, for the games of one pool
- ``sch:{client:<id>}:live:tn:<tournament>``  the same, for the boards of one tournament
  (``Seats.tournament``: the tournament whose round the game is a board of)

A game's rating is the mean of its seats' ratings in its pool when it started
(a player's rating there; a bot's, the fixed rating it stands at in a rated game:
its ladder Elo plus 1000), rounded to a whole number; an anonymous person's seat
has none, and a game with no rated seat is scored 0 (and shows no rating). Games
of one rating come in descending id order, so the cursor ``(rating, id)`` splits
them exactly.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import redis

from service.engine import Event, GameCreated, GameStatus, SeatTaken
from service.game.log import Listed
from service.game.players import Player
from service.game.pools import POOLS, Pool, pool_of
from service.game.values import Current
from service.store.players import UnknownPlayer
from service.store.ratings import BOT_RATING_BASE
from service.store.sorted_pages import page_down

log = logging.getLogger(__name__)

#: The most entries one app's index keeps (the lowest-rated leave first).
LIVE_CAP = 10_000
#: The most index entries one read checks against the games' logs before it answers.
SCAN_LIMIT = 500


def index_key(app: str, pool: Pool | None = None, tournament: str | None = None) -> str:
    """The app's index of games in play; with ``pool``, of that pool's games; with
    ``tournament``, of that tournament's boards (all of one pool: its variant and clock)."""
    base = f"sch:{{client:{app}}}:live"
    if tournament is not None:
        return f"{base}:tn:{tournament}"
    return base if pool is None else f"{base}:{pool.name}"


def game_indexes(app: str, pool: Pool, tournament: str | None) -> tuple[str, ...]:
    """Every index a game of ``pool`` (a board of ``tournament``, if any) is kept in."""
    keys = (index_key(app), index_key(app, pool))
    return keys if tournament is None else (*keys, index_key(app, tournament=tournament))


def game_pool(current: Current) -> Pool:
    """The pool of a game: its variant at the speed of its clock."""
    return pool_of(current.state.variant, current.seats.clock)


class PlayerLookup(Protocol):
    """What the index reads of an app's players: one player, with its ratings."""

    def get(self, app: str, player_id: str) -> Player: ...


@dataclass(frozen=True, slots=True)
class LiveEntry:
    """One game of the index: its id and its rating (0: no seat of it is rated)."""

    game_id: str
    rating: int

    @property
    def cursor(self) -> Listed:
        """Where the page after this entry starts (a ``Listed`` of rating and id)."""
        return Listed(self.game_id, self.rating)


def seat_ratings(
    current: Current, players: PlayerLookup, bot_elo: Mapping[str, float]
) -> list[float | None]:
    """Each seat's rating in the game's pool: a player's, a bot's fixed one, or None
    (an anonymous person, an erased player, a player the app no longer has)."""
    pool = game_pool(current)
    app = current.seats.owner
    ratings: list[float | None] = []
    for seat in current.seats.seats:
        if seat.bot:
            elo = bot_elo.get(seat.level or "")
            ratings.append(None if elo is None else elo + BOT_RATING_BASE)
        elif seat.player is not None and not seat.erased and app is not None:
            try:
                ratings.append(players.get(app, seat.player).rating_in(pool).rating)
            except UnknownPlayer:
                ratings.append(None)
        else:
            ratings.append(None)
    return ratings


def game_rating(ratings: Sequence[float | None]) -> int | None:
    """The mean of the known ratings, rounded; None when no seat has one."""
    known = [r for r in ratings if r is not None]
    if not known:
        return None
    return max(0, round(sum(known) / len(known)))


class LiveGames:
    """The apps' indexes of games in play (see the module's docstring)."""

    def __init__(self, client: redis.Redis, *, cap: int = LIVE_CAP):
        self.redis = client
        self.cap = cap

    def started(
        self, app: str, game_id: str, pool: Pool, rating: int, tournament: str | None = None
    ) -> None:
        """Index a game that began; a second call for it keeps its first rating."""
        with self.redis.pipeline(transaction=True) as pipe:
            for key in game_indexes(app, pool, tournament):
                pipe.zadd(key, {game_id: rating}, nx=True)
                # Past the cap, the lowest-rated leave: the index stays bounded.
                pipe.zremrangebyrank(key, 0, -self.cap - 1)
            pipe.execute()

    def ended(self, app: str, game_id: str, pool: Pool, tournament: str | None = None) -> None:
        """The game is no longer in play (over, or gone from Redis)."""
        with self.redis.pipeline(transaction=True) as pipe:
            for key in game_indexes(app, pool, tournament):
                pipe.zrem(key, game_id)
            pipe.execute()

    def forget(self, app: str, game_id: str, tournament: str | None = None) -> None:
        """A game Redis no longer holds, whatever its pool: it leaves every index (of
        the tournaments', the one of ``tournament``: a game gone says no more)."""
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.zrem(index_key(app), game_id)
            for pool in POOLS:
                pipe.zrem(index_key(app, pool), game_id)
            if tournament is not None:
                pipe.zrem(index_key(app, tournament=tournament), game_id)
            pipe.execute()

    def page(
        self,
        app: str,
        *,
        pool: Pool | None,
        min_rating: int | None,
        after: Listed | None,
        count: int,
        tournament: str | None = None,
    ) -> list[LiveEntry]:
        """Up to ``count`` entries after ``after`` (default: the highest rated), by
        rating, highest first, then by id, descending; only ratings of at least
        ``min_rating``; with ``tournament``, only its boards (``pool`` is then the
        caller's to check: a tournament's games are all of one pool)."""
        listed = page_down(
            self.redis,
            index_key(app, pool, tournament),
            after=after,
            count=count,
            bottom=min_rating,
        )
        return [LiveEntry(entry.game_id, entry.created_ms) for entry in listed]

    def top(self, app: str, count: int) -> list[LiveEntry]:
        """Up to ``count`` entries of the app's highest rating (by id, descending)."""
        best = self.redis.zrevrange(index_key(app), 0, 0, withscores=True)
        if not best:
            return []
        rating = int(best[0][1])
        batch = self.redis.zrevrangebyscore(
            index_key(app), rating, rating, start=0, num=count, withscores=True
        )
        return [LiveEntry(member.decode(), int(score)) for member, score in batch]


class IndexLiveGames:
    """An append listener that keeps the apps' indexes: a game that becomes active
    enters its app's index, a game that ends leaves it.

    Only the append that seats the second player (or creates a bot game) and the
    append that ends the game write: a move in between costs nothing here. A
    failed write is a warning, never a failed command: the reads check every entry
    against the log.
    """

    def __init__(
        self, live: LiveGames, players: PlayerLookup, bot_elo: Mapping[str, float]
    ) -> None:
        self.live = live
        self.players = players
        self.bot_elo = dict(bot_elo)

    def appended(self, current: Current, events: Sequence[Event]) -> None:
        app = current.seats.owner
        if app is None or not events:
            return
        status = current.state.status
        try:
            if status is GameStatus.FINISHED:
                self.live.ended(app, current.game_id, game_pool(current), current.seats.tournament)
            elif status is GameStatus.ACTIVE and any(
                isinstance(event, (GameCreated, SeatTaken)) for event in events
            ):
                self.start(current)
        except (redis.RedisError, OSError):
            log.warning("could not index game %s as in play or ended", current.game_id)

    def start(self, current: Current) -> None:
        """Index a game in play of its app, at its rating now."""
        app = current.seats.owner
        assert app is not None
        rating = game_rating(seat_ratings(current, self.players, self.bot_elo))
        self.live.started(
            app, current.game_id, game_pool(current), rating or 0, current.seats.tournament
        )


__all__ = [
    "LIVE_CAP",
    "SCAN_LIMIT",
    "IndexLiveGames",
    "LiveEntry",
    "LiveGames",
    "PlayerLookup",
    "game_indexes",
    "game_pool",
    "game_rating",
    "index_key",
    "seat_ratings",
]
