"""The players of client apps in the database of record: what ``PlayerStore`` keeps in
Redis, kept for good, with nothing capped.

Where the service has a database (``SCHNAPSEN_ARCHIVE_URL``; the run command
always has its SQLite file) the players live there, through the same methods
as ``service.store.players.PlayerStore``, so the API and the workers do not
know which one they hold. Tables (``migrations/<dialect>/0004_players.sql``):

- ``players``: one row a player: the app's own id for it (unique per app), its
  name, its token's SHA-256 (never the token: a copy of the database opens no
  player's account);
- ``player_ratings`` (``0008_rating_pools.sql``): one row per player and rating
  pool it has played rated games in; a pool's leaderboard is a query of it;
- ``rating_changes``: one row per rated game and player, the history entry;
  its key (game, player) makes a game's rating written once;
- ``player_games``: one row per game and player, by start.

Registering is one transaction under the app's lock (the players cap and the
app's id of a player hold however many processes register at once). A rated
game's mark (``rated_games``), its new ratings and its history rows are one
transaction: when the game is marked already nothing is written (0); when a
player's games count is no longer the one read, another game was rated
meanwhile and nothing is written (-1: read again); when the game's pair of
players had its counted games within the pair's window (RX8) only the mark is
written (2); else everything is (1). A player is on the leaderboard once it
has the rated games the rules ask for and a rating no longer provisional
(``on_board``, per pool). A change's time is at
least 1 ms after its player's newest one, so a history listed and paged by
(time, game id) is in the order its changes were written.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from collections.abc import Iterable, Sequence
from typing import Any

from service.game.log import Listed
from service.game.players import ERASED_OPPONENT, Player, Rated, erased_opponent_texts
from service.game.pools import DEFAULT_POOL, Pool
from service.store.players import (
    DOCUMENTED_PAIR_RULES,
    TOKEN_PREFIX,
    PairRules,
    PlayersFull,
    PlayerStore,
    RatingChange,
    UnknownPlayer,
)
from service.store.records_db import Duplicate, RecordsDatabase, Transaction

_PLAYER = "player_id, app, app_player_id, name, created"
_RATING = "player_id, pool, rating, deviation, volatility, games"


def fingerprint(token: str) -> str:
    """What the database keeps of a token: its SHA-256."""
    return hashlib.sha256(token.encode()).hexdigest()


class _Moved(Exception):
    """A player's rating moved since it was read: roll the write back."""


