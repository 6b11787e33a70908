"""The shipped learned value (service/bots/value_model.py): blind to what its seat cannot see,
within a deal's stakes, reading the match score. That it is the model its manifest names, on
the inputs it was trained on: tests/bots/test_model_files.py."""

from __future__ import annotations

import random

import numpy as np

from service.bots import value_model
from service.bots.features import encode
from service.engine.core import FastDeal
from service.engine.knowledge import seat_view
from tests.support.positions import permuted, sampled_states


def test_values_lie_within_a_deals_stakes_and_batches_agree():
    """R9: a deal is worth at most 3 game points either way; ``values`` is ``value`` batched."""
    states = [s for s in sampled_states(21, 600) if s.deal.lead_card is None]
    assert len(states) > 150
    for seat in (0, 1):
        deals = [FastDeal.from_engine(s.deal, s.variant) for s in states]
        batch = value_model.values(deals, seat, (4, 6))
        single = [value_model.value(deal, seat, (4, 6)) for deal in deals]
        assert np.allclose(batch, single, atol=1e-5)
        assert all(-3.0 <= v <= 3.0 for v in single)
        assert len(set(single)) > len(single) // 2  # not a constant
    assert value_model.values([], 0, (7, 7)) == []


def test_r11_the_value_ignores_the_cards_its_seat_cannot_see():
    """The opponent's unknown cards and the talon shuffled among themselves (R11b): the same
    value; a view's value is its deal's."""
    rng = random.Random(5)
    compared = 0
    for state in sampled_states(22, 500):
        for seat in (0, 1):
            moved = permuted(state, seat, rng)
            here = value_model.value(
                FastDeal.from_engine(state.deal, state.variant), seat, state.game_points
            )
            there = value_model.value(
                FastDeal.from_engine(moved.deal, moved.variant), seat, moved.game_points
            )
            assert here == there == value_model.value_of_view(seat_view(state, seat))
            compared += 1
    assert compared == 1000


def test_the_value_reads_the_match_score():
    """The same cards are worth less to a seat that needs one game point than to one that
    needs three (a deal wins at most what the winner still needs: R10a)."""
    states = [s for s in sampled_states(23, 400) if s.deal.lead_card is None]
    deals = [FastDeal.from_engine(s.deal, s.variant) for s in states]
    inputs = np.array([encode(deal, 0, (7, 7)) for deal in deals])
    near_end = np.array([encode(deal, 0, (1, 1)) for deal in deals])
    model = value_model.shipped_model()
    assert np.mean(np.abs(model.predict(near_end))) < np.mean(np.abs(model.predict(inputs)))
