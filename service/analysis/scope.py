"""Who may read which part of a game's analysis (R11: no hidden card on any read path).

A part is one seat's decisions in one deal. Of a finished game every part
is open to anyone, spectators too: once the game is over every deck is
public (R11d). During a game a seat may read only its own decisions of the
deals already finished (each made from its own view, which it saw); the
opponent's decisions would show the opponent's legal actions, and so its
cards, and the current deal is still being played, so both are refused. A
rated game is analysed only once it is over: the service's search gives no
help to either seat while it runs (RX5).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from service.engine.state import GameState
from service.game.problem_codes import ProblemCode
from service.game.problems import Conflict, Forbidden, Problem, Unauthorized

Part = tuple[int, int]  # (deal, seat)


@dataclass(frozen=True, slots=True)
class Scope:
    """The parts of one request, and what they cover."""

    parts: tuple[Part, ...]
    seats: tuple[int, ...]
    deals: tuple[int, ...]
    finished: bool


def dealt(state: GameState) -> int:
    """How many deals were dealt (the last one perhaps still running)."""
    return 0 if state.deal is None else state.deal.number


def scope(
    state: GameState,
    caller: int | None,
    *,
    seat: int | None = None,
    deals: Sequence[int] | None = None,
    rated: bool = False,
) -> Scope:
    """The parts the caller asked for (``seat``, ``deals``; None: all it may read), or a problem.
    ``rated``: the game is rated, so nothing of it is analysed while it runs (RX5)."""
    if caller is None and not state.over:  # who asks is known before what it asks for
        raise Unauthorized(
            "during a game only a seat reads its own analysis: send its token",
            code=ProblemCode.TOKEN_REQUIRED,
        )
    count = dealt(state)
    for number in deals or ():
        if not 1 <= number <= count:
            raise Problem(
                f"this game has no deal {number} (deals 1 to {count})",
                code=ProblemCode.UNKNOWN_DEAL,
            )
    if state.over:
        seats = (0, 1) if seat is None else (seat,)
        numbers = tuple(range(1, count + 1)) if deals is None else tuple(sorted(set(deals)))
        return _scope(seats, numbers, finished=True)
    assert caller is not None  # refused above
    if rated:
        raise Forbidden(
            "a rated game is analysed once it is over: the service's bots give no help "
            "while it runs (RX5)",
            code=ProblemCode.RATED_GAME_NO_HELP,
            extra={"rule": "RX5"},
        )
    if seat is not None and seat != caller:
        raise Problem(
            "the opponent's decisions are analysed only once the game is over",
            code=ProblemCode.ANALYSIS_NOT_ALLOWED,
        )
    finished_deals = len(state.results)
    if deals is None:
        numbers = tuple(range(1, finished_deals + 1))
        if not numbers:
            raise Conflict(
                "no deal of this game is finished yet", code=ProblemCode.DEAL_NOT_FINISHED
            )
    else:
        numbers = tuple(sorted(set(deals)))
        running = [n for n in numbers if n > finished_deals]
        if running:
            raise Conflict(
                f"deal {running[0]} is still being played: it is analysed once it is over",
                code=ProblemCode.DEAL_NOT_FINISHED,
            )
    return _scope((caller,), numbers, finished=False)


def _scope(seats: tuple[int, ...], deals: tuple[int, ...], *, finished: bool) -> Scope:
    parts = tuple((deal, seat) for deal in deals for seat in seats)
    return Scope(parts, seats, deals, finished)
