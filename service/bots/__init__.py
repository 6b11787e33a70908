"""Bot players by level. They import the engine only and see one seat's view.

``get_bot(level)`` returns a bot; ``LEVELS`` lists the level names.
"""

from __future__ import annotations

from collections.abc import Callable

from service.bots.base import Bot, Decision
from service.bots.random_bot import RandomBot

_FACTORIES: dict[str, Callable[[], Bot]] = {
    "random": RandomBot,
}

LEVELS: tuple[str, ...] = tuple(_FACTORIES)


def get_bot(level: str) -> Bot:
    """The bot of ``level``; raises ``KeyError`` naming the known levels."""
    try:
        return _FACTORIES[level]()
    except KeyError:
        raise KeyError(f"unknown bot level {level!r} (levels: {', '.join(LEVELS)})") from None


__all__ = ["LEVELS", "Bot", "Decision", "get_bot"]