class PlayerRecords:
    """Players of client apps in the database: register, identify a token, read, rate,
    list their games."""

    def __init__(self, db: RecordsDatabase, *, players_per_client: int = 1_000_000):
        self.db = db
        self.players_per_client = players_per_client

    # -- registering and identifying -----------------------------------------------
    def register(self, app: str, app_player_id: str, name: str) -> tuple[Player, str]:
        """The app's player with that id (new, or renamed) and a new random token for it;
        the player's token before, if any, stops working. Raises ``PlayersFull``."""
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        with self.db.write() as run:
            run.lock(f"players:{app}")
            found = run(
                "SELECT player_id FROM players WHERE app = ? AND app_player_id = ?",
                (app, app_player_id),
            ).fetchone()
            if found is None:
                (count,) = run("SELECT count(*) FROM players WHERE app = ?", (app,)).fetchone()
                if count >= self.players_per_client:
                    raise PlayersFull(app)
                player_id = "pl_" + secrets.token_hex(8)
                run(
                    f"INSERT INTO players ({_PLAYER}, token_sha256) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (player_id, app, app_player_id, name, round(time.time(), 3),
                     fingerprint(token)),
                )  # fmt: skip
            else:
                (player_id,) = found
                run(
                    "UPDATE players SET name = ?, token_sha256 = ? WHERE player_id = ?",
                    (name, fingerprint(token), player_id),
                )
        return self.get(app, player_id), token

    def identify(self, token: str) -> Player | None:
        """The player a token belongs to, or None (unknown, or replaced since)."""
        if not token.startswith(TOKEN_PREFIX) or len(token) > 128:
            return None
        with self.db.read() as run:
            row = run(
                f"SELECT {_PLAYER} FROM players WHERE token_sha256 = ?", (fingerprint(token),)
            ).fetchone()
            return None if row is None else _players(run, [row])[0]

    # -- reading -------------------------------------------------------------------
    def get(self, app: str, player_id: str) -> Player:
        with self.db.read() as run:
            row = run(
                f"SELECT {_PLAYER} FROM players WHERE player_id = ? AND app = ?", (player_id, app)
            ).fetchone()
            if row is None:
                raise UnknownPlayer(player_id)
            return _players(run, [row])[0]

    def names(self, app: str, player_ids: Iterable[str]) -> dict[str, str]:
        """The display names of the app's players among ``player_ids`` (unknown ones left out)."""
        wanted = [pid for pid in dict.fromkeys(player_ids) if pid]
        if not wanted:
            return {}
        marks = ", ".join("?" for _ in wanted)
        with self.db.read() as run:
            rows = run(
                f"SELECT player_id, name FROM players WHERE app = ? AND player_id IN ({marks})",
                (app, *wanted),
            ).fetchall()
        return dict(rows)

    def leaderboard(
        self,
        app: str,
        offset: int,
        count: int,
        pool: Pool = DEFAULT_POOL,
        rules: PairRules = DOCUMENTED_PAIR_RULES,
    ) -> list[tuple[int, Player]]:
        """The app's players on ``pool``'s board by their rating there, best first: (rank,
        player) from ``offset``. Each write judged its players by its ``rules`` (and the
        migration to pools by the documented ones), so the read needs them not."""
        columns = ", ".join(f"p.{c.strip()}" for c in _PLAYER.split(","))
        with self.db.read() as run:
            rows = run(
                f"SELECT {columns} FROM player_ratings r JOIN players p "
                "ON p.player_id = r.player_id AND p.app = r.app "
                "WHERE r.app = ? AND r.pool = ? AND r.on_board = 1 "
                "ORDER BY r.rating DESC, r.player_id DESC LIMIT ? OFFSET ?",
                (app, pool.name, count, offset),
            ).fetchall()
            found = _players(run, rows)
        return [(offset + rank + 1, player) for rank, player in enumerate(found)]

    def history(
        self, app: str, player_id: str, count: int, pool: Pool | None = None
    ) -> list[dict[str, object]]:
        """The player's last ``count`` rating changes (in ``pool``; None: every pool),
        newest first."""
        where, args = _in_pool(pool)
        with self.db.read() as run:
            rows = run(
                f"SELECT entry FROM rating_changes WHERE player_id = ? AND app = ?{where} "
                "ORDER BY at_ms DESC, game_id DESC LIMIT ?",
                (player_id, app, *args, count),
            ).fetchall()
        return [json.loads(entry) for (entry,) in rows]

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
        first, by keyset: a page costs the same however deep it is."""
        where, args = _older("at_ms", after)
        in_pool, pool_args = _in_pool(pool)
        with self.db.read() as run:
            rows = run(
                f"SELECT entry FROM rating_changes WHERE player_id = ? AND app = ?{in_pool}"
                f"{where} ORDER BY at_ms DESC, game_id DESC LIMIT ?",
                (player_id, app, *pool_args, *args, count),
            ).fetchall()
        return [json.loads(entry) for (entry,) in rows]

    # -- games ---------------------------------------------------------------------
    def played(self, app: str, player_ids: Iterable[str], game_id: str, started_ms: int) -> None:
        """Add a game to each player's list (once: a game listed already stays as it is)."""
        with self.db.write() as run:
            for player_id in player_ids:
                run(
                    "INSERT INTO player_games (player_id, game_id, app, started_ms) "
                    "VALUES (?, ?, ?, ?) ON CONFLICT (player_id, game_id) DO NOTHING",
                    (player_id, game_id, app, started_ms),
                )

    def games(self, app: str, player_id: str, before_ms: int | None, count: int) -> list[str]:
        """The player's games, newest first, started before ``before_ms`` (default: any)."""
        with self.db.read() as run:
            rows = run(
                "SELECT game_id FROM player_games WHERE player_id = ? AND app = ? "
                "AND started_ms < ? ORDER BY started_ms DESC, game_id DESC LIMIT ?",
                (player_id, app, 2**62 if before_ms is None else before_ms, count),
            ).fetchall()
        return [game_id for (game_id,) in rows]

    def games_page(
        self, app: str, player_id: str, after: Listed | None, count: int
    ) -> list[Listed]:
        """Up to ``count`` of the player's games older than ``after`` (None: the newest),
        newest first by (start, game id), by keyset."""
        where, args = _older("started_ms", after)
        with self.db.read() as run:
            rows = run(
                f"SELECT game_id, started_ms FROM player_games WHERE player_id = ? AND app = ?"
                f"{where} ORDER BY started_ms DESC, game_id DESC LIMIT ?",
                (player_id, app, *args, count),
            ).fetchall()
        return [Listed(game_id, int(started)) for game_id, started in rows]

    def started(self, app: str, player_id: str, game_ids: Sequence[str]) -> dict[str, int]:
        """When each of the player's listed games started (ms)."""
        if not game_ids:
            return {}
        marks = ", ".join("?" for _ in game_ids)
        with self.db.read() as run:
            rows = run(
                "SELECT game_id, started_ms FROM player_games WHERE player_id = ? AND app = ? "
                f"AND game_id IN ({marks})",
                (player_id, app, *game_ids),
            ).fetchall()
        found = {game_id: int(started) for game_id, started in rows}
        return {game_id: found.get(game_id, 0) for game_id in game_ids}

    # -- ratings -------------------------------------------------------------------
    def rated(self, app: str, game_id: str) -> bool:
        """Whether the game's ratings were written (or it was marked past its pair's count)."""
        with self.db.read() as run:
            row = run("SELECT 1 FROM rated_games WHERE game_id = ?", (game_id,))
            return row.fetchone() is not None

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
        now = int(time.time() * 1000)
        pair_key = None if pair is None else " ".join(sorted(pair))
        try:
            with self.db.write() as run:
                run.lock(f"rated:{game_id}")
                if pair_key is not None:
                    run.lock(f"pair:{app}:{pair_key}")
                if run("SELECT 1 FROM rated_games WHERE game_id = ?", (game_id,)).fetchone():
                    return 0
                for change in changes:
                    if _games(run, app, change.player, pool) != change.games_before:
                        raise _Moved()
                mark = "INSERT INTO rated_games (game_id, app, at_ms, pair, counted) VALUES (?, ?, ?, ?, ?)"
                if pair_key is not None:
                    (counted,) = run(
                        "SELECT count(*) FROM rated_games WHERE app = ? AND pair = ? "
                        "AND counted = 1 AND at_ms > ?",
                        (app, pair_key, now - rules.window_seconds * 1000),
                    ).fetchone()
                    if counted >= rules.games:
                        run(mark, (game_id, app, now, pair_key, 0))
                        return 2
                run(mark, (game_id, app, now, pair_key, 1))
                at = _after_last(run, app, changes, now)
                for change in changes:
                    rated = change.rated
                    games = change.games_before + 1
                    on_board = games >= rules.board_games and (
                        rated.deviation <= rules.board_deviation
                    )
                    values = (rated.rating, rated.deviation, rated.volatility, games,
                              int(on_board))  # fmt: skip
                    if change.games_before == 0:  # its first rated game in the pool
                        moved = run(
                            "INSERT INTO player_ratings (rating, deviation, volatility, games, "
                            "on_board, player_id, app, pool) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                            "ON CONFLICT (player_id, pool) DO NOTHING",
                            (*values, change.player, app, pool.name),
                        ).rowcount
                    else:
                        moved = run(
                            "UPDATE player_ratings SET rating = ?, deviation = ?, "
                            "volatility = ?, games = ?, on_board = ? "
                            "WHERE player_id = ? AND app = ? AND pool = ? AND games = ?",
                            (*values, change.player, app, pool.name, change.games_before),
                        ).rowcount
                    if moved != 1:
                        raise _Moved()
                    run(
                        "INSERT INTO rating_changes (game_id, player_id, app, at_ms, pool, "
                        "entry) VALUES (?, ?, ?, ?, ?, ?)",
                        (game_id, change.player, app, at, pool.name,
                         json.dumps({**change.entry, "at": at}, separators=(",", ":"))),
                    )  # fmt: skip
        except _Moved:
            return -1
        except Duplicate:  # another writer of this game committed first
            return 0
        return 1

    # -- erasing -------------------------------------------------------------------
    def revoke(self, app: str, player_id: str) -> None:
        """The player's token stops working now (the first step of its erasure): the
        column keeps a random value no token's SHA-256 can be."""
        with self.db.write() as run:
            run(
                "UPDATE players SET token_sha256 = ? WHERE player_id = ? AND app = ?",
                ("revoked:" + secrets.token_hex(16), player_id, app),
            )

    def anonymise_ratings(
        self, app: str, player_id: str, games: Sequence[tuple[str, str | None]]
    ) -> None:
        """The erased player's opponents' history rows stop naming it, their numbers
        kept, and the games' pair marks (RX8) name it no more; ``games``: each game of
        the player and its opponent there."""
        named, anonymous = erased_opponent_texts(player_id)
        with self.db.write() as run:
            for game_id, _opponent in games:
                run(
                    "UPDATE rating_changes SET entry = replace(entry, ?, ?) "
                    "WHERE game_id = ? AND player_id <> ?",
                    (named, anonymous, game_id, player_id),
                )
                run(
                    "UPDATE rated_games SET pair = replace(pair, ?, ?) "
                    "WHERE game_id = ? AND app = ?",
                    (player_id, ERASED_OPPONENT, game_id, app),
                )

    def forget(self, app: str, player_id: str) -> bool:
        """Delete the player's row, its history and its games list (the last step of its
        erasure; the board is a query of the rows); False when the app has no such player."""
        with self.db.write() as run:
            for table in ("rating_changes", "player_games", "player_ratings"):
                run(f"DELETE FROM {table} WHERE player_id = ? AND app = ?", (player_id, app))
            return bool(
                run(
                    "DELETE FROM players WHERE player_id = ? AND app = ?", (player_id, app)
                ).rowcount
            )


