"""Every bot, in one table (``BOTS``): a bot is added here and nowhere else.

A row says how the bot is made, whether the service offers it as a level
(``offered``; the others only the benchmarks name), and what a client is
told of it before it plays one (``GET /v1/bot/levels``): a line, the think
time it takes, and its strength as ``benchmarks/ladder.py`` measured it.
The levels (``LEVELS``, weakest first: the table's order), the catalog
(``service.bots.catalog``) and the names the benchmarks know (``BOT_NAMES``)
are read from it; CONTRIBUTING.md ("Adding a bot") walks through a new one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from service.bots.base import Bot
from service.bots.classic import ClassicBot
from service.bots.expert import DEFAULT_BUDGET_MS, ExpertBot
from service.bots.heuristic import HeuristicBot
from service.bots.noisy import NoisyBot
from service.bots.random_bot import RandomBot

#: The ladder's knobs (``benchmarks/ladder.py`` measured the steps they make).
BEGINNER_NOISE = 0.50
NOVICE_NOISE = 0.15


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
class BotEntry:
    """One bot of the table: its name, its maker, and what a client is told of it."""

    name: str
    #: A new bot of this name (its ``level`` is ``name``).
    make: Callable[[], Bot]
    description: str
    #: Think time per move when none is given; None: the bot does not search.
    default_budget_ms: int | None = None
    #: It searches within a think-time budget (and runs compiled with the search core:
    #: its module is in ``service.engine.native.NATIVE_MODULES``, a test checks).
    searches: bool = False
    strength: Strength | None = None
    strength_note: str | None = None
    #: False: a bot the benchmarks can name but the service does not offer.
    offered: bool = True


def _master() -> Bot:
    """``master``, imported only when asked for: its learned value loads numpy, which
    the levels the service offers never need."""
    from service.bots.master import MasterBot

    return MasterBot()


def _inferring() -> Bot:
    """``inferring``, imported only when asked for: its opponent model loads numpy."""
    from service.bots.inferring import InferringBot

    return InferringBot()


#: Every bot: the levels the service offers, weakest first, then the benchmarks' own.
BOTS: tuple[BotEntry, ...] = (
    BotEntry(
        "random",
        RandomBot,
        "Plays a uniformly random legal action: the ladder's anchor (Elo 0).",
        strength_note="the anchor of the ladder (Elo 0); not measured against a weaker level",
    ),
    BotEntry(
        "beginner",
        lambda: NoisyBot("beginner", HeuristicBot, BEGINNER_NOISE),
        "The heuristic's play, but a random legal action on half of its moves.",
        strength=Strength(232.0, (205.0, 260.0), "random", 800, 629, (0.757, 0.813)),
    ),
    BotEntry(
        "novice",
        lambda: NoisyBot("novice", HeuristicBot, NOVICE_NOISE),
        "The heuristic's play, but a random legal action on 15% of its moves.",
        strength=Strength(584.0, (547.0, 621.0), "beginner", 800, 701, (0.852, 0.897)),
    ),
    BotEntry(
        "heuristic",
        HeuristicBot,
        "Rule-based club play (exact counting, exchanges, closes, marriages), with the "
        "last trick before the talon runs out and a closed talon searched exactly.",
        strength=Strength(796.0, (755.0, 837.0), "novice", 800, 627, (0.754, 0.811)),
    ),
    BotEntry(
        "expert",
        ExpertBot,
        "Searches sampled deals consistent with what its seat knows, solving endgames "
        "exactly, within a think-time budget.",
        default_budget_ms=DEFAULT_BUDGET_MS,
        searches=True,
        strength=Strength(931.0, (888.0, 975.0), "heuristic", 800, 560, (0.667, 0.731)),
    ),
    BotEntry(
        "classic",
        ClassicBot,
        "The heuristic as it was: the expert's playout policy.",
        offered=False,
    ),
    BotEntry(
        "master",
        _master,
        "The expert's search with a learned value (docs/value-model.md).",
        searches=True,
        offered=False,
    ),
    BotEntry(
        "inferring",
        _inferring,
        "The expert's search, its sampled deals weighed by how likely the opponent's "
        "past play was in each (docs/opponent-model.md).",
        default_budget_ms=DEFAULT_BUDGET_MS,
        searches=True,
        offered=False,
    ),
)

#: The levels the service offers, weakest first.
LEVELS: tuple[str, ...] = tuple(bot.name for bot in BOTS if bot.offered)
#: Every name ``get_bot`` knows: the levels, then the benchmark-only bots.
BOT_NAMES: tuple[str, ...] = LEVELS + tuple(bot.name for bot in BOTS if not bot.offered)
_BY_NAME = {bot.name: bot for bot in BOTS}


def get_bot(level: str) -> Bot:
    """The bot of ``level``; raises ``KeyError`` naming the known levels."""
    try:
        entry = _BY_NAME[level]
    except KeyError:
        raise KeyError(f"unknown bot level {level!r} (levels: {', '.join(LEVELS)})") from None
    return entry.make()


__all__ = [
    "BEGINNER_NOISE",
    "BOTS",
    "BOT_NAMES",
    "LEVELS",
    "NOVICE_NOISE",
    "BotEntry",
    "Strength",
    "get_bot",
]
