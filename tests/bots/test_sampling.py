"""The expert's sampled deals: consistent with the seat's view, never excluding the truth."""

from __future__ import annotations

import random

from service.bots.sampling import WorldSampler, opponent_voids
from service.engine import Variant
from service.engine.core import mask_of
from service.engine.knowledge import seat_view
from tests.support.positions import random_states


def test_r5_inferred_voids_never_exclude_a_card_the_opponent_holds():
    """What strict play (R5) reveals is true: the real hidden hand satisfies every void."""
    inferred = 0
    for seed in range(120):
        for state in random_states(seed, Variant.HEAD):
            for seat in (0, 1):
                view = seat_view(state, seat)
                forbidden = opponent_voids(view)
                assert not forbidden & mask_of(state.deal.hands[1 - seat])
                inferred += bool(forbidden & mask_of(view.unseen_cards()))
    assert inferred > 100


def test_r11_every_sampled_deal_shows_the_seat_exactly_its_view():
    rng = random.Random(5)
    exact = 0
    for seed in range(60):
        variant = (Variant.HEAD, Variant.TRACKED)[seed % 2]
        for state in random_states(seed, variant):
            seat = state.to_move
            view = seat_view(state, seat)
            sampler = WorldSampler(view)
            exact += sampler.exact
            for _ in range(2):
                world = sampler.sample(rng).to_engine()
                assert (
                    seat_view(state._replace(deal=world._replace(deck=state.deal.deck)), seat)
                    == view
                )
                if sampler.exact:
                    assert world.hands == state.deal.hands
    assert exact > 50


def test_every_hand_lists_each_possible_closed_talon_hand_once():
    checked = 0
    for seed in range(200):
        for state in random_states(seed, Variant.HEAD):
            deal = state.deal
            if deal.closed_by is None or deal.exhausted:
                continue
            if state.results and state.results[-1].number == deal.number:
                continue
            view = seat_view(state, state.to_move)
            sampler = WorldSampler(view)
            if sampler.hand_count() > 40:
                continue
            hands = [world.hands[view.opponent] for world in sampler.every_hand()]
            assert len(hands) == len(set(hands)) == sampler.hand_count()
            assert mask_of(deal.hands[view.opponent]) in hands
            checked += 1
    assert checked > 50


def test_no_strict_trick_no_void():
    """While the talon is open (R4a) any card may be played: nothing is inferred."""
    for seed in range(30):
        for state in random_states(seed, Variant.HEAD):
            if state.deal.talon_open:
                assert opponent_voids(seat_view(state, 0)) == 0
