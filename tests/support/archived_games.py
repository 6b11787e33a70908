"""Client apps' games in each place a game passes through on its way to the archive.

A game is in Redis while it is played; once it has ended, the archiving job
writes its row (``GameArchiver.archive_game``) and Redis keeps it for its
grace period; then Redis forgets it (``GameArchiver.release``, what the
sweep does once the grace is over) and the archive alone holds it. Reads
answer the same from each place, and a client's listing and export must list
each game exactly once wherever it is, so the tests here put games in every
place on purpose, through the app's HTTP API and an archiver on the app's
own Redis and archive, as the workers would move them.

The archiver is driven game by game (``release``, not ``sweep``): the tests'
Redis is shared by the whole session, and a sweep would move other tests'
games too.
"""

from __future__ import annotations

import enum
import json
import random
from dataclasses import dataclass
from typing import Any

import redis

from service.game.log import Listed
from service.store.archive import Archive
from service.store.archiving import GameArchiver
from service.store.client_games import index_key
from service.store.clients import ClientRegistry
from service.store.events import keys
from tests.support.games import Game, play_random_game
from tests.support.http import Api, auth, ok

#: Settings of an app whose games move to an archive: Redis forgets them at once when
#: released (a grace period of 0; the tests choose when by calling ``release``).
ARCHIVE_GRACE_SECONDS = 0


class Place(enum.Enum):
    """Where a game is, and what it is there."""

    WAITING = "waiting"  # in Redis: seat 1 has not joined
    ACTIVE = "active"  # in Redis: being played (against a bot, whose move waits)
    ENDED = "ended"  # in Redis: finished, not archived yet
    GRACE = "grace"  # finished, archived, and still in Redis for its grace period
    ARCHIVED = "archived"  # finished, and in the archive alone

    @property
    def status(self) -> str:
        return {Place.WAITING: "waiting", Place.ACTIVE: "active"}.get(self, "finished")

    @property
    def archived(self) -> bool:
        return self in (Place.GRACE, Place.ARCHIVED)


@dataclass(frozen=True)
class ClientKey:
    """A registered client app: its id (the archive's ``client_id``) and its key."""

    id: str
    key: str

    @property
    def headers(self) -> dict[str, str]:
        return {"X-Client-Key": self.key}


@dataclass(frozen=True)
class PlacedGame:
    """A game a test made, where it put it, and when its client's index says it began."""

    game_id: str
    created_ms: int
    place: Place
    variant: str

    @property
    def status(self) -> str:
        return self.place.status

    @property
    def cursor(self) -> str:
        """The listing's cursor that stops at this game."""
        return Listed(self.game_id, self.created_ms).encode()


def newest_first(games: list[PlacedGame]) -> list[str]:
    """The ids of ``games`` in the order listings and exports give them."""
    ordered = sorted(games, key=lambda g: (g.created_ms, g.game_id.encode()), reverse=True)
    return [game.game_id for game in ordered]


class ArchivingApp:
    """An app with an archive, its test client, and the archiver that moves its games."""

    def __init__(self, api: Api, client: redis.Redis, archive: Archive):
        self.api = api
        self.redis = client
        self.archive = archive
        self.archiver = GameArchiver(client, archive, grace_seconds=ARCHIVE_GRACE_SECONDS)
        self.rng = random.Random(7)

    def new_client(self, name: str) -> ClientKey:
        app, key = ClientRegistry(self.redis).create(name)
        return ClientKey(app.id, key)

    def in_redis(self, game_id: str) -> bool:
        return bool(self.redis.exists(keys(game_id)["log"]))

    def place(
        self,
        client: ClientKey | None,
        place: Place,
        *,
        variant: str = "head",
        played_out: bool = False,
    ) -> PlacedGame:
        """A new game of ``client`` (None: anonymous) put in ``place``.

        Finished games are resigned against a bot, or with ``played_out``
        played to the end by two people choosing at random.
        """
        headers = client.headers if client else {}
        people = place is Place.WAITING or played_out
        opponent = {"type": "human"} if people else {"type": "bot", "level": "random"}
        body = {"variant": variant, "opponent": opponent}
        created = ok(self.api.post("/v1/games", json_body=body, headers=headers), 201)
        game_id = created["game_id"]
        listed = self.redis.zscore(index_key(client.id), game_id) if client else None
        created_ms = int(listed) if listed is not None else -1
        if place.status == "finished":
            if played_out:
                invite = {"invite": created["invite"]}
                joined = ok(
                    self.api.post(f"/v1/games/{game_id}/join", json_body=invite), (200, 201)
                )
                game = Game(game_id, {0: created["token"], 1: joined["token"]})
                play_random_game(self.api, game, self.rng)
            else:
                ok(self.api.post(f"/v1/games/{game_id}/resign", headers=auth(created["token"])))
        if place.archived:
            assert self.archiver.archive_game(game_id) is not None, game_id
        if place is Place.ARCHIVED:
            assert self.archiver.release(game_id), game_id
        assert self.in_redis(game_id) == (place is not Place.ARCHIVED), (game_id, place)
        assert (self.archive.get(game_id) is not None) == place.archived, (game_id, place)
        return PlacedGame(game_id, created_ms, place, variant)

    def listing(self, client: ClientKey, query: str = "") -> dict[str, Any]:
        return ok(self.api.get(f"/v1/games?client=me{query}", headers=client.headers))

    def every_page(
        self, client: ClientKey, query: str = "", *, cursor: str | None = None
    ) -> list[str]:
        """The ids of every page of the client's listing (from ``cursor``, else the
        first page), following ``next_cursor``."""
        found: list[str] = []
        for _ in range(500):
            page = self.listing(client, query + (f"&cursor={cursor}" if cursor else ""))
            found += [game["game_id"] for game in page["games"]]
            cursor = page["next_cursor"]
            if cursor is None:
                return found
        raise AssertionError("the pages never ended")

    def export(self, client: ClientKey, query: str = "") -> list[dict[str, Any]]:
        """Every line of the client's export, parsed; asserts the answer is NDJSON."""
        reply = self.api.get(f"/v1/games/export?client=me{query}", headers=client.headers)
        assert reply.status == 200, reply
        assert reply.content_type == "application/x-ndjson", reply
        assert reply.text == "" or reply.text.endswith("\n"), reply
        lines = [json.loads(text) for text in reply.text.splitlines()]
        assert all(isinstance(line, dict) for line in lines), reply
        return lines


__all__ = [
    "ARCHIVE_GRACE_SECONDS",
    "ArchivingApp",
    "ClientKey",
    "Place",
    "PlacedGame",
    "newest_first",
]
