"""The learned value's inputs (service/bots/features.py) are what the seat may know (R11).

Positions come from whole games of random legal play (every phase of a deal,
both variants). Moving the cards a seat cannot see among their places must
leave its encoding unchanged (and so its value: tests/bots/test_value_model.py); a different hand of its own
must not.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from service.bots.features import LAYOUT, SIZE, encode, encode_view
from service.engine import DECK, GameState, Variant, new_game, start_deal, take_seat
from service.engine.cards import sort_cards
from service.engine.core import FastDeal
from service.engine.knowledge import seat_view
from tests.support.positions import permuted, sampled_states

Encoder = Callable[[FastDeal, int, tuple[int, int]], list[float]]
POSITIONS = 1500


def positions(seed: int = 7, count: int = POSITIONS) -> list[GameState]:
    return sampled_states(seed, count)


def encoded(encoder: Encoder, state: GameState, seat: int) -> list[float]:
    return encoder(FastDeal.from_engine(state.deal, state.variant), seat, state.game_points)


def hidden_changes(encoder: Encoder, states: list[GameState]) -> int:
    """How many (position, seat) change their encoding when the seat's unseen cards move."""
    rng = random.Random(3)
    changed = 0
    for state in states:
        for seat in (0, 1):
            moved = permuted(state, seat, rng)
            changed += encoded(encoder, state, seat) != encoded(encoder, moved, seat)
    return changed


def test_layout_names_every_input_once():
    deal = FastDeal.from_engine(positions(count=1)[0].deal, Variant.HEAD)
    assert len(LAYOUT) == SIZE == len(encode(deal, 0, (7, 7)))
    assert len(set(LAYOUT)) == len(LAYOUT)


def test_cards_are_placed_by_the_layout_with_trumps_first():
    """Trump hearts: the seat's ace of hearts is ``hand.trump.A``, its ten of clubs (the first
    other suit) ``hand.side1.T``; the turn-up under the talon sits in ``turn_up``."""
    deck = list(DECK)
    order = ["AH", "TC", "JS", "QD", "KD", "AC", "AS", "AD", "TD", "TS", "QH"]
    by_name = {str(card): card for card in deck}
    front = [by_name[name] for name in order]
    deck = front + [card for card in deck if card not in front]
    state = start_deal(take_seat(take_seat(new_game(Variant.HEAD, 1), 0), 1), deck)
    assert sort_cards(state.deal.hands[0]) == sort_cards(front[:5])  # dealer 1: seat 0 first
    inputs = dict(zip(LAYOUT, encoded(encode, state, 0), strict=True))
    on = {name for name, x in inputs.items() if x and "." in name}
    assert on == {
        "hand.trump.A",
        "hand.side1.T",
        "hand.side3.J",
        "hand.side2.Q",
        "hand.side2.K",
        "turn_up.trump.Q",
    }
    assert inputs["i_lead"] == 1.0 and inputs["talon_size"] == 1.0
    assert inputs["my_need_3_or_more"] == inputs["opponent_need_3_or_more"] == 1.0


def test_r11_moving_the_unseen_cards_never_changes_the_encoding():
    """The opponent's unknown cards and the talon, shuffled among themselves (R11b)."""
    assert hidden_changes(encode, positions()) == 0


def test_an_encoder_that_reads_the_opponents_hand_is_caught():
    """The check above can fail: reading the opponent's hidden cards shows up at once."""

    def leaky(deal: FastDeal, seat: int, game_points: tuple[int, int]) -> list[float]:
        return [*encode(deal, seat, game_points), float(deal.hands[1 - seat])]

    assert hidden_changes(leaky, positions(count=200)) > 100


def test_a_different_hand_of_its_own_changes_the_encoding():
    """The control: the seat's hand is read. One card of it swapped with a talon card."""
    rng = random.Random(9)
    compared = 0
    for state in positions(seed=8):
        deal = state.deal
        seat = state.to_move
        shown = set(deal.public_cards_in_hand(seat))
        mine = [card for card in deal.hands[seat] if card not in shown]
        if not deal.talon or not mine:
            continue
        out, into = rng.choice(mine), rng.choice(deal.talon)
        hands = list(deal.hands)
        hands[seat] = tuple(sort_cards([into, *(c for c in mine if c != out), *shown]))
        talon = tuple(out if card == into else card for card in deal.talon)
        other = state._replace(deal=deal._replace(hands=tuple(hands), talon=talon))
        assert encoded(encode, state, seat) != encoded(encode, other, seat)
        compared += 1
    assert compared > 300


def test_a_seats_view_encodes_as_the_deal_it_came_from():
    """``encode_view`` fills the unseen places with cards of its own (``sample_deal``);
    the encoding ignores them, so it equals the real deal's."""
    for state in positions(seed=4, count=800):
        for seat in (0, 1):
            assert encode_view(seat_view(state, seat)) == encoded(encode, state, seat)
