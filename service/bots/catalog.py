"""What a client may know about each bot level before it plays one.

Names, a line each, the think time a level takes, and its strength as
measured by ``benchmarks/ladder.py`` (a round robin of every level in
duplicate games to 7 game points; the figures of docs/performance.md):
its Elo (``random`` at 0) and its games against the next weaker level. A
level without a measured figure says so instead of showing a number nobody
measured.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from service.bots import LEVELS
from service.bots.expert import DEFAULT_BUDGET_MS

#: How the figures were measured (docs/performance.md, the ladder).
MEASURED_BY = "benchmarks/ladder.py --games 800 --far-games 80 --seed 2024 (docs/performance.md)"


@dataclass(frozen=True, slots=True)
class Strength:
    """A level's place on the ladder: its Elo, and its games against the next weaker level."""

    #: Elo rating, ``random`` at 0, and its 95% interval.
    elo: float
    elo_interval_95: tuple[float, float]
    opponent: str
    games: int
    games_won: int
    #: 95% interval of the share of games won.
    interval_95: tuple[float, float]


@dataclass(frozen=True, slots=True)
class LevelInfo:
    name: str
    description: str
    #: Think time per move when none is given; None: the level does not search.
    default_budget_ms: int | None
    searches: bool
    strength: Strength | None
    strength_note: str | None = None


CATALOG: tuple[LevelInfo, ...] = (
    LevelInfo(
        "random",
        "Plays a uniformly random legal action: the ladder's anchor (Elo 0).",
        None,
        False,
        None,
        "the anchor of the ladder (Elo 0); not measured against a weaker level",
    ),
    LevelInfo(
        "beginner",
        "The heuristic's play, but a random legal action on half of its moves.",
        None,
        False,
        Strength(232.0, (205.0, 260.0), "random", 800, 629, (0.757, 0.813)),
    ),
    LevelInfo(
        "novice",
        "The heuristic's play, but a random legal action on 15% of its moves.",
        None,
        False,
        Strength(584.0, (547.0, 621.0), "beginner", 800, 701, (0.852, 0.897)),
    ),
    LevelInfo(
        "heuristic",
        "Rule-based club play (exact counting, exchanges, closes, marriages), with the "
        "last trick before the talon runs out and a closed talon searched exactly.",
        None,
        False,
        Strength(796.0, (755.0, 837.0), "novice", 800, 627, (0.754, 0.811)),
    ),
    LevelInfo(
        "expert",
        "Searches sampled deals consistent with what its seat knows, solving endgames "
        "exactly, within a think-time budget.",
        DEFAULT_BUDGET_MS,
        True,
        Strength(931.0, (888.0, 975.0), "heuristic", 800, 560, (0.667, 0.731)),
    ),
)

assert tuple(info.name for info in CATALOG) == LEVELS, "every level is described, in order"


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
