"""The engine decides: what happens, and the state it leads to, in one call.

A decision is the events to record and the state they fold to. Each event is
folded once (``events.fold``, the only way a state changes), and the state
that fold gives is the state the caller keeps and answers: nothing applies the
same events again on their way to the log. A rule an event breaks is raised by
that same fold (``IllegalActionError`` with its rule), so checking an action
and applying it are one step.

``decide`` is a player's action: check it, apply it, and when it ends a deal of
a game that goes on, deal the next deal (R10b, R10c: the game's dealer
alternates, and a finished game deals no more). The caller supplies the next
deck and its fairness nonce as functions, so nothing is shuffled unless a deal
starts. ``record`` folds events decided by the service (a new game, a seat
taken, an ending), and ``claim_timeout`` is RX3's claim with its time checked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from .actions import Action
from .cards import Card
from .endings import too_early
from .events import ActionTaken, ClockMoved, DealStarted, Event, TimeoutClaimed, fold
from .state import GameState


@dataclass(frozen=True, slots=True)
class Decision:
    """The events to append for one decision, and the state they lead to."""

    state: GameState
    events: tuple[Event, ...]


def record(state: GameState | None, events: Iterable[Event]) -> Decision:
    """``events`` folded over ``state`` (None: no game yet), each once.

    Raises the rules' error of the first event that does not fit.
    """
    decided = tuple(events)
    after = state
    for event in decided:
        after = fold(after, event)
    if after is None:
        raise ValueError("a decision records at least one event")
    return Decision(after, decided)


def decide(
    state: GameState,
    seat: int,
    action: Action,
    next_deck: Callable[[int], Sequence[Card]],
    nonce: Callable[[], str | None] = lambda: None,
    *,
    clock_level: str | None = None,
) -> Decision:
    """``seat`` takes ``action``; raises ``IllegalActionError`` (with its rule) if it may not.

    ``next_deck(number)`` gives the deck of deal ``number`` and ``nonce()`` its
    commitment's nonce; both are called only when the action ends a deal and
    the game goes on. With ``clock_level``, the action is the clock's, played by
    a bot of that level for the seat (``ClockMoved``).
    """
    taken = (
        ActionTaken(seat, action) if clock_level is None else ClockMoved(seat, action, clock_level)
    )
    after = fold(state, taken)
    events: list[Event] = [taken]
    if after.awaiting_deal:
        number = len(after.results) + 1
        dealt = DealStarted(number, after.next_dealer, tuple(next_deck(number)), nonce())
        after = fold(after, dealt)
        events.append(dealt)
    return Decision(after, tuple(events))


def claim_timeout(
    state: GameState, seat: int, *, waited_ms: int, timeout_seconds: float
) -> Decision:
    """RX3: ``seat``, waiting for its opponent, claims the game after the turn timeout.

    ``waited_ms`` is how long the turn has been the opponent's; below
    ``timeout_seconds`` the claim is refused (``turn_not_timed_out``).
    """
    claimed = record(state, (TimeoutClaimed(seat, waited_ms),))
    if waited_ms / 1000 < timeout_seconds:
        raise too_early(seat, waited_ms / 1000, timeout_seconds)
    return claimed
