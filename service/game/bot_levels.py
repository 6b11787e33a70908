"""The names of the bot levels, weakest first: names only, no bot code.

The request schemas, the API and the workers name levels without loading a
bot's search; ``service.bots`` maps each name to its bot (a test keeps the
two the same).
"""

from __future__ import annotations

LEVELS: tuple[str, ...] = ("random", "beginner", "novice", "heuristic", "expert")
