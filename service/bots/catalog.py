"""What a client may know about each bot level before it plays one.

Names, a line each, the think time a level takes, and its strength as
measured by ``benchmarks/ladder.py`` (a round robin of every level in
duplicate games to 7 game points; the figures of docs/performance.md):
its Elo (``random`` at 0) and its games against the next weaker level. A
level without a measured figure says so instead of showing a number nobody
measured. Each level's row is the bots' table's (``service.bots.registry``).
"""

from __future__ import annotations

from typing import Any

from service.bots.registry import BOTS, BotEntry, Strength

#: How the figures were measured (docs/performance.md, the ladder).
MEASURED_BY = "benchmarks/ladder.py --games 800 --far-games 80 --seed 2024 (docs/performance.md)"

#: What a client is told of a level: its row of the bots' table.
LevelInfo = BotEntry

#: The levels the service offers, weakest first (``service.bots.registry.BOTS``).
CATALOG: tuple[LevelInfo, ...] = tuple(bot for bot in BOTS if bot.offered)


def describe_levels(max_budget_ms: int, default_level: str) -> dict[str, Any]:
    """The answer of ``GET /v1/bot/levels``: every level, weakest first; ``max_budget_ms``
    is the server's cap on think time (searching levels only)."""
    levels = []
    for info in CATALOG:
        strength = info.strength
        levels.append(
            {
                "name": info.name,
                "description": info.description,
                "default_budget_ms": info.default_budget_ms,
                "max_budget_ms": max_budget_ms if info.searches else None,
                "strength": None
                if strength is None
                else {
                    "opponent": strength.opponent,
                    "games": strength.games,
                    "games_won": strength.games_won,
                    "interval_95": list(strength.interval_95),
                    "elo": strength.elo,
                    "elo_interval_95": list(strength.elo_interval_95),
                    "measured_by": MEASURED_BY,
                },
                "strength_note": info.strength_note,
            }
        )
    return {"levels": levels, "default_level": default_level}


__all__ = ["CATALOG", "MEASURED_BY", "LevelInfo", "Strength", "describe_levels"]
