"""The clock's decision when a person's time is up, from the log alone (service.game.clock)."""

from __future__ import annotations

import random

import pytest

from service.engine import (
    ActionTaken,
    ClockMoved,
    DealStarted,
    Event,
    GameCreated,
    GameState,
    Resigned,
    SeatTaken,
    Variant,
    apply_event,
    decide,
    event_from_dict,
    event_to_dict,
    legal_actions,
    replay,
)
from service.engine.observation import observe_event
from service.game import dealing
from service.game.clock import (
    BotPlays,
    InvalidTimeControl,
    LosesOnTime,
    OnTimeout,
    TimeControl,
    bot_moves,
    reading,
    verdict,
)
from service.game.seats import Seats

BOT_CLOCK = TimeControl(5, OnTimeout.BOT, "random", bot_moves_limit=2)


def started(*, bot_opponent: bool = False) -> list[Event]:
    """A game of two seats, dealt, seat 0 not the dealer: seat 0 leads."""
    second = SeatTaken(1, "bot", "heuristic") if bot_opponent else SeatTaken(1, "human")
    return [
        GameCreated(Variant.HEAD, 1),
        SeatTaken(0, "human"),
        second,
        DealStarted(1, 1, dealing.seeded_deck(11, 1)),
    ]


def move(events: list[Event], *, on_time: str | None = None) -> GameState:
    """Append the first legal action of the seat to move (a bot's on time if ``on_time``)."""
    state = replay(events)
    seat = state.to_move
    assert seat is not None
    decided = decide(state, seat, legal_actions(state)[0], lambda n: dealing.seeded_deck(11, n))
    first, *rest = decided.events
    assert isinstance(first, ActionTaken)
    if on_time is not None:
        first = ClockMoved(first.seat, first.action, on_time)
    events.extend([first, *rest])
    return replay(events)


def test_a_persons_first_timeout_is_a_bot_move_of_the_clocks_level():
    assert verdict(started(), BOT_CLOCK) == BotPlays(0, "random")


def test_with_on_timeout_lose_the_first_timeout_loses_the_game_for_the_idle_seat():
    lose = TimeControl(5, OnTimeout.LOSE)
    due = verdict(started(), lose)
    assert due == LosesOnTime(0)
    assert isinstance(due, LosesOnTime) and due.winner == 1


def test_after_the_limit_of_bot_moves_in_a_row_the_next_timeout_loses_the_game():
    events = started()
    move(events, on_time="random")  # seat 0 on time
    move(events)  # seat 1 itself
    assert bot_moves(events) == (1, 0)
    assert verdict(events, BOT_CLOCK) == BotPlays(replay(events).to_move or 0, "random")
    while replay(events).to_move != 0:
        move(events)
    move(events, on_time="random")
    while replay(events).to_move != 0:
        move(events)
    assert bot_moves(events)[0] == 2
    assert verdict(events, BOT_CLOCK) == LosesOnTime(0)


def test_a_seat_that_moves_in_time_resets_its_count_of_bot_moves():
    events = started()
    move(events, on_time="random")
    while replay(events).to_move != 0:
        move(events)
    assert bot_moves(events)[0] == 1
    move(events)  # seat 0 in time
    assert bot_moves(events)[0] == 0


def test_a_bots_turn_a_finished_game_and_a_game_waiting_for_seat_1_are_never_timed():
    against_bot = started(bot_opponent=True)
    move(against_bot)  # seat 0 leads: the bot is to move
    assert replay(against_bot).to_move == 1
    assert verdict(against_bot, BOT_CLOCK) is None
    waiting = started()[:2]
    assert verdict(waiting, BOT_CLOCK) is None
    over = [*started(), Resigned(1)]
    assert verdict(over, BOT_CLOCK) is None


def test_the_deadline_is_a_moves_time_after_the_turn_started_and_null_on_a_bots_turn():
    events = started()
    clock = reading(BOT_CLOCK, events, 1_000)
    assert clock.deadline_ms == 6_000
    assert clock.to_dict()["bot_moves"] == [0, 0]
    against_bot = started(bot_opponent=True)
    move(against_bot)
    assert reading(BOT_CLOCK, against_bot, 1_000).deadline_ms is None


def test_a_clocks_move_folds_as_the_action_and_keeps_its_type_and_level_in_the_log():
    events = started()
    state = replay(events)
    action = legal_actions(state)[0]
    played = ClockMoved(0, action, "expert")
    assert apply_event(state, played) == apply_event(state, ActionTaken(0, action))
    data = event_to_dict(played)
    assert data["type"] == "clock_moved" and data["level"] == "expert"
    assert event_from_dict(data) == played
    seen = observe_event(played, state, apply_event(state, played), 1)
    assert seen["type"] == "clock_moved" and seen["level"] == "expert"
    assert seen["action"] == action.to_dict()  # the card played is public, as always


@pytest.mark.parametrize(
    "control",
    [
        dict(seconds_per_move=4),
        dict(seconds_per_move=3601),
        dict(seconds_per_move=30, bot_moves_limit=0),
        dict(seconds_per_move=30, bot_moves_limit=21),
    ],
)
def test_a_time_control_out_of_its_bounds_is_refused(control):
    with pytest.raises(InvalidTimeControl):
        TimeControl(**control)


def test_the_time_control_comes_back_from_the_seats_record_and_old_records_have_none():
    control = TimeControl(42, OnTimeout.LOSE, "expert", 7)
    seats = Seats(clock=control)
    assert Seats.decode(seats.encode()).clock == control
    assert "clock" not in Seats().encode()
    assert Seats.decode({"player:0": "human"}).clock is None


def test_random_logs_count_bot_moves_as_the_run_since_each_seats_own_last_move():
    rng = random.Random(4)
    for _ in range(50):
        events = started()
        runs = [0, 0]
        for _step in range(rng.randrange(1, 30)):
            state = replay(events)
            if state.over:
                break
            seat = state.to_move
            assert seat is not None
            by_clock = rng.random() < 0.5
            move(events, on_time="random" if by_clock else None)
            runs[seat] = runs[seat] + 1 if by_clock else 0
        assert bot_moves(events) == tuple(runs)
