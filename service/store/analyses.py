"""Analysed decisions by deal and seat: in Redis when there is no database of record.

With a database the analyses are rows there (``service.store.analysis_records``):
they are read for as long as the game, and Redis holds what is live. Without
one (no ``SCHNAPSEN_ARCHIVE_URL``, outside the run command) they are here:

One hash per game, ``sch:{<game_id>}:analysis`` (the game's hash tag, so it
lives on the game's Redis Cluster slot), one field per analysed (deal, seat):
``"<deal>:<seat>"`` -> the JSON list of that seat's decision records in that
deal. Only deals that can no longer change are analysed (a finished deal,
or every deal of a finished game), so a field once written is final: the
cache never needs invalidating.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, Protocol

import redis

from service.store.events import PREFIX

#: Analyses are kept this long (seconds) after their last write.
ANALYSIS_TTL = 30 * 24 * 3600

Part = tuple[int, int]  # (deal, seat)


class Analyses(Protocol):
    """Where analysed parts are kept: Redis (``AnalysisStore``) or the database."""

    def missing(self, game_id: str, parts: Iterable[Part]) -> list[Part]: ...

    def save(self, game_id: str, part: Part, records: list[dict[str, Any]]) -> None: ...

    def load(self, game_id: str, parts: Iterable[Part]) -> list[dict[str, Any]] | None: ...


def analysis_key(game_id: str) -> str:
    return f"{PREFIX}:{{{game_id}}}:analysis"


class AnalysisStore:
    """The cached analyses of games' (deal, seat) parts."""

    def __init__(self, client: redis.Redis):
        self.redis = client

    def missing(self, game_id: str, parts: Iterable[Part]) -> list[Part]:
        """The parts not analysed yet, in the order given."""
        wanted = list(parts)
        if not wanted:
            return []
        present = self.redis.hmget(analysis_key(game_id), [field_of(p) for p in wanted])
        return [part for part, value in zip(wanted, present, strict=True) if value is None]

    def save(self, game_id: str, part: Part, records: list[dict[str, Any]]) -> None:
        key = analysis_key(game_id)
        with self.redis.pipeline() as pipe:
            pipe.hset(key, field_of(part), json.dumps(records, separators=(",", ":")))
            pipe.expire(key, ANALYSIS_TTL)
            pipe.execute()

    def load(self, game_id: str, parts: Iterable[Part]) -> list[dict[str, Any]] | None:
        """Every record of ``parts`` in game order; None when any part is not analysed."""
        wanted = list(parts)
        if not wanted:
            return []
        raw = self.redis.hmget(analysis_key(game_id), [field_of(p) for p in wanted])
        if any(value is None for value in raw):
            return None
        return in_game_order(raw)


def field_of(part: Part) -> str:
    """A part's name where it is kept: ``"<deal>:<seat>"``."""
    return f"{part[0]}:{part[1]}"


def in_game_order(stored: Iterable[str | bytes]) -> list[dict[str, Any]]:
    """The records of stored parts (each a JSON list), as one list in game order."""
    records = [record for value in stored for record in json.loads(value)]
    return sorted(records, key=lambda record: record["version"])
