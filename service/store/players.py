"""The players of each client app in Redis: records, tokens, ratings and game lists.

Every key of one app's players carries the app's hash tag (``{client:<id>}``,
the slot of its games index), so registering a player and writing a rated
game's two new ratings are each one script in one slot. Only the token
lookup lives elsewhere (``{players}``): a token names its app and player, and
the player's record must still hold that token's hash, so a token replaced by
a new registration stops working at once.

Redis keys:

- ``sch:{client:<app>}:players``             hash: app_player_id -> player id
- ``sch:{client:<app>}:player:<id>``         hash: the record (name, token hash, ratings:
  the default pool's as ``rating``, ``deviation``, ``volatility``, ``games``, where the
  server kept the one rating before pools; another pool's as ``<pool>:rating``, ...)
- ``sch:{client:<app>}:board``               sorted set: the default pool's leaderboard,
  players not provisional by rating (``board:<pool>``: another pool's)
- ``sch:{client:<app>}:ratings:<id>``        list: the player's rating history, newest
  first, capped at ``HISTORY_CAP``
- ``sch:{client:<app>}:played:<id>``         sorted set: the player's games by start (ms),
  capped at ``GAMES_CAP`` (the newest)
- ``sch:{client:<app>}:rated:<game>``        a game's ratings were written (kept
  ``RATED_MARK_SECONDS``)
- ``sch:{client:<app>}:pair:<id>:<id>``       sorted set: the pair's rated games that
  counted within the pair's window, by time (ms); expires with the window (RX8)
- ``sch:{players}:token:<sha256>``            ``<app> <player id>``
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import redis

from service.game import pools, rated_results
from service.game.log import Listed
from service.game.players import Player, Rated, erased_opponent_texts
from service.game.pools import DEFAULT_POOL, POOLS, Pool
from service.store.scripts import Script, lua_script

#: A player token's prefix: recognisable in a leak, and told apart from a client key.
TOKEN_PREFIX = "spt_"
#: How many entries of rating history, and how many games, a player keeps in Redis.
HISTORY_CAP = 200
GAMES_CAP = 500
#: How often a leaderboard's page is read again after provisional players left it.
ATTEMPTS = 4
#: How long a rated game's mark stays: far past any retry of its rating job.
RATED_MARK_SECONDS = 30 * 24 * 3600


class PlayersFull(Exception):
    """The app has as many players as it may register (``PLAYERS_PER_CLIENT``)."""


class UnknownPlayer(LookupError):
    """No player of this app has that id."""


@dataclass(frozen=True, slots=True)
class PairRules:
    """How many of one pair's rated games count within a window (RX8), and what a player
    needs on a pool's leaderboard: rated games (``service.game.rated_results``) and a
    deviation no longer provisional (``service.game.pools``)."""

    games: int = rated_results.PAIR_GAMES
    window_seconds: int = rated_results.PAIR_WINDOW_SECONDS
    board_games: int = rated_results.LEADERBOARD_MIN_GAMES
    board_deviation: float = pools.PROVISIONAL_DEVIATION


#: The rules as docs/rules.md states them (RX8).
DOCUMENTED_PAIR_RULES = PairRules()


@dataclass(frozen=True, slots=True)
class RatingChange:
    """One player's new rating after one rated game, as the history keeps it."""

    player: str
    games_before: int
    rated: Rated
    entry: dict[str, object]


def _tag(app: str) -> str:
    return f"sch:{{client:{app}}}"


def fields_of(pool: Pool) -> str:
    """The prefix of a pool's rating fields in a player's record: none for the default
    pool, whose fields are where the one rating was kept before pools."""
    return "" if pool == DEFAULT_POOL else f"{pool.name}:"


def board_key(app: str, pool: Pool) -> str:
    """A pool's leaderboard key: the default pool's is the app's board before pools."""
    return f"{_tag(app)}:board" + ("" if pool == DEFAULT_POOL else f":{pool.name}")


