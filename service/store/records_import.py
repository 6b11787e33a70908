"""What an older server kept in Redis alone, copied into the database of record once.

Before the database kept them, a server's client apps, players, their ratings,
rating history and games, and webhook endpoints lived in Redis only; a server
given a database reads them from there alone. ``import_from_redis`` copies
each of them from Redis's keys (``service.store.clients``, ``players``,
``webhooks``) into the tables, writing only rows that are not there yet, so
running it again, or on a server that already writes the database, changes
nothing and loses nothing. Every app's key, token and endpoint works as it
did; a rated game in the history keeps its mark, so it is not rated twice.
Redis had capped a player's history at its newest 200 and games at 500: what
it dropped is not there to copy. A history is copied in the order Redis kept
it, each change at least 1 ms after the one before, as the database writes them. Deliveries are not copied: they go in days.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import redis

from service.game.pools import DEFAULT_POOL, POOLS
from service.store.players import board_key, fields_of
from service.store.records_db import RecordsDatabase, Transaction
from service.store.webhooks import Endpoint

_CLIENTS = "sch:{clients}"


@dataclass(frozen=True, slots=True)
class Imported:
    """How many rows each table gained."""

    apps: int = 0
    players: int = 0
    rating_changes: int = 0
    player_games: int = 0
    webhook_endpoints: int = 0

    def to_dict(self) -> dict[str, int]:
        return {
            "apps": self.apps,
            "players": self.players,
            "rating_changes": self.rating_changes,
            "player_games": self.player_games,
            "webhook_endpoints": self.webhook_endpoints,
        }


def import_from_redis(client: redis.Redis, db: RecordsDatabase) -> Imported:
    """Copy every app Redis knows, with its players and endpoints, into ``db``."""
    counts = {key: 0 for key in Imported().to_dict()}
    for app_id, fingerprint in sorted(client.hgetall(f"{_CLIENTS}:ids").items()):
        app, key_hash = app_id.decode(), fingerprint.decode()
        record = {
            k.decode(): v.decode() for k, v in client.hgetall(f"{_CLIENTS}:key:{key_hash}").items()
        }
        with db.write() as run:
            if record:
                revoked_at = None
                if record.get("revoked") == "1":
                    revoked_at = float(record.get("revoked_at") or record["created"])
                counts["apps"] += run(
                    "INSERT INTO client_apps (client_id, name, key_sha256, created, revoked_at) "
                    "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                    (app, record["name"], key_hash, float(record["created"]), revoked_at),
                ).rowcount
            _players(client, run, app, counts)
            for text in client.hgetall(f"sch:{{client:{app}}}:webhooks").values():
                endpoint = Endpoint.from_json(text)
                counts["webhook_endpoints"] += run(
                    "INSERT INTO webhook_endpoints (endpoint_id, app, created, record) "
                    "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                    (endpoint.id, app, endpoint.created, endpoint.to_json()),
                ).rowcount
    return Imported(**counts)


def _players(client: redis.Redis, run: Transaction, app: str, counts: dict[str, int]) -> None:
    tag = f"sch:{{client:{app}}}"
    for player_id in (pid.decode() for pid in client.hvals(f"{tag}:players")):
        record = {
            k.decode(): v.decode() for k, v in client.hgetall(f"{tag}:player:{player_id}").items()
        }
        if not record or "token" not in record:
            continue
        counts["players"] += run(
            "INSERT INTO players (player_id, app, app_player_id, name, created, token_sha256) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (player_id, app, record["app_player_id"], record.get("name", ""),
             float(record["created"]), record["token"]),
        ).rowcount  # fmt: skip
        _ratings(client, run, app, player_id, record)
        last = None
        # Oldest first: each change at least 1 ms after the one before (``_in_order``).
        for text in reversed(client.lrange(f"{tag}:ratings:{player_id}", 0, -1)):
            entry, last = _in_order(json.loads(text), last)
            game_id, at = str(entry["game_id"]), last
            run(
                "INSERT INTO rated_games (game_id, app, at_ms, pair, counted) "
                "VALUES (?, ?, ?, NULL, 1) ON CONFLICT DO NOTHING",
                (game_id, app, at),
            )
            pool = str(entry.get("pool", DEFAULT_POOL.name))
            counts["rating_changes"] += run(
                "INSERT INTO rating_changes (game_id, player_id, app, at_ms, pool, entry) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (game_id, player_id, app, at, pool, json.dumps(entry, separators=(",", ":"))),
            ).rowcount
        for game_id, started in client.zrange(f"{tag}:played:{player_id}", 0, -1, withscores=True):
            counts["player_games"] += run(
                "INSERT INTO player_games (player_id, game_id, app, started_ms) "
                "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (player_id, game_id.decode(), app, int(started)),
            ).rowcount


def _ratings(
    client: redis.Redis, run: Transaction, app: str, player_id: str, record: dict[str, str]
) -> None:
    """The player's rating in each pool its Redis record holds (``PlayerStore``'s fields),
    on each pool's board as Redis had it."""
    for pool in POOLS:
        prefix = fields_of(pool)
        if prefix + "rating" not in record:
            continue
        on_board = client.zscore(board_key(app, pool), player_id) is not None
        run(
            "INSERT INTO player_ratings (player_id, app, pool, rating, deviation, volatility, "
            "games, on_board) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (player_id, app, pool.name, float(record[prefix + "rating"]),
             float(record[prefix + "deviation"]), float(record[prefix + "volatility"]),
             int(record[prefix + "games"]), int(on_board)),
        )  # fmt: skip


def _in_order(entry: dict[str, object], last: int | None) -> tuple[dict[str, object], int]:
    """A history entry, and its time (ms), at least 1 ms after ``last``, the time of the
    change written before it: a history is listed and paged by (time, game id), and an
    older server kept changes of one millisecond, or behind a slower clock, in the
    order it wrote them. The entry carries the time it is listed by, as a cursor does."""
    at = int(entry["at"])  # type: ignore[call-overload]
    if last is not None and at <= last:
        at = last + 1
    return {**entry, "at": at}, at


__all__ = ["Imported", "import_from_redis"]
