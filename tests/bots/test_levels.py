"""Every level, and the benchmark-only ``master`` and ``inferring``: legal actions only,
deterministic, and blind to the cards its seat cannot see."""

from __future__ import annotations

import random
import zlib

import pytest

from service.bots import BEGINNER_NOISE, LEVELS, NOVICE_NOISE, get_bot
from service.bots.expert import ExpertBot, Search
from service.bots.solver import EndgameSolver
from service.engine import legal_actions
from service.engine.actions import CLAIM
from service.engine.core import FastDeal, action_of
from service.engine.knowledge import seat_view
from tests.support.positions import permuted, sampled_states

#: A small budget keeps the expert quick here; its search is the same at any budget.
BUDGET_MS = 4
POSITIONS = {"random": 1000, "beginner": 1000, "novice": 1000, "heuristic": 3000,
             "expert": 800, "master": 800, "inferring": 800}  # fmt: skip
#: The levels, and the searching bots measured against them before they are offered.
SEARCHERS = (*LEVELS, "master", "inferring")


def clockless_bot(level: str):
    """The level's bot, deciding by counted work alone (no wall-clock guard), so that a
    busy machine cannot change a decision between two calls."""
    bot = get_bot(level)
    if isinstance(bot, ExpertBot):
        bot.wall_clock_guard = False
    return bot


def test_the_registry_has_the_levels():
    assert LEVELS == ("random", "beginner", "novice", "heuristic", "expert")
    for level in LEVELS:
        assert get_bot(level).level == level
    with pytest.raises(KeyError, match="unknown bot level"):
        get_bot("grandmaster")


@pytest.mark.parametrize("level", SEARCHERS)
def test_every_level_only_returns_legal_actions(level):
    """Random positions of both variants, every phase of a deal (R2-R8)."""
    bot = get_bot(level)
    for number, state in enumerate(sampled_states(zlib.crc32(level.encode()), POSITIONS[level])):
        seat = state.to_move
        decision = bot.choose(seat_view(state, seat), seed=number, budget_ms=BUDGET_MS)
        legal = legal_actions(state)
        assert decision.action in legal
        if decision.evaluations is not None:
            assert [action for action, _ in decision.evaluations] == legal
            assert all(-3 <= value <= 3 for _, value in decision.evaluations)


@pytest.mark.parametrize("level", SEARCHERS)
def test_same_view_and_seed_give_the_same_action(level):
    for number, state in enumerate(sampled_states(11, 150)):
        view = seat_view(state, state.to_move)
        first = clockless_bot(level).choose(view, seed=number, budget_ms=BUDGET_MS)
        again = clockless_bot(level).choose(view, seed=number, budget_ms=BUDGET_MS)
        assert first == again


@pytest.mark.parametrize(
    ("level", "budget_ms", "count"),
    [
        ("random", None, 300),
        ("beginner", None, 300),
        ("novice", None, 300),
        ("heuristic", None, 300),
        ("classic", None, 300),
        ("expert", BUDGET_MS, 300),
        ("expert", 30, 40),
        ("master", BUDGET_MS, 300),
        ("master", 30, 40),
        ("inferring", BUDGET_MS, 300),
        ("inferring", 30, 40),
    ],
)
def test_r11b_a_level_is_blind_to_the_hidden_cards(level, budget_ms, count):
    """R11b: permuting the cards the seat cannot see changes neither its view nor its action."""
    rng = random.Random(level)
    bot = clockless_bot(level)
    changed = 0
    for number, state in enumerate(sampled_states(23 + count, count)):
        seat = state.to_move
        other = permuted(state, seat, rng)
        changed += other.deal.hands != state.deal.hands
        assert seat_view(other, seat) == seat_view(state, seat)
        first = bot.choose(seat_view(state, seat), seed=number, budget_ms=budget_ms)
        second = bot.choose(seat_view(other, seat), seed=number, budget_ms=budget_ms)
        assert first == second
    assert changed > count // 4


def test_r7_classic_claims_exactly_when_it_has_66():
    """R7b, R7c: the card points are counted exactly, so no false claim and no missed claim.

    (The heuristic level may claim falsely where that is the cheaper loss: test_heuristic.)"""
    bot = get_bot("classic")
    claims = 0
    for state in sampled_states(31, 3000, every=1):
        if CLAIM not in legal_actions(state):
            continue
        seat = state.to_move
        decision = bot.choose(seat_view(state, seat))
        has_66 = state.deal.card_points(seat) >= 66
        assert (decision.action == CLAIM) == has_66
        claims += has_66
    assert claims > 20


def test_r7_expert_claims_with_66():
    """Claiming at once is the best a seat with 66 can do: the opponent's points only grow."""
    bot = get_bot("expert")
    claims = 0
    for number, state in enumerate(sampled_states(37, 3000, every=1)):
        seat = state.to_move
        if CLAIM not in legal_actions(state) or state.deal.card_points(seat) < 66:
            continue
        decision = bot.choose(seat_view(state, seat), seed=number, budget_ms=BUDGET_MS)
        assert decision.action == CLAIM
        claims += 1
    assert claims > 20


def test_expert_plays_exhausted_talons_perfectly():
    """Once the talon is exhausted the seat knows every card: its values are the exact ones."""
    bot = get_bot("expert")
    checked = 0
    for number, state in enumerate(sampled_states(41, 1500, every=1)):
        deal = state.deal
        if not deal.exhausted or len(legal_actions(state)) < 2:
            continue
        seat = state.to_move
        decision = bot.choose(seat_view(state, seat), seed=number, budget_ms=BUDGET_MS)
        fast = FastDeal.from_engine(deal, state.variant)
        exact = EndgameSolver.for_deal(fast, state.game_points).action_values(fast)
        assert {action_of(a): v for a, v in decision.evaluations} == exact
        assert exact[action_of(decision.action)] == max(exact.values())
        checked += 1
    assert checked > 100


def test_expert_search_grows_with_its_budget():
    """The budget buys work (samples), counted deterministically rather than by the clock."""
    small_total = large_total = 0
    for state in sampled_states(43, 40):
        view = seat_view(state, state.to_move)
        legal = [action_of(a) for a in view.legal_actions()]
        small = Search(view, 1, 2, wall_clock_guard=False)
        large = Search(view, 1, 40, wall_clock_guard=False)
        small.run(legal)
        large.run(legal)
        assert small.work <= large.work
        small_total += small.work
        large_total += large.work
    assert large_total > 3 * small_total


def test_the_noise_knob_blunders_as_often_as_it_says():
    """``beginner`` plays a random legal action on about half of its moves (where it has a
    choice), ``novice`` on about 15%: elsewhere both play the heuristic's move."""
    heuristic = get_bot("heuristic")
    for level, noise in (("beginner", BEGINNER_NOISE), ("novice", NOVICE_NOISE)):
        bot = get_bot(level)
        differ = choices = 0
        for number, state in enumerate(sampled_states(53, 2000)):
            view = seat_view(state, state.to_move)
            if len(view.legal_actions()) < 2:
                continue
            choices += 1
            differ += bot.choose(view, seed=number) != heuristic.choose(view, seed=number)
        # A random action is the heuristic's own now and then: fewer differ than blunder.
        assert 0.5 * noise < differ / choices <= noise + 0.05, (level, differ, choices)
