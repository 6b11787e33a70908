"""Games' analyses in the database of record: made once, read for as long as the game.

An analysis costs a worker seconds of search for each decision and never
changes once made (only parts that can no longer change are analysed,
``service.store.analyses``), and a player reads it again days or months
later. Kept in Redis, each would hold memory for its whole life; with a
database (``SCHNAPSEN_ARCHIVE_URL``; the run command always has its SQLite
file) it is rows of ``game_analyses`` (``migrations/<dialect>/0007_...``), one
per (deal, seat) part, and Redis holds nothing of it. A part written twice
(two jobs of the same part at once) keeps the first: both are the same, the
analysis being a function of the game and the server's secret.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from service.store.analyses import Part, field_of, in_game_order
from service.store.records_db import RecordsDatabase


class AnalysisRecords:
    """The analyses of games' (deal, seat) parts, as rows (``service.store.analyses.Analyses``)."""

    def __init__(self, db: RecordsDatabase):
        self.db = db

    def _stored(self, game_id: str) -> dict[str, str]:
        with self.db.read() as run:
            rows = run("SELECT part, records FROM game_analyses WHERE game_id = ?", (game_id,))
            return {part: records for part, records in rows.fetchall()}

    def missing(self, game_id: str, parts: Iterable[Part]) -> list[Part]:
        """The parts not analysed yet, in the order given."""
        wanted = list(parts)
        if not wanted:
            return []
        stored = self._stored(game_id)
        return [part for part in wanted if field_of(part) not in stored]

    def save(self, game_id: str, part: Part, records: list[dict[str, Any]]) -> None:
        with self.db.write() as run:
            run(
                "INSERT INTO game_analyses (game_id, part, records) VALUES (?, ?, ?) "
                "ON CONFLICT (game_id, part) DO NOTHING",
                (game_id, field_of(part), json.dumps(records, separators=(",", ":"))),
            )

    def load(self, game_id: str, parts: Iterable[Part]) -> list[dict[str, Any]] | None:
        """Every record of ``parts`` in game order; None when any part is not analysed."""
        wanted = list(parts)
        if not wanted:
            return []
        stored = self._stored(game_id)
        if any(field_of(part) not in stored for part in wanted):
            return None
        return in_game_order(stored[field_of(part)] for part in wanted)


__all__ = ["AnalysisRecords"]
