"""How a waiting stream rides out a store that does not answer for a moment.

A Redis failover, or a restart, leaves the store unreachable for seconds. An
event stream that ended at the first failed read would make every client of
the process reconnect at once; one that waits a little and reads again from
where it was misses nothing (the log is the truth) and ends only if the store
stays away.
"""

from __future__ import annotations

import time

#: How long a stream waits for the store before it ends (a takeover here takes
#: ``cluster-node-timeout`` and an election: seconds).
STORE_OUTAGE_SECONDS = 30.0


class StoreOutage:
    """Pauses growing from ``first_pause`` to ``longest_pause`` while the store is away,
    for at most ``limit`` seconds since the first failure after the last success."""

    def __init__(
        self,
        limit: float = STORE_OUTAGE_SECONDS,
        first_pause: float = 0.1,
        longest_pause: float = 2.0,
    ) -> None:
        self.limit = limit
        self.first_pause = first_pause
        self.longest_pause = longest_pause
        self.since: float | None = None
        self.pause = first_pause

    def wait(self) -> bool:
        """After a failure: pause and return True, or False once the store has been away
        for ``limit`` seconds (give up)."""
        now = time.monotonic()
        if self.since is None:
            self.since = now
        left = self.since + self.limit - now
        if left <= 0:
            return False
        time.sleep(min(self.pause, left))
        self.pause = min(self.pause * 2, self.longest_pause)
        return True

    def over(self) -> None:
        """The store answered: the next failure starts a new outage."""
        self.since = None
        self.pause = self.first_pause
