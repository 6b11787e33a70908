"""Which games each client app created: one sorted set per client, by creation time.

``GET /v1/games?client=me`` lists a client app's games newest first. The log
of a game lives in its own slot (``{<game_id>}``), so the index cannot be
written by the same script as the game: it is written just before the game's
first append. A create that fails after it leaves an id without a log, which
the listing skips; a game is never missing from its client's listing.

Redis key (hash tag per client, so one busy client does not load one slot):

- ``sch:{client:<client id>}:games``  a sorted set: game id, scored by its
  creation time in ms (ties ordered by game id)
"""

from __future__ import annotations

import redis

from service.game.log import Listed


def index_key(client_id: str) -> str:
    return f"sch:{{client:{client_id}}}:games"


class ClientGames:
    """The per-client index of created games in Redis (``service.game.log.GameListing``)."""

    def __init__(self, client: redis.Redis):
        self.redis = client

    def add(self, client_id: str, game_id: str, created_ms: int) -> None:
        """Index a new game; a retried create (same id) keeps its first time."""
        self.redis.zadd(index_key(client_id), {game_id: created_ms}, nx=True)

    def page(self, client_id: str, after: Listed | None, count: int) -> list[Listed]:
        """Up to ``count`` games older than ``after`` (default: the newest), newest first.

        Games of the same millisecond come in descending id order, so the
        cursor (time, id) splits them exactly.
        """
        top: str | int = "+inf" if after is None else after.created_ms
        found: list[Listed] = []
        offset = 0
        while len(found) < count:
            batch = self.redis.zrevrangebyscore(
                index_key(client_id), top, "-inf", start=offset, num=count, withscores=True
            )
            if not batch:
                break
            offset += len(batch)
            for member, score in batch:
                game_id = member.decode()
                tied = after is not None and int(score) == after.created_ms
                if tied and game_id >= after.game_id:
                    continue  # shown on an earlier page
                found.append(Listed(game_id, int(score)))
        return found[:count]
