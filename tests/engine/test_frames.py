"""The replay's frames (service/engine/frames.py): what a viewer sees, step by step.

The replay page renders these instead of folding the rules itself, so they
must say what happened (tricks, draws, marriages, results, game points) and
show only what the viewer may see (R11).
"""

from __future__ import annotations

import random

import pytest

from service.engine import DECK, Variant, apply, legal_actions, new_game, start_deal, take_seat
from service.engine.events import ActionTaken, DealStarted, GameCreated, SeatTaken, replay
from service.engine.frames import replay_frames
from tests.support.positions import patient_choice


def random_game(seed: int, stop: int | None = None) -> list:
    """The event log of a random game, cut after ``stop`` events if given."""
    rng = random.Random(seed)
    variant = (Variant.HEAD, Variant.TRACKED)[seed % 2]
    events: list = [GameCreated(variant, 0), SeatTaken(0), SeatTaken(1)]
    state = take_seat(take_seat(new_game(variant, 0), 0), 1)
    while state.winner is None and (stop is None or len(events) < stop):
        if state.awaiting_deal:
            deck = list(DECK)
            rng.shuffle(deck)
            events.append(DealStarted(len(state.results) + 1, state.next_dealer, tuple(deck)))
            state = start_deal(state, deck)
            continue
        seat = state.to_move
        action = patient_choice(rng, legal_actions(state))
        events.append(ActionTaken(seat, action))
        state = apply(state, action, seat)
    return events


@pytest.mark.parametrize("seed", range(6))
def test_r11_frames_of_a_running_game_show_only_the_viewers_cards(seed):
    events = random_game(seed, stop=25)
    latest = replay(events)
    assert latest.winner is None
    for viewer in (0, 1, None):
        for frame in replay_frames(events, viewer, latest):
            assert frame["complete"] is False
            for seat in (0, 1):
                if seat == viewer:
                    assert len(frame["hands"][seat]) == frame["counts"][seat]
                else:
                    assert frame["hands"][seat] is None  # R11b, R11c
            for draw in frame["draws"]:
                if draw["seat"] != viewer and draw["card"] is not None:
                    # R11b: only the last trump card drawn is public.
                    assert draw["card"][1] == frame["trump_suit"]
                    assert frame["talon_size"] == 1


@pytest.mark.parametrize("seed", range(4))
def test_r11d_frames_of_a_finished_game_show_every_hand_and_every_step(seed):
    events = random_game(seed)
    latest = replay(events)
    assert latest.winner is not None
    frames = replay_frames(events, None, latest)
    kinds = [frame["kind"] for frame in frames]
    deals = len(latest.results)
    assert kinds.count("deal") == kinds.count("result") == deals  # R10: deal after deal
    assert kinds[-1] == "game"
    assert frames[-1]["game_points"] == list(latest.game_points)
    tricks = [frame for frame in frames if frame["kind"] == "trick"]
    assert len(tricks) == sum(sum(r.tricks_won) for r in latest.results)
    for frame in frames:
        assert all(hand is not None for hand in frame["hands"])
        assert [len(hand) for hand in frame["hands"]] == frame["counts"]
    for frame in tricks:
        # R3a: the frame shows the trick before the draw; the draw comes with it.
        assert frame["tricks"][-1]["number"] == frame["trick"]["number"]
        assert len(frame["draws"]) in (0, 2)
        assert all(draw["card"] is not None for draw in frame["draws"])
    results = [frame["result"] for frame in frames if frame["kind"] == "result"]
    assert [r["game_points"] for r in results] == [r.game_points for r in latest.results]


def test_r6c_frames_carry_the_marriage_points():
    events = random_game(3)
    latest = replay(events)
    for frame in replay_frames(events, 0, latest):
        for marriage in frame["marriages"]:
            assert marriage["points"] == (40 if marriage["suit"] == frame["trump_suit"] else 20)
        for note in frame["notes"]:
            if note["action"]["type"] == "declare_marriage":
                assert note["marriage_points"] in (20, 40)
