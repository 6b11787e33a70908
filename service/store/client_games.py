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
from service.store.archive import Archive, ArchiveKey, ArchiveQuery
from service.store.sorted_pages import page_down


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
        return page_down(self.redis, index_key(client_id), after=after, count=count)


class ClientGamesWithArchive:
    """A client's games from its Redis index and from the archive, as one listing.

    Redis lists a game from its creation until Redis forgets it (its grace
    period after it was archived, ``service.store.archiving``); the archive
    lists it from its end on. Both are in the same order, newest first by
    (creation time, id), and a page asks each for the games after the same
    cursor, so merging the two pages (a game in both is shown once) gives the
    next games of the whole listing: keyset paging across both places.
    """

    def __init__(self, live: ClientGames, archive: Archive):
        self.live = live
        self.archive = archive

    def add(self, client_id: str, game_id: str, created_ms: int) -> None:
        self.live.add(client_id, game_id, created_ms)

    def page(self, client_id: str, after: Listed | None, count: int) -> list[Listed]:
        live = self.live.page(client_id, after, count)
        key = None if after is None else ArchiveKey(after.created_ms, after.game_id)
        archived = [
            Listed(record.game_id, record.created_ms)
            for record in self.archive.page(ArchiveQuery(client_id), key, count)
        ]
        merged = {listed.game_id: listed for listed in (*live, *archived)}
        newest_first = sorted(
            merged.values(), key=lambda g: (g.created_ms, g.game_id), reverse=True
        )
        return newest_first[:count]