def _after_last(run: Transaction, app: str, changes: Sequence[RatingChange], now: int) -> int:
    """The time (ms) a game's rating changes are written with: the time they were
    computed at, yet at least 1 ms after each of its players' newest change.

    A history is listed and paged by (time, game id), so the changes of one player
    must have distinct times in the order they were written: two workers may rate
    a player's games within one millisecond, and a worker's clock may stand behind
    another's. Read within the write: a player rated meanwhile fails the write's
    games check, so the newest change read is the one before this game's."""
    at = max((int(change.entry.get("at", now)) for change in changes), default=now)  # type: ignore[call-overload]
    for change in changes:
        (last,) = run(
            "SELECT max(at_ms) FROM rating_changes WHERE player_id = ? AND app = ?",
            (change.player, app),
        ).fetchone()
        if last is not None:
            at = max(at, int(last) + 1)
    return at


def _in_pool(pool: Pool | None) -> tuple[str, tuple[object, ...]]:
    """The condition "a change in ``pool``" (None: any pool)."""
    return ("", ()) if pool is None else (" AND pool = ?", (pool.name,))


def _older(column: str, after: Listed | None) -> tuple[str, tuple[object, ...]]:
    """The keyset condition "older than ``after``" on (``column``, game_id)."""
    if after is None:
        return "", ()
    return (
        f" AND ({column} < ? OR ({column} = ? AND game_id < ?))",
        (after.created_ms, after.created_ms, after.game_id),
    )


