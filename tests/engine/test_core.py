"""The search core (``service.engine.core``) agrees with the engine, action by action, over many random deals."""

from __future__ import annotations

import random

import pytest

from service.engine import DECK, ActionType, Variant, new_game, start_deal, take_seat
from service.engine.core import FastDeal, action_of, engine_action
from service.engine.rules import deal_legal_actions, play_action
from service.engine.state import DealState
from tests.support.positions import patient_choice

DEALS_PER_VARIANT = 5_000


def fresh_deal(rng: random.Random, dealer: int) -> DealState:
    """A deal as ``start_deal`` builds it, from a random deck."""
    deck = list(DECK)
    rng.shuffle(deck)
    state = take_seat(take_seat(new_game(Variant.HEAD, dealer), 0), 1)
    return start_deal(state, deck).deal


@pytest.mark.parametrize("variant", list(Variant))
def test_fast_deal_agrees_with_the_engine_on_legal_actions_and_results(variant):
    """R1-R9: same legal actions at every step, same result at the end, 5,000 deals per variant."""
    rng = random.Random(f"fast-{variant.value}")
    endings = set()
    for number in range(DEALS_PER_VARIANT):
        deal = fresh_deal(rng, number % 2)
        fast = FastDeal.from_engine(deal, variant)
        uniform = number % 3 == 0  # uniform play claims early; the others play long deals
        while deal.result is None:
            legal = deal_legal_actions(deal, variant)
            assert fast.legal_actions() == [action_of(a) for a in legal]
            action = rng.choice(legal) if uniform else patient_choice(rng, legal)
            deal = play_action(deal, variant, action)
            fast.apply(action_of(action))
        assert fast.legal_actions() == []
        assert fast.engine_result() == deal.result
        endings.add(deal.result.reason)
    assert len(endings) >= (7 if variant is Variant.HEAD else 4)


@pytest.mark.parametrize("variant", list(Variant))
def test_fast_deal_converts_to_and_from_the_engine(variant):
    rng = random.Random(f"convert-{variant.value}")
    for number in range(300):
        deal = fresh_deal(rng, number % 2)
        while True:
            fast = FastDeal.from_engine(deal, variant)
            assert fast.to_engine() == deal._replace(deck=())
            copy = fast.copy()
            assert copy.to_engine() == fast.to_engine()
            if deal.result is not None:
                break
            deal = play_action(
                deal, variant, patient_choice(rng, deal_legal_actions(deal, variant))
            )


def test_action_codes_round_trip():
    for code in range(28):
        assert action_of(engine_action(code)) == code


def test_legal_mask_is_the_legal_actions():
    """The search steps over ``legal_mask``; it names exactly ``legal_actions``."""
    rng = random.Random("mask")
    for number in range(500):
        deal = FastDeal.from_engine(fresh_deal(rng, number % 2), Variant.HEAD)
        while deal.result is None:
            mask = deal.legal_mask()
            legal = deal.legal_actions()
            assert sum(1 << code for code in legal) == mask
            deal.apply(rng.choice(legal))


@pytest.mark.parametrize("variant", list(Variant))
def test_apply_returns_the_next_legal_mask(variant):
    """R2-R9: ``apply`` returns the next seat's ``legal_mask`` (0 once the deal is over).

    A playout steps on what ``apply`` returns; every kind of action is taken
    over these deals (uniform play claims early, patient play runs long).
    """
    rng = random.Random(f"returned-{variant.value}")
    kinds = set()
    for number in range(1_000):
        deal = FastDeal.from_engine(fresh_deal(rng, number % 2), variant)
        mask = deal.legal_mask()
        while deal.result is None:
            legal = [engine_action(code) for code in deal.legal_actions()]
            action = rng.choice(legal) if number % 2 else patient_choice(rng, legal)
            kinds.add(action.type)
            mask = deal.apply(action_of(action))
            assert mask == deal.legal_mask()
        assert mask == 0
    claims = {ActionType.CLAIM, ActionType.ACCEPT_LAST_TRICK} if variant is Variant.HEAD else set()
    assert (
        kinds
        == {
            ActionType.PLAY,
            ActionType.EXCHANGE_TRUMP_JACK,
            ActionType.CLOSE_TALON,
            ActionType.DECLARE_MARRIAGE,
        }
        | claims
    )