def _fingerprint(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _token_key(fingerprint: str) -> str:
    return f"sch:{{players}}:token:{fingerprint}"


class PlayerStore:
    """Players of client apps: register, identify a token, read, rate, list their games."""

    def __init__(self, client: redis.Redis, *, players_per_client: int = 1_000_000):
        self.redis = client
        self.players_per_client = players_per_client
        self._register = Script(client, lua_script("player_register"))
        self._rate = Script(client, lua_script("rate_game"))
        self._anonymise = Script(client, lua_script("history_anonymise"))

    # -- registering and identifying -----------------------------------------------
    def register(self, app: str, app_player_id: str, name: str) -> tuple[Player, str]:
        """The app's player with that id (new, or renamed) and a new random token for it;
        the player's token before, if any, stops working. Raises ``PlayersFull``."""
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        fingerprint = _fingerprint(token)
        new_id = "pl_" + secrets.token_hex(8)
        player_id, replaced = self._register(
            keys=[f"{_tag(app)}:players"],
            args=[
                f"{_tag(app)}:player:",
                app_player_id,
                new_id,
                name,
                round(time.time(), 3),
                fingerprint,
                self.players_per_client,
            ],
        )
        if not player_id:
            raise PlayersFull(app)
        player_id = player_id.decode()
        # The record holds the token's hash first: a lookup key without it is refused.
        self.redis.set(_token_key(fingerprint), f"{app} {player_id}")
        if replaced and replaced.decode() != fingerprint:
            self.redis.delete(_token_key(replaced.decode()))
        return self.get(app, player_id), token

    def identify(self, token: str) -> Player | None:
        """The player a token belongs to, or None (unknown, or replaced since)."""
        if not token.startswith(TOKEN_PREFIX) or len(token) > 128:
            return None
        fingerprint = _fingerprint(token)
        found = self.redis.get(_token_key(fingerprint))
        if found is None:
            return None
        app, _, player_id = found.decode().partition(" ")
        record = self.redis.hgetall(f"{_tag(app)}:player:{player_id}")
        if not record or record.get(b"token", b"").decode() != fingerprint:
            return None
        return _player(app, record)

    # -- reading -------------------------------------------------------------------
    def get(self, app: str, player_id: str) -> Player:
        record = self.redis.hgetall(f"{_tag(app)}:player:{player_id}")
        if not record:
            raise UnknownPlayer(player_id)
        return _player(app, record)

    def names(self, app: str, player_ids: Iterable[str]) -> dict[str, str]:
        """The display names of the app's players among ``player_ids`` (unknown ones left out)."""
        wanted = [pid for pid in dict.fromkeys(player_ids) if pid]
        with self.redis.pipeline(transaction=False) as pipe:
            for player_id in wanted:
                pipe.hget(f"{_tag(app)}:player:{player_id}", "name")
            found = pipe.execute()
        return {pid: name.decode() for pid, name in zip(wanted, found, strict=True) if name}

    def leaderboard(
        self,
        app: str,
        offset: int,
        count: int,
        pool: Pool = DEFAULT_POOL,
        rules: PairRules = DOCUMENTED_PAIR_RULES,
    ) -> list[tuple[int, Player]]:
        """The app's players on ``pool``'s board by their rating there, best first: (rank,
        player) from ``offset``; ``rules``: those the ratings were written by.

        A server before pools put a player on the board at five rated games, however
        high its deviation: such a player, provisional by ``rules``, met on a page leaves
        the board then (its next rated game would take it off too), and the page is read
        again, so no page shows one and the ranks stay whole."""
        board = board_key(app, pool)
        players: list[Player] = []
        for _attempt in range(ATTEMPTS):
            ids = self.redis.zrevrange(board, offset, offset + count - 1)
            with self.redis.pipeline(transaction=False) as pipe:
                for player_id in ids:
                    pipe.hgetall(f"{_tag(app)}:player:{player_id.decode()}")
                records = pipe.execute()
            players = [_player(app, record) for record in records if record]
            stale = [p.id for p in players if p.rating_in(pool).deviation > rules.board_deviation]
            if not stale:
                break
            self.redis.zrem(board, *stale)
        return [(offset + rank + 1, player) for rank, player in enumerate(players)]

    def history(
        self, app: str, player_id: str, count: int, pool: Pool | None = None
    ) -> list[dict[str, object]]:
        """The player's last ``count`` rating changes (in ``pool``; None: every pool),
        newest first."""
        if pool is not None:
            return self.history_page(app, player_id, None, count, pool)
        entries = self.redis.lrange(f"{_tag(app)}:ratings:{player_id}", 0, count - 1)
        return [json.loads(entry) for entry in entries]

    def history_page(
        self,
        app: str,
        player_id: str,
        after: Listed | None,
        count: int,
        pool: Pool | None = None,
    ) -> list[dict[str, object]]:
        """Up to ``count`` of the player's rating changes (in ``pool``; None: every pool)
        older than ``after`` (its time ``at`` and ``game_id``; None: the newest), newest
        first.

        The list is in the order the changes were written: a page goes on after the
        cursor's change where it is in the list, so a history an older server wrote
        with tied times (before ``_after_last``) still pages whole; a change no longer
        listed (trimmed off) pages on by time. A change written before pools is the
        default pool's."""
        entries = [
            json.loads(e) for e in self.redis.lrange(f"{_tag(app)}:ratings:{player_id}", 0, -1)
        ]
        if after is not None:
            at = [n for n, e in enumerate(entries) if e["game_id"] == after.game_id]
            if at:
                entries = entries[at[0] + 1 :]
            else:
                edge = (after.created_ms, after.game_id)
                entries = [e for e in entries if (e["at"], e["game_id"]) < edge]
        if pool is not None:
            entries = [e for e in entries if e.get("pool", DEFAULT_POOL.name) == pool.name]
        return entries[:count]

    # -- games ---------------------------------------------------------------------
    def played(self, app: str, player_ids: Iterable[str], game_id: str, started_ms: int) -> None:
        """Add a game to each player's list, keeping the newest ``GAMES_CAP``."""
        with self.redis.pipeline(transaction=False) as pipe:
            for player_id in player_ids:
                key = f"{_tag(app)}:played:{player_id}"
                pipe.zadd(key, {game_id: started_ms}, nx=True)
                pipe.zremrangebyrank(key, 0, -GAMES_CAP - 1)
            pipe.execute()

    def games(self, app: str, player_id: str, before_ms: int | None, count: int) -> list[str]:
        """The player's games, newest first, started before ``before_ms`` (default: any)."""
        top = f"({before_ms}" if before_ms is not None else "+inf"
        found = self.redis.zrevrangebyscore(
            f"{_tag(app)}:played:{player_id}", top, "-inf", start=0, num=count
        )
        return [game_id.decode() for game_id in found]

    def games_page(
        self, app: str, player_id: str, after: Listed | None, count: int
    ) -> list[Listed]:
        """Up to ``count`` of the player's games older than ``after`` (None: the newest),
        newest first by (start, game id)."""
        key = f"{_tag(app)}:played:{player_id}"
        if after is None:
            found = self.redis.zrevrangebyscore(key, "+inf", "-inf", 0, count, withscores=True)
        else:
            ties = self.redis.zcount(key, after.created_ms, after.created_ms)
            found = self.redis.zrevrangebyscore(
                key, after.created_ms, "-inf", 0, count + ties, withscores=True
            )
        games = [Listed(member.decode(), int(score)) for member, score in found]
        if after is not None:
            edge = (after.created_ms, after.game_id)
            games = [g for g in games if (g.created_ms, g.game_id) < edge]
        return games[:count]

    def started(self, app: str, player_id: str, game_ids: Sequence[str]) -> dict[str, int]:
        """When each of the player's listed games started (ms)."""
        if not game_ids:
            return {}
        scores = self.redis.zmscore(f"{_tag(app)}:played:{player_id}", list(game_ids))
        return {gid: int(score or 0) for gid, score in zip(game_ids, scores, strict=True)}

    # -- ratings -------------------------------------------------------------------
    def rated(self, app: str, game_id: str) -> bool:
        """Whether the game's ratings were written."""
        return bool(self.redis.exists(f"{_tag(app)}:rated:{game_id}"))

    def write_ratings(
        self,
        app: str,
        game_id: str,
        changes: Sequence[RatingChange],
        *,
        pair: tuple[str, str] | None = None,
        rules: PairRules = DOCUMENTED_PAIR_RULES,
        pool: Pool = DEFAULT_POOL,
    ) -> int:
        """Write a game's new ratings in its ``pool`` once: 1 written, 0 written before, -1
        a player's rating there moved since it was read (read again and compute again), 2
        the ``pair`` of players has had its counted games within its window (RX8): only
        the game's mark is written. A player is on the pool's board while it has
        ``rules.board_games`` there and a deviation of at most ``rules.board_deviation``."""
        at = self._after_last(app, changes)
        args: list[object] = [
            f"{_tag(app)}:player:",
            board_key(app, pool),
            f"{_tag(app)}:ratings:",
            HISTORY_CAP,
            RATED_MARK_SECONDS,
            int(time.time() * 1000),
            rules.window_seconds * 1000,
            rules.games,
            rules.board_games,
            fields_of(pool),
            repr(float(rules.board_deviation)),
        ]
        for change in changes:
            args += [
                change.player,
                change.games_before,
                repr(change.rated.rating),
                repr(change.rated.deviation),
                repr(change.rated.volatility),
                json.dumps({**change.entry, "at": at}, separators=(",", ":")),
            ]
        keys = [f"{_tag(app)}:rated:{game_id}"]
        if pair is not None:
            low, high = sorted(pair)
            keys.append(f"{_tag(app)}:pair:{low}:{high}")
        return int(self._rate(keys=keys, args=args))

    def _after_last(self, app: str, changes: Sequence[RatingChange]) -> int:
        """The time (ms) a game's rating changes are written with: the time they were
        computed at, yet at least 1 ms after each of its players' newest change, so a
        history paged by (time, game id) keeps the order its changes were written in
        (two workers within one millisecond, a worker's clock behind another's). Read
        before the script: a player rated meanwhile fails the script's games check."""
        now = int(time.time() * 1000)
        at = max((int(change.entry.get("at", now)) for change in changes), default=now)  # type: ignore[call-overload]
        for change in changes:
            newest = self.redis.lindex(f"{_tag(app)}:ratings:{change.player}", 0)
            if newest is not None:
                at = max(at, int(json.loads(newest).get("at", 0)) + 1)
        return at

    # -- erasing -------------------------------------------------------------------
    def revoke(self, app: str, player_id: str) -> None:
        """The player's token stops working now (the first step of its erasure)."""
        token = self.redis.hget(f"{_tag(app)}:player:{player_id}", "token")
        if token:
            self.redis.delete(_token_key(token.decode()))
        self.redis.hset(f"{_tag(app)}:player:{player_id}", "token", "")

    def anonymise_ratings(
        self, app: str, player_id: str, games: Sequence[tuple[str, str | None]]
    ) -> None:
        """The erased player's opponents' histories stop naming it, their numbers kept;
        ``games``: each game of the player and its opponent there (None: none or a bot).
        The pair's marks of recent games (RX8) go: the player plays no more."""
        named, anonymous = erased_opponent_texts(player_id)
        for opponent in sorted({o for _g, o in games if o}):
            self._anonymise(keys=[f"{_tag(app)}:ratings:{opponent}"], args=[named, anonymous])
            low, high = sorted((player_id, opponent))
            self.redis.delete(f"{_tag(app)}:pair:{low}:{high}")

    def forget(self, app: str, player_id: str) -> bool:
        """Delete the player's record, history and games list and take it off the board
        (the last step of its erasure); False when the app has no such player."""
        tag = _tag(app)
        record = self.redis.hgetall(f"{tag}:player:{player_id}")
        if not record:
            return False
        self.revoke(app, player_id)
        with self.redis.pipeline(transaction=True) as pipe:
            app_player_id = record.get(b"app_player_id")
            if app_player_id:
                pipe.hdel(f"{tag}:players", app_player_id)
            for pool in POOLS:
                pipe.zrem(board_key(app, pool), player_id)
            pipe.delete(f"{tag}:player:{player_id}", f"{tag}:ratings:{player_id}",
                        f"{tag}:played:{player_id}")  # fmt: skip
            pipe.execute()
        return True


def _player(app: str, record: dict[bytes, bytes]) -> Player:
    text = {key.decode(): value.decode() for key, value in record.items()}
    ratings = {}
    for pool in POOLS:
        prefix = fields_of(pool)
        if prefix + "rating" in text:
            ratings[pool.name] = Rated(
                rating=float(text[prefix + "rating"]),
                deviation=float(text[prefix + "deviation"]),
                volatility=float(text[prefix + "volatility"]),
                games=int(text[prefix + "games"]),
            )
    return Player(
        id=text["id"],
        app=app,
        app_player_id=text["app_player_id"],
        name=text.get("name", ""),
        created=float(text["created"]),
        ratings=ratings,
    )
