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
playout policy), ``master`` (the expert's search with a learned value,
``master.py``) and ``inferring`` (the expert's search, its sampled deals weighed
by how likely the opponent's past play was in each: ``inferring.py``,
``inference.py``), which are not levels the service offers.
Search runs on the engine's search core (``service.engine.core``): the same rules on bit masks.
Every bot is one row of ``service.bots.registry.BOTS``.
"""

from __future__ import annotations

from service.bots.base import Bot, Decision
from service.bots.registry import BEGINNER_NOISE, BOT_NAMES, LEVELS, NOVICE_NOISE, get_bot

__all__ = ["BEGINNER_NOISE", "BOT_NAMES", "LEVELS", "NOVICE_NOISE", "Bot", "Decision", "get_bot"]