#: Either store of players: the API and the workers use them alike.
Players = PlayerStore | PlayerRecords


def _games(run: Transaction, app: str, player_id: str, pool: Pool) -> int | None:
    """The player's rated games in ``pool`` (0 before its first); None: no such player."""
    found = run(
        "SELECT games FROM player_ratings WHERE player_id = ? AND app = ? AND pool = ?",
        (player_id, app, pool.name),
    ).fetchone()
    if found is not None:
        return int(found[0])
    known = run("SELECT 1 FROM players WHERE player_id = ? AND app = ?", (player_id, app))
    return 0 if known.fetchone() is not None else None


def _players(run: Transaction, rows: Sequence[Sequence[Any]]) -> list[Player]:
    """The players of ``rows`` (``_PLAYER``'s columns), each with its rating in every pool
    it has played rated games in, read in the same transaction."""
    ids = [row[0] for row in rows]
    ratings: dict[str, dict[str, Rated]] = {pid: {} for pid in ids}
    if ids:
        marks = ", ".join("?" for _ in ids)
        for player_id, pool, rating, deviation, volatility, games in run(
            f"SELECT {_RATING} FROM player_ratings WHERE player_id IN ({marks})", tuple(ids)
        ).fetchall():
            ratings[player_id][pool] = Rated(
                float(rating), float(deviation), float(volatility), int(games)
            )
    return [
        Player(
            id=player_id,
            app=app,
            app_player_id=app_player_id,
            name=name,
            created=float(created),
            ratings=ratings[player_id],
        )
        for player_id, app, app_player_id, name, created in rows
    ]
