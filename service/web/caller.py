"""A request's caller, as a value: who the idempotency records, rate limits and waiting
shares are scoped to.

``service.web.callers`` resolves it from a request; the modules that only read it
(the waiting shares, the limits) import it from here, below the services that
resolving needs.
"""

from __future__ import annotations

from dataclasses import dataclass

from service.game.players import Player
from service.store.clients import ClientApp


@dataclass(frozen=True, slots=True)
class Caller:
    """A request's caller: a client app (itself, or one of its players), or an anonymous
    client address."""

    address: str
    client: ClientApp | None = None
    #: The app's player whose token the request carries (``service.store.players``).
    player: Player | None = None

    @property
    def scope(self) -> str:
        """The caller's name for idempotency records and limits (a player's own, within
        its app: two players' same key are two requests)."""
        if self.player is not None:
            return f"player:{self.player.app}:{self.player.id}"
        return f"client:{self.client.id}" if self.client else f"address:{self.address}"


__all__ = ["Caller"]
