"""The names of the bot levels, weakest first, for the game and the layers above it,
and the one rule every request that names a level is held to.

Read from the one table of bots (``service.bots.registry.BOTS``): the request
schemas, the API and the workers name levels from here.
"""

from __future__ import annotations

from collections.abc import Collection

from service.bots.registry import LEVELS
from service.game.problem_codes import ProblemCode
from service.game.problems import InvalidRequest


def check_level(level: str | None, what: str, levels: Collection[str] = LEVELS) -> None:
    """Refuse a level the service does not offer (422 ``unknown_bot_level``, naming the
    offered ones): a game's opponent, any clock's bot (a game's, a seek's, a challenge's,
    a tournament's). The request schemas document the levels without enforcing them, so
    every caller gets this one answer, never a schema's generic one."""
    if level not in levels:
        offered = ", ".join(sorted(levels)) or "none yet"
        raise InvalidRequest(
            f"unknown {what} {level!r} (levels: {offered})",
            code=ProblemCode.UNKNOWN_BOT_LEVEL,
        )


__all__ = ["LEVELS", "check_level"]
