"""The low rungs of the ladder: a stronger bot that now and then plays a random legal action.

Deliberate noise is the knob that makes the beginner levels weaker by measured
steps (``benchmarks/ladder.py``) while they keep the rest of their play
sensible: a beginner still follows suit, claims at 66 and declares its
marriages most of the time, it just blunders more often. The blunder is
drawn from the decision's seed, so the same view and seed give the same
action.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from service.bots.base import Bot, Decision
from service.engine.knowledge import SeatView


class NoisyBot:
    """``inner``'s decision, except that with probability ``noise`` a random legal action."""

    def __init__(self, level: str, inner: Callable[[], Bot], noise: float) -> None:
        if not 0.0 <= noise <= 1.0:
            raise ValueError(f"noise is a probability, not {noise}")
        self.level = level
        self.noise = noise
        self._inner = inner()

    def choose(self, view: SeatView, *, seed: int = 0, budget_ms: int | None = None) -> Decision:
        legal = view.legal_actions()
        if not legal:
            raise ValueError(f"seat {view.seat} is not to move")
        rng = random.Random(f"noise:{seed}")
        if len(legal) > 1 and rng.random() < self.noise:
            return Decision(rng.choice(legal))
        return self._inner.choose(view, seed=seed, budget_ms=budget_ms)
