"""Games ended by a seat (docs/rules.md, RX1-RX3): the engine's side.

The engine decides and the log replays the same: each new event type round-trips
through its JSON form, folds to the same state from a snapshot or from the start,
and the four event types of schema 1 are read exactly as before.
"""

from __future__ import annotations

import pytest

from service.engine import (
    DECK,
    Aborted,
    ErrorCode,
    GameEndReason,
    IllegalActionError,
    Resigned,
    TimeoutClaimed,
    apply,
    event_from_dict,
    event_to_dict,
    legal_actions,
    new_game,
    replay,
    take_seat,
)
from service.engine.endings import abort, claim_timeout, resign
from service.engine.snapshot import state_from_dict, state_to_dict
from tests.engine.builders import game_events, play, start


def started():
    return start(DECK)  # seat 0 leads


def test_rx1_resign_gives_the_opponent_0_game_points_and_keeps_the_resigners():
    state = play(started(), "AC", "AD")  # a trick, then resign mid-deal
    ended = resign(state, 0)
    assert ended.winner == 1 and ended.game_points == (7, 0)
    assert ended.status == "finished" and ended.ending.reason is GameEndReason.RESIGNED
    assert legal_actions(ended) == [] and ended.to_move is None
    assert ended.results == state.results  # the running deal scores nothing
    with pytest.raises(IllegalActionError) as refused:
        apply(ended, legal_actions(state)[0], state.to_move)
    assert refused.value.code is ErrorCode.GAME_OVER


def test_rx1_no_resign_while_waiting_or_over():
    waiting = take_seat(new_game(), 0)
    with pytest.raises(IllegalActionError) as refused:
        resign(waiting, 0)
    assert refused.value.code is ErrorCode.GAME_WAITING
    with pytest.raises(IllegalActionError) as refused:
        resign(resign(started(), 1), 0)
    assert refused.value.code is ErrorCode.GAME_OVER


def test_rx2_abort_only_before_the_first_action():
    aborted = abort(started(), 1)
    assert aborted.status == "finished" and aborted.winner is None
    assert aborted.game_points == (7, 7) and legal_actions(aborted) == []
    assert abort(take_seat(new_game(), 0), 0).ending.reason is GameEndReason.ABORTED
    for moved in (play(started(), "AC"), play(started(), "close")):
        with pytest.raises(IllegalActionError) as refused:
            abort(moved, 0)
        assert refused.value.code is ErrorCode.ABORT_NOT_ALLOWED and refused.value.rule == "RX2"


def test_rx3_only_the_waiting_seat_claims_and_only_after_the_timeout():
    state = started()
    assert state.to_move == 0
    with pytest.raises(IllegalActionError) as refused:
        claim_timeout(state, 0, waited_seconds=99, timeout_seconds=1)
    assert refused.value.code is ErrorCode.NOT_WAITING
    with pytest.raises(IllegalActionError) as refused:
        claim_timeout(state, 1, waited_seconds=0.5, timeout_seconds=1)
    assert refused.value.code is ErrorCode.TURN_NOT_TIMED_OUT
    won = claim_timeout(state, 1, waited_seconds=1, timeout_seconds=1)
    assert won.winner == 1 and won.game_points == (7, 0)


@pytest.mark.parametrize(
    "ending", [Resigned(0), Aborted(1), TimeoutClaimed(1, 90_000)], ids=lambda e: e.type
)
def test_rx_events_round_trip_and_replay_the_same_from_a_snapshot(ending):
    events = game_events([DECK], [[]])
    assert event_from_dict(event_to_dict(ending)) == ending
    whole = replay([*events, ending])
    from_snapshot = replay([ending], state_from_dict(state_to_dict(replay(events))))
    assert whole == from_snapshot == state_from_dict(state_to_dict(whole))
    assert whole.status == "finished"


def test_schema_1_logs_still_read_as_before():
    stored = [event_to_dict(event) for event in game_events([DECK], [["AC", "AD"]])]
    assert {data["type"] for data in stored} == {
        "game_created",
        "seat_taken",
        "deal_started",
        "action_taken",
    }
    assert all(data["v"] == 1 for data in stored)
    assert replay(event_from_dict(data) for data in stored) == play(started(), "AC", "AD")
