"""A seat's view (the bots' only input) holds what R11 allows and rebuilds the deal."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from service.engine import Variant, legal_actions
from service.engine.knowledge import seat_view
from tests.support import positions


def random_states(seed: int, variant: Variant):
    """Every state of one uniformly random game with a deal running."""
    return positions.random_states(seed, variant, random.Random.choice)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from(list(Variant)))
def test_r11b_seat_view_rebuilds_the_true_deal_from_the_true_hidden_cards(seed, variant):
    for state in random_states(seed, variant):
        deal = state.deal
        for seat in (0, 1):
            view = seat_view(state, seat)
            known = set(view.known_opponent_cards())
            assert known <= set(deal.hands[1 - seat])
            unknown = [c for c in deal.hands[1 - seat] if c not in known]
            assert sorted(c.order for c in unknown + list(deal.talon)) == [
                c.order for c in view.unseen_cards()
            ]
            rebuilt = view.deal_with(unknown, deal.talon)
            assert rebuilt._replace(deck=deal.deck) == deal
            if deal.to_move == seat:
                assert view.legal_actions() == legal_actions(state)
            else:
                assert view.legal_actions() == []


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32))
def test_r11b_seat_view_is_unchanged_when_hidden_cards_are_permuted(seed):
    rng = random.Random(seed)
    for state in random_states(seed, Variant.HEAD):
        deal = state.deal
        seat = rng.randrange(2)
        view = seat_view(state, seat)
        known = set(view.known_opponent_cards())
        hidden_hand = [c for c in deal.hands[1 - seat] if c not in known]
        hidden = hidden_hand + list(deal.talon)
        rng.shuffle(hidden)
        other = view.deal_with(hidden[: len(hidden_hand)], hidden[len(hidden_hand) :])
        permuted = state._replace(deal=other._replace(deck=deal.deck))
        assert seat_view(permuted, seat) == view
