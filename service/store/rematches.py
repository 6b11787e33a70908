"""Rematch offers of finished games in Redis, beside each game's log.

An offer is no event (a finished game's log is closed, and moves to the
archive), so it is one string per game, under the game's own hash tag so that
it lives in the game's Redis Cluster slot and one script sees both:

- ``sch:{<id>}:rematch``  string: the offer, as ``service.game.rematch.Offer``
  writes it, for ``ttl_seconds`` after its last change (the archive's grace:
  about as long as the game itself stays in Redis)

It changes by compare-and-set only (``lua/rematch.lua``), and only while the
game's log is in Redis: a decline and an accept that race cannot both win,
and a game released to the archive takes no offer.
"""

from __future__ import annotations

from service.game.rematch_service import GameLeftStore, OfferMoved
from service.store.events import PREFIX, keys
from service.store.redis_clients import AnyRedis
from service.store.scripts import Script, lua_script

_SWAP = lua_script("rematch")
#: The shortest life of an offer (s): a server whose grace is 0 still keeps one a while.
MIN_TTL_SECONDS = 60


def rematch_key(game_id: str) -> str:
    return f"{PREFIX}:{{{game_id}}}:rematch"


class RematchOffers:
    """The offers' record of ``service.game.rematch_service.RematchOffers``, in Redis."""

    def __init__(self, client: AnyRedis, *, ttl_seconds: float):
        self.redis = client
        self.ttl_seconds = max(int(ttl_seconds), MIN_TTL_SECONDS)
        self._swap = Script(client, _SWAP)

    def read(self, game_id: str) -> str | None:
        raw = self.redis.get(rematch_key(game_id))
        return None if raw is None else raw.decode()

    def swap(self, game_id: str, expected: str | None, new: str) -> None:
        answer = self._swap(
            keys=[keys(game_id)["log"], rematch_key(game_id)],
            args=[expected or "", new, self.ttl_seconds],
        )
        status = answer[0].decode()
        if status == "gone":
            raise GameLeftStore(game_id)
        if status == "moved":
            raise OfferMoved(game_id)


__all__ = ["MIN_TTL_SECONDS", "RematchOffers", "rematch_key"]
