"""The engine decides (service/engine/decide.py): an action in, the events to record out."""

from __future__ import annotations

import pytest

from service.engine import ActionTaken, DealStarted, IllegalActionError, decide
from service.engine.actions import CLAIM
from service.engine.cards import DECK
from tests.engine.builders import E1_DEAL, E1_MOVES, action, play, start


def no_deck(number: int):
    raise AssertionError(f"no deal should start, but deal {number} was asked for")


def test_an_action_within_a_deal_is_one_event_and_deals_nothing():
    state = start(E1_DEAL)
    seat = state.to_move
    decided = decide(state, seat, action("AC"), no_deck)
    assert decided.events == (ActionTaken(seat, action("AC")),)
    assert decided.state == play(state, "AC")


def test_r10c_the_action_that_ends_a_deal_deals_the_next_with_the_other_dealer():
    state = play(start(E1_DEAL), *E1_MOVES)
    asked = []

    def next_deck(number: int):
        asked.append(number)
        return DECK

    decided = decide(state, 0, CLAIM, next_deck, lambda: "ab" * 32)
    claim, dealt = decided.events
    assert claim == ActionTaken(0, CLAIM)
    assert isinstance(dealt, DealStarted)
    assert asked == [2]
    assert (dealt.number, dealt.dealer, dealt.deck, dealt.nonce) == (2, 0, DECK, "ab" * 32)
    assert decided.state.deal.number == 2 and decided.state.deal.result is None
    assert decided.state.results[0].winner == 0  # E1: going out with 70


def test_r2a_an_illegal_action_is_refused_with_its_rule_and_records_nothing():
    state = start(E1_DEAL)
    with pytest.raises(IllegalActionError) as refused:
        decide(state, 1 - state.to_move, action("TC"), no_deck)
    assert refused.value.rule in ("R2a", "R2c")
