"""The ``heuristic`` level in positions its own play reaches: every phase, claims, blindness."""

from __future__ import annotations

import random
from collections import Counter

from service.bots import get_bot
from service.bots.heuristic import HeuristicBot
from service.bots.solver import EndgameSolver
from service.engine import (
    DECK,
    GameState,
    Variant,
    apply,
    legal_actions,
    new_game,
    start_deal,
    take_seat,
)
from service.engine.actions import CLAIM
from service.engine.core import FastDeal, action_of
from service.engine.knowledge import seat_view
from tests.support.positions import permuted


def phase(state: GameState) -> str:
    """Where the deal is: the talon open (``last`` its last trick), closed, or exhausted."""
    deal = state.deal
    if deal.exhausted:
        return "exhausted"
    if deal.closed_by is not None:
        return "closed"
    return "last" if len(deal.talon) == 1 else "open"


def played_states(seed: int, count: int) -> list[GameState]:
    """About ``count`` states of games the heuristic plays against itself (both variants),
    with one random move in ten so that positions vary; every seat to move is recorded."""
    rng = random.Random(seed)
    bot = HeuristicBot()
    states: list[GameState] = []
    game = 0
    while len(states) < count:
        variant = (Variant.HEAD, Variant.TRACKED)[game % 2]
        game += 1
        state = take_seat(take_seat(new_game(variant, rng.randrange(2)), 0), 1)
        while state.winner is None and len(states) < count:
            if state.awaiting_deal:
                deck = list(DECK)
                rng.shuffle(deck)
                state = start_deal(state, deck)
                continue
            states.append(state)
            legal = legal_actions(state)
            if rng.random() < 0.1:
                action = rng.choice(legal)
            else:
                action = bot.choose(seat_view(state, state.to_move)).action
            state = apply(state, action)
    return states


STATES = played_states(2026, 1500)


def test_the_positions_cover_every_phase():
    phases = Counter(phase(state) for state in STATES)
    assert all(phases[p] > 50 for p in ("open", "last", "closed", "exhausted")), phases


def test_r2_r8_heuristic_returns_a_legal_action_in_every_phase():
    bot = get_bot("heuristic")
    for state in STATES:
        decision = bot.choose(seat_view(state, state.to_move))
        assert decision.action in legal_actions(state)


def test_heuristic_is_deterministic():
    for state in STATES[::5]:
        view = seat_view(state, state.to_move)
        assert HeuristicBot().choose(view, seed=1) == HeuristicBot().choose(view, seed=2)


def test_r11b_heuristic_is_blind_to_the_hidden_cards_in_every_phase():
    """The searched phases too: the last trick of the open talon and the exhausted talon."""
    rng = random.Random(14)
    bot = get_bot("heuristic")
    checked = Counter()
    for state in STATES:
        seat = state.to_move
        other = permuted(state, seat, rng)
        assert seat_view(other, seat) == seat_view(state, seat)
        assert bot.choose(seat_view(state, seat)) == bot.choose(seat_view(other, seat))
        checked[phase(state)] += other.deal.hands != state.deal.hands
    assert checked["last"] > 50 and checked["open"] > 50 and checked["closed"] > 10


def test_r7_heuristic_claims_as_soon_as_it_has_66():
    """R7b, R7d: in the head variant a seat that may claim with 66 claims at once."""
    bot = get_bot("heuristic")
    claims = 0
    for state in STATES:
        seat = state.to_move
        if CLAIM in legal_actions(state) and state.deal.card_points(seat) >= 66:
            assert bot.choose(seat_view(state, seat)).action == CLAIM
            claims += 1
    assert claims > 20


def test_r9c_heuristic_claims_falsely_only_where_every_other_action_loses_more():
    """Without 66 a claim loses (R9b, R9c): the heuristic makes it only once the talon is
    exhausted and the exact values show every other action losing more game points."""
    bot = get_bot("heuristic")
    false_claims = 0
    for state in STATES:
        seat = state.to_move
        if CLAIM not in legal_actions(state) or state.deal.card_points(seat) >= 66:
            continue
        if bot.choose(seat_view(state, seat)).action != CLAIM:
            continue
        false_claims += 1
        assert state.deal.exhausted
        fast = FastDeal.from_engine(state.deal, state.variant)
        values = EndgameSolver.for_deal(fast).action_values(fast)
        claim = values.pop(action_of(CLAIM))
        assert all(claim > value for value in values.values())
