"""The ``random`` level: a uniformly random legal action."""

from __future__ import annotations

import random

from service.bots.base import Decision
from service.engine.knowledge import SeatView


class RandomBot:
    level = "random"

    def choose(self, view: SeatView, *, seed: int = 0, budget_ms: int | None = None) -> Decision:
        actions = view.legal_actions()
        if not actions:
            raise ValueError(f"seat {view.seat} is not to move")
        return Decision(random.Random(seed).choice(actions))
