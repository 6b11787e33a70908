"""Analysed decisions in Redis, by deal and seat, under the game's hash tag.

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
from typing import Any

import redis

from service.store.events import PREFIX

#: Analyses are kept this long (seconds) after their last write.
ANALYSIS_TTL = 30 * 24 * 3600

Part = tuple[int, int]  # (deal, seat)


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
        present = self.redis.hmget(analysis_key(game_id), [_field(p) for p in wanted])
        return [part for part, value in zip(wanted, present, strict=True) if value is None]

    def save(self, game_id: str, part: Part, records: list[dict[str, Any]]) -> None:
        key = analysis_key(game_id)
        with self.redis.pipeline() as pipe:
            pipe.hset(key, _field(part), json.dumps(records, separators=(",", ":")))
            pipe.expire(key, ANALYSIS_TTL)
            pipe.execute()

    def load(self, game_id: str, parts: Iterable[Part]) -> list[dict[str, Any]] | None:
        """Every record of ``parts`` in game order; None when any part is not analysed."""
        wanted = list(parts)
        if not wanted:
            return []
        raw = self.redis.hmget(analysis_key(game_id), [_field(p) for p in wanted])
        if any(value is None for value in raw):
            return None
        records = [record for value in raw for record in json.loads(value)]
        return sorted(records, key=lambda record: record["version"])


def _field(part: Part) -> str:
    return f"{part[0]}:{part[1]}"
