"""How many connections each client address holds open to this server process.

A gevent server process holds ``SCHNAPSEN_WEB_CONNECTIONS`` connections; when
every one is taken, nobody else is even accepted, /healthz included. Without
a cap per address one client could take them all, by stalling request bodies
or simply by opening connections. With ``SCHNAPSEN_CONNECTIONS_PER_ADDRESS``
an address past its cap is refused at once (429, then the connection closes,
``service.serve.gunicorn_workers``) and costs the process no more than that.

The count is per process (a process knows only its own connections) and per
peer address: behind a proxy every peer is the proxy, so the worker applies
no cap there and the proxy caps its clients (``deploy/``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class ConnectionsPerAddress:
    """The open connections of each address, at most ``cap`` each (0: no cap).

    gevent runs one greenlet at a time in a process: no lock is needed.
    """

    cap: int
    open: Counter[str] = field(default_factory=Counter)

    def enter(self, address: str) -> bool:
        """Count a new connection from ``address``; False (not counted) past the cap."""
        if self.cap and self.open[address] >= self.cap:
            return False
        self.open[address] += 1
        return True

    def leave(self, address: str) -> None:
        """Forget a connection ``enter`` counted."""
        self.open[address] -= 1
        if self.open[address] <= 0:
            del self.open[address]
