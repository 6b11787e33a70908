"""The names of the bot levels, weakest first, for the game and the layers above it.

Read from the one table of bots (``service.bots.registry.BOTS``): the request
schemas, the API and the workers name levels from here.
"""

from __future__ import annotations

from service.bots.registry import LEVELS

__all__ = ["LEVELS"]
