"""Bot players by level. They import the engine only and see one seat's view.

``get_bot(level)`` returns a bot; ``LEVELS`` is the ladder, weakest first: one
family, the heuristic's rules, with deliberate noise below it and search within
a think-time budget above it:

- ``random``: a uniformly random legal action (the ladder's anchor);
- ``beginner``: the heuristic, but a random legal action on half of its moves;
- ``novice``: the heuristic, but a random legal action on 15% of its moves;
- ``heuristic``: rule-based club play (``heuristic.py``): exact point counting
  for claims, trump jack exchange, closing on sure tricks, marriages,
  cheap leads and discards, taking tens with aces; the last trick before the
  talon runs out and the exhausted talon searched exactly;
- ``expert``: determinized search (``expert.py``): sampled deals consistent
  with the seat's knowledge (voids inferred from strict play), exact endgame
  solving (``solver.py``) once the talon is closed or exhausted, playouts of
  the classic policy while it is open, within a time budget per move.

``benchmarks/ladder.py`` measures the steps (Elo, docs/performance.md). The
benchmarks can also name ``classic`` (the heuristic as it was, the expert's
playout policy) and ``master`` (the expert's search with a learned value,
``master.py``), which are not levels the service offers.
Search runs on the engine's search core (``service.engine.core``): the same rules on bit masks.
"""

from __future__ import annotations

from collections.abc import Callable

from service.bots.base import Bot, Decision
from service.bots.classic import ClassicBot
from service.bots.expert import ExpertBot
from service.bots.heuristic import HeuristicBot
from service.bots.noisy import NoisyBot
from service.bots.random_bot import RandomBot

#: The ladder's knobs (``benchmarks/ladder.py`` measured the steps they make).
BEGINNER_NOISE = 0.50
NOVICE_NOISE = 0.15

_FACTORIES: dict[str, Callable[[], Bot]] = {
    "random": RandomBot,
    "beginner": lambda: NoisyBot("beginner", HeuristicBot, BEGINNER_NOISE),
    "novice": lambda: NoisyBot("novice", HeuristicBot, NOVICE_NOISE),
    "heuristic": HeuristicBot,
    "expert": ExpertBot,
}

LEVELS: tuple[str, ...] = tuple(_FACTORIES)


def _master() -> Bot:
    """``master``, imported only when asked for: its learned value loads numpy, which
    the levels the service offers never need."""
    from service.bots.master import MasterBot

    return MasterBot()


#: Bots the benchmarks can name but the service does not offer.
_BENCHMARK_ONLY: dict[str, Callable[[], Bot]] = {"classic": ClassicBot, "master": _master}
#: Every name ``get_bot`` knows: the levels, then the benchmark-only bots.
BOT_NAMES: tuple[str, ...] = LEVELS + tuple(_BENCHMARK_ONLY)


def get_bot(level: str) -> Bot:
    """The bot of ``level``; raises ``KeyError`` naming the known levels."""
    try:
        return {**_FACTORIES, **_BENCHMARK_ONLY}[level]()
    except KeyError:
        raise KeyError(f"unknown bot level {level!r} (levels: {', '.join(LEVELS)})") from None


__all__ = ["BOT_NAMES", "LEVELS", "Bot", "Decision", "get_bot"]
