"""Letting a long-poll or an SSE stream wait: the caller's share, the game's, the process's.

A waiting request takes, in this order, a slot of its caller's share (an
anonymous address: ``SCHNAPSEN_MAX_WAITING_PER_ADDRESS``; a client app, by its
key: ``SCHNAPSEN_MAX_WAITING_PER_CLIENT``), one of its game's
(``SCHNAPSEN_MAX_WAITING_PER_GAME``) and one of the process's
(``SCHNAPSEN_MAX_WAITING``). Refused:

- past the caller's share, 429 ``too_many_waiting_from_caller``: that caller
  waits enough already, and must end a wait before it starts another;
- past the game's, 503 ``too_many_waiting_on_game``, and past the process's,
  503 ``too_many_waiting``: the server is busy, not the caller at fault.

Every answer is problem+json with ``Retry-After``; nothing is held after a
refusal. The counts are per server process (``service.live.shares`` says why).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from service.game.problem_codes import ProblemCode
from service.game.problems import Problem
from service.live.shares import Shares
from service.live.watcher import WaitingSlots
from service.ops.metrics import WAITING_REQUESTS
from service.ops.settings import Settings
from service.web.caller import Caller

#: Seconds a caller past its share is asked to wait: its own waits must end first.
CALLER_RETRY_SECONDS = 5
#: Seconds a refused waiter is asked to wait when the game or the process is full.
BUSY_RETRY_SECONDS = 2


@dataclass(frozen=True, slots=True)
class WaitingAdmission:
    """The waiting slots of one server process and their shares."""

    slots: WaitingSlots
    per_address: Shares
    per_client: Shares
    per_game: Shares

    @classmethod
    def from_settings(cls, settings: Settings) -> WaitingAdmission:
        return cls(
            WaitingSlots(settings.max_waiting),
            Shares(settings.max_waiting_per_address),
            Shares(settings.max_waiting_per_client),
            Shares(settings.max_waiting_per_game),
        )

    def admit(self, caller: Caller, game_id: str) -> Callable[[], None]:
        """Take a slot for ``caller``'s wait on ``game_id``, or raise the refusal (429/503);
        returns the slot's release (call it once, when the wait is over)."""
        share, who = (
            (self.per_client, caller.client.id)
            if caller.client
            else (self.per_address, caller.address)
        )
        if not share.take(who):
            raise Problem(
                f"this caller holds {share.size} waiting requests (long-polls and streams) on "
                "this server, its share; end one first, or poll without wait",
                code=ProblemCode.TOO_MANY_WAITING_FROM_CALLER,
                headers={"Retry-After": str(CALLER_RETRY_SECONDS)},
            )
        if not self.per_game.take(game_id):
            share.give_back(who)
            raise Problem(
                f"this game has {self.per_game.size} waiting requests on this server, as many "
                "as it may; retry shortly, or poll without wait",
                code=ProblemCode.TOO_MANY_WAITING_ON_GAME,
                headers={"Retry-After": str(BUSY_RETRY_SECONDS)},
            )
        if not self.slots.take():
            self.per_game.give_back(game_id)
            share.give_back(who)
            raise Problem(
                "this server holds as many waiting requests as it may; retry shortly, "
                "or poll without wait",
                code=ProblemCode.TOO_MANY_WAITING,
                headers={"Retry-After": str(BUSY_RETRY_SECONDS)},
            )
        WAITING_REQUESTS.inc()

        def release() -> None:
            WAITING_REQUESTS.dec()
            self.slots.give_back()
            self.per_game.give_back(game_id)
            share.give_back(who)

        return release
