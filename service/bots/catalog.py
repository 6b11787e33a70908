"""What a client may know about each bot level before it plays one.

Names, a line each, the think time a level takes, and its strength as
measured by ``benchmarks/tournament.py`` (400 duplicate games to 7 game points,
seed 2024; the figures of README.md's Bots section). A level without a
measured figure says so instead of showing a number nobody measured.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from service.bots import LEVELS
from service.bots.expert import DEFAULT_BUDGET_MS

#: How the figures were measured (the README's Bots section).
MEASURED_BY = "benchmarks/tournament.py A B --games 400 --seed 2024 (README.md, Bots)"


@dataclass(frozen=True, slots=True)
class Strength:
    """A level's result against the next weaker one in duplicate games to 7."""

    opponent: str
    games: int
    games_won: int
    #: 95% interval of the share of games won.
    interval_95: tuple[float, float]
    net_game_points_per_deal: float


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
        "Plays a uniformly random legal action: the baseline.",
        None,
        False,
        None,
        "the baseline the ladder starts from; not measured against another level",
    ),
    LevelInfo(
        "heuristic",
        "Rule-based club play: counts points exactly to claim, exchanges, closes on sure "
        "tricks, declares marriages.",
        None,
        False,
        Strength("random", 400, 400, (0.990, 1.0), 2.254),
    ),
    LevelInfo(
        "expert",
        "Searches sampled deals consistent with what its seat knows, solving endgames "
        "exactly, within a think-time budget.",
        DEFAULT_BUDGET_MS,
        True,
        Strength("heuristic", 400, 349, (0.836, 0.902), 0.740),
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
                    "net_game_points_per_deal": strength.net_game_points_per_deal,
                    "measured_by": MEASURED_BY,
                },
                "strength_note": info.strength_note,
            }
        )
    return {"levels": levels, "default_level": default_level}
