"""Games that end by a seat's decision, not by their deals (docs/rules.md, RX1-RX3).

The card game ends only when a seat reaches 0 game points (R10b). A
service also needs a game to end when a player gives up, when a game is
called off before it really started, and when a player walks away. These
rules extend R10 and are numbered RX1-RX3:

- RX1 resign: either seat, while both seats are taken and the game runs. The
  opponent wins the game: its game points become 0 (R10b then names it the
  winner); the resigner keeps its game points, which measure the margin as
  in a lost match. The running deal ends without a result and scores nothing.
- RX2 abort: before any player action of the game (or while seat 1 is still
  empty) the game is called off: nobody wins, game points stay as they were.
- RX3 timeout: the seat that is not to move may claim the game once the seat
  to move has let the turn timeout pass; it is scored as if the seat to move
  had resigned (RX1).

The engine has no clock: the caller measures how long the turn has waited
(from the log) and passes it in; a replay of a recorded claim never re-checks
the time, so a stored log replays the same forever.
"""

from __future__ import annotations

from .errors import ErrorCode, IllegalActionError
from .game import game_over
from .state import GameEnd, GameEndReason, GameState


def resign(state: GameState, seat: int) -> GameState:
    """RX1: ``seat`` gives up; its opponent wins the game."""
    _check_running(state, seat, "RX1")
    return _won_by(state, 1 - seat, GameEnd(GameEndReason.RESIGNED, seat))


def abort(state: GameState, seat: int) -> GameState:
    """RX2: ``seat`` calls the game off before its first action; nobody wins."""
    _check_seat(seat)
    if state.over:
        raise game_over(state)
    if not state.seated[seat]:
        raise IllegalActionError(
            f"seat {seat} is not taken", code=ErrorCode.ABORT_NOT_ALLOWED, rule="RX2", seat=seat
        )
    if not untouched(state):
        raise IllegalActionError(
            "a game is aborted only before its first action; resign instead",
            code=ErrorCode.ABORT_NOT_ALLOWED,
            rule="RX2",
            seat=seat,
        )
    return state._replace(ending=GameEnd(GameEndReason.ABORTED, seat))


def claim_timeout(
    state: GameState, seat: int, *, waited_seconds: float, timeout_seconds: float
) -> GameState:
    """RX3: ``seat``, waiting for its opponent, claims the game after the turn timeout.

    ``waited_seconds`` is how long the turn has been the opponent's (the
    time since the log's last event); below ``timeout_seconds`` it is refused.
    """
    _check_waiting_side(state, seat)
    if waited_seconds < timeout_seconds:
        raise too_early(seat, waited_seconds, timeout_seconds)
    return timed_out(state, seat)


def too_early(seat: int, waited_seconds: float, timeout_seconds: float) -> IllegalActionError:
    """RX3's refusal of a claim made before the turn timeout."""
    return IllegalActionError(
        f"seat {1 - seat} has had the turn for {waited_seconds:.1f} s of the "
        f"{timeout_seconds:g} s it may take",
        code=ErrorCode.TURN_NOT_TIMED_OUT,
        rule="RX3",
        seat=seat,
    )


def timed_out(state: GameState, seat: int) -> GameState:
    """RX3 as recorded in the log: ``seat`` won on time (the time was checked when claimed)."""
    _check_waiting_side(state, seat)
    return _won_by(state, seat, GameEnd(GameEndReason.TIMED_OUT, seat))


def untouched(state: GameState) -> bool:
    """No player action yet in the whole game: the first deal as it was dealt."""
    deal = state.deal
    if state.results:
        return False
    return deal is None or (
        deal.lead_card is None
        and not deal.tricks
        and deal.exchanged_by is None
        and deal.closed_by is None
        and not deal.marriages
    )


def _check_waiting_side(state: GameState, seat: int) -> None:
    _check_running(state, seat, "RX3")
    if state.to_move == seat:
        raise IllegalActionError(
            "it is your turn: only the seat waiting for the other may claim a timeout",
            code=ErrorCode.NOT_WAITING,
            rule="RX3",
            seat=seat,
        )


def _check_running(state: GameState, seat: int, rule: str) -> None:
    _check_seat(seat)
    if state.over:
        raise game_over(state)
    if not (state.seated[0] and state.seated[1]):
        raise IllegalActionError(
            "the game waits for its second player; abort it instead",
            code=ErrorCode.GAME_WAITING,
            rule=rule,
            seat=seat,
        )


def _check_seat(seat: int) -> None:
    if seat not in (0, 1):
        raise ValueError(f"seat must be 0 or 1, not {seat!r}")


def _won_by(state: GameState, winner: int, ending: GameEnd) -> GameState:
    points = list(state.game_points)
    points[winner] = 0
    return state._replace(game_points=(points[0], points[1]), ending=ending)
