"""A request's ``clock`` object as the game's time control (``service.game.clock``).

The create of a game, a seek, a challenge and a tournament take the same
``ClockSchema``; this is their one reading of it, and it holds the clock's bot level
to the rule a game's opponent is held to (``service.game.bot_levels.check_level``).
"""

from __future__ import annotations

from typing import Any

from service.game.bot_levels import check_level
from service.game.clock import InvalidTimeControl, OnTimeout, TimeControl
from service.game.problem_codes import ProblemCode
from service.game.problems import InvalidRequest


def time_control(body: dict[str, Any] | None) -> TimeControl | None:
    """The time control of a ``clock`` body (``ClockSchema`` has checked its bounds)."""
    if body is None:
        return None
    check_level(body["bot_level"], "clock's bot level")
    try:
        return TimeControl(
            body["seconds_per_move"],
            OnTimeout(body["on_timeout"]),
            body["bot_level"],
            body["bot_moves_limit"],
        )
    except InvalidTimeControl as error:
        raise InvalidRequest(str(error), code=ProblemCode.INVALID_REQUEST) from None


def clock_body(control: TimeControl | None) -> dict[str, Any] | None:
    """A time control as answers show it (None: no clock)."""
    return None if control is None else control.to_dict()
