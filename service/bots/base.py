"""What every bot is: a function of one seat's view to a decision."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from service.engine.actions import Action
from service.engine.knowledge import SeatView


@dataclass(frozen=True, slots=True)
class Decision:
    """The chosen action and, where the level computes them, its value for every legal action.

    Values are in game points the bot's seat expects to win from this deal
    (negative: expects to lose), higher is better.
    """

    action: Action
    evaluations: tuple[tuple[Action, float], ...] | None = None


class Bot(Protocol):
    """A player of one level. ``choose`` sees the seat's view only, never the whole deal.

    The same view, seed and budget give the same decision.
    """

    level: str

    def choose(self, view: SeatView, *, seed: int = 0, budget_ms: int | None = None) -> Decision:
        """The action for the seat to move in ``view`` (which must be ``view.seat``)."""
        ...
