"""The endgame solver agrees with a plain minimax over the engine's own rules.

The reference below knows nothing of the solver: it tries every legal action
of ``deal_legal_actions`` with ``play_action``, no pruning, no table, no
shortcut (claims, accepting the last trick and marriages included), and
scores finished deals with the engine's ``DealResult``.
"""

from __future__ import annotations

import random

import pytest

from service.bots.solver import EndgameSolver
from service.engine import DECK, ActionType, Variant, new_game, start_deal, take_seat
from service.engine.cards import sort_cards
from service.engine.core import FastDeal, action_of
from service.engine.rules import deal_legal_actions, play_action
from service.engine.state import DealState

POSITIONS = 2_000
#: The first positions of the same sequence, for the fast lanes.
SAMPLE = 250


def minimax(
    deal: DealState, variant: Variant, seat: int, game_points: tuple[int, int] = (7, 7)
) -> int:
    """Game points for ``seat`` under best play by both seats (R9), by brute force.

    A deal's winner gains at most the game points it has left (R10a).
    """
    if deal.result is not None:
        result = deal.result
        gained = min(result.game_points, game_points[result.winner])
        return gained if result.winner == seat else -gained
    values = [
        minimax(play_action(deal, variant, action), variant, seat, game_points)
        for action in deal_legal_actions(deal, variant)
    ]
    return max(values) if deal.to_move == seat else min(values)


def strict_position(rng: random.Random, variant: Variant, max_cards: int) -> DealState:
    """Random play from a random deck until play is strict with few cards in hand.

    Closes now and then (so closed talons are covered, with their R9b
    scoring), claims rarely, and may stop mid-trick or just after a marriage.
    """
    while True:
        deck = list(DECK)
        rng.shuffle(deck)
        state = take_seat(take_seat(new_game(variant, rng.randrange(2)), 0), 1)
        deal = start_deal(state, deck).deal
        while deal.result is None:
            if (
                deal.strict
                and len(deal.hands[deal.to_move]) <= max_cards
                and (deal.declared is not None or rng.random() < 0.4)
            ):
                return deal
            legal = deal_legal_actions(deal, variant)
            closes = [a for a in legal if a.type is ActionType.CLOSE_TALON]
            if closes and rng.random() < 0.12:
                action = closes[0]
            else:
                calm = [
                    a
                    for a in legal
                    if a.type is not ActionType.CLOSE_TALON
                    and (a.type is not ActionType.CLAIM or rng.random() < 0.03)
                ]
                action = rng.choice(calm or legal)
            deal = play_action(deal, variant, action)


@pytest.mark.parametrize(
    "positions",
    [
        pytest.param(SAMPLE, id="sample"),
        pytest.param(POSITIONS, id="all", marks=pytest.mark.heavy),
    ],
)
def test_endgame_solver_agrees_with_brute_force_minimax(positions):
    """R5, R7, R8, R9: exact values of closed and exhausted positions, both variants.

    The fast lanes check the first ``SAMPLE`` positions, the heavy lane all ``POSITIONS``
    (the brute force costs seconds of CPU per thousand)."""
    rng = random.Random(2000)
    kinds = {"closed": 0, "exhausted": 0, "mid_trick": 0, "declared": 0}
    for number in range(positions):
        variant = (Variant.HEAD, Variant.TRACKED)[number % 2]
        max_cards = 5 if number % 10 == 0 else 4 if number % 3 == 0 else 3
        deal = strict_position(rng, variant, max_cards)
        kinds["closed" if deal.closed_by is not None else "exhausted"] += 1
        kinds["mid_trick"] += deal.lead_card is not None
        kinds["declared"] += deal.declared is not None
        seat = deal.to_move
        fast = FastDeal.from_engine(deal, variant)
        values = EndgameSolver.for_deal(fast).action_values(fast)
        expected = {
            action_of(action): minimax(play_action(deal, variant, action), variant, seat)
            for action in deal_legal_actions(deal, variant)
        }
        assert values == expected, (variant, deal)
        assert EndgameSolver.for_deal(fast).value(fast) == max(expected.values())
    assert min(kinds.values()) >= positions // 100, kinds


def test_a_shared_table_gives_the_same_values_across_deals_of_one_family():
    """The expert shares one solver between the sampled deals of a decision.

    Deals of one family (same trump, closer and ``at_close``) differ in the
    hands; swapping the opponent's cards with the closed talon's must not
    let one deal's table entries leak into another's values.
    """
    rng = random.Random(7)
    checked = 0
    while checked < 300:
        variant = (Variant.HEAD, Variant.TRACKED)[checked % 2]
        deal = strict_position(rng, variant, 4)
        if deal.closed_by is None or not deal.talon:
            continue
        fast = FastDeal.from_engine(deal, variant)
        shared = EndgameSolver.for_deal(fast)
        opponent = 1 - deal.to_move
        for _ in range(4):
            hidden = list(deal.hands[opponent]) + list(deal.talon)
            rng.shuffle(hidden)
            size = len(deal.hands[opponent])
            other = deal._replace(
                hands=tuple(
                    tuple(sort_cards(hidden[:size])) if seat == opponent else deal.hands[seat]
                    for seat in (0, 1)
                ),
                talon=tuple(hidden[size:]),
            )
            other_fast = FastDeal.from_engine(other, variant)
            assert shared.fits(other_fast)
            assert shared.value(other_fast) == EndgameSolver.for_deal(other_fast).value(other_fast)
        checked += 1


def test_r10a_solver_counts_a_win_only_as_far_as_the_game_needs_it():
    """With 1 or 2 game points left, a bigger win is worth no more: values agree with minimax."""
    rng = random.Random(10)
    for number in range(400):
        variant = (Variant.HEAD, Variant.TRACKED)[number % 2]
        deal = strict_position(rng, variant, 3)
        left = (rng.randint(1, 3), rng.randint(1, 3))
        fast = FastDeal.from_engine(deal, variant)
        values = EndgameSolver.for_deal(fast, left).action_values(fast)
        expected = {
            action_of(action): minimax(
                play_action(deal, variant, action), variant, deal.to_move, left
            )
            for action in deal_legal_actions(deal, variant)
        }
        assert values == expected, (variant, left, deal)
