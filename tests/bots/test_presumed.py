"""The closed-talon search over the seat's information set (``presumed``).

Checked against the exact solver where everything is known, against a plain
vector minimax written from the definition (no table, no grouping, no solver
at one world), against the per-world solve it may only undercut (strategy
fusion overrates the seat), and in ``master``'s hands at a closed talon.
"""

from __future__ import annotations

from service.bots.master import PRESUMED_HANDS, MasterBot, MasterSearch
from service.bots.presumed import PresumedSearch, TooLarge
from service.bots.solver import EndgameSolver
from service.engine import legal_actions
from service.engine.core import FastDeal, action_of, codes_in
from service.engine.knowledge import SeatView, seat_view
from tests.support.positions import sampled_states

#: Positions drawn from random games; about one in sixty is at a closed talon with a choice.
POSITIONS = 8000
EPSILON = 1e-9


def closed_talon_views(seed: int, count: int = POSITIONS) -> list[SeatView]:
    """Views of the seat to move at a closed talon (cards still in it), with a choice and
    at most ``PRESUMED_HANDS`` possible opponent hands."""
    views = []
    for state in sampled_states(seed, count):
        deal, seat = state.deal, state.to_move
        assert deal is not None and seat is not None  # a deal is running (sampled_states)
        if deal.closed_by is None or not deal.talon or len(legal_actions(state)) < 2:
            continue
        view = seat_view(state, seat)
        if MasterSearch(view, 0, 1).sampler.hand_count() <= PRESUMED_HANDS:
            views.append(view)
    return views


def worlds_of(view: SeatView) -> tuple[list[FastDeal], EndgameSolver]:
    """Every deal the seat cannot tell apart, and their solver (the seat's R10 cap)."""
    worlds = list(MasterSearch(view, 0, 1).sampler.every_hand())
    return worlds, EndgameSolver.for_deal(worlds[0], view.game_points)


def reference(deals: list[FastDeal], seat: int, solver: EndgameSolver) -> list[int]:
    """The definition, by brute force: the seat picks one action for all worlds by the sum,
    the opponent the least value in each world, finished deals scored as the solver does."""
    first = deals[0]
    if first.result is not None:
        return [solver.worth[seat][deal.value_for(seat) + 3] for deal in deals]

    def after(group: list[FastDeal], action: int) -> list[int]:
        children = []
        for deal in group:
            child = deal.copy()
            child.apply(action)
            children.append(child)
        return reference(children, seat, solver)

    if first.to_move == seat:
        vectors = [after(deals, action) for action in codes_in(first.legal_mask())]
        return max(vectors, key=sum)  # the first of the best, as the search keeps it
    worst = [4] * len(deals)
    for action in range(28):
        members = [i for i, deal in enumerate(deals) if deal.legal_mask() >> action & 1]
        if members:
            vector = after([deals[i] for i in members], action)
            for value, i in zip(vector, members, strict=True):
                worst[i] = min(worst[i], value)
    return worst


def test_with_every_card_known_the_values_are_the_solvers():
    """One world (the true deal): no hidden card, so nothing to fuse: exactly the solver."""
    checked = 0
    for state in sampled_states(101, POSITIONS):
        if not state.deal.strict or len(legal_actions(state)) < 2:
            continue
        deal = FastDeal.from_engine(state.deal, state.variant)
        exact = EndgameSolver.for_deal(deal, state.game_points).action_values(deal)
        solver = EndgameSolver.for_deal(deal, state.game_points)
        values = PresumedSearch(solver, deal.to_move, 10**9, 1).action_values([deal])
        assert values == {action: float(value) for action, value in exact.items()}
        checked += 1
    assert checked > 100


def test_the_search_matches_the_definition_by_brute_force():
    """Table, grouping by the opponent's card and the solver at one world change nothing."""
    checked = 0
    for view in closed_talon_views(103):
        worlds, solver = worlds_of(view)
        if len(worlds) > 12 or bin(worlds[0].hands[view.seat]).count("1") > 4:
            continue  # the brute force grows fast
        values = PresumedSearch(solver, view.seat, 10**9, 1).action_values(worlds)
        for action in codes_in(worlds[0].legal_mask()):
            expected = []
            for deal in worlds:
                child = deal.copy()
                child.apply(action)
                expected.append(child)
            mean = sum(reference(expected, view.seat, solver)) / len(worlds)
            assert abs(values[action] - mean) < EPSILON, (view, action)
        checked += 1
    assert checked > 20


def test_one_choice_for_all_worlds_never_beats_solving_each_world():
    """Strategy fusion only flatters: each action is worth at most its per-world solve on
    average, and the best action at most the average of each world's best; never below
    the seat's worst outcome. Fusion shows somewhere (the values are not all the same)."""
    checked = fused = 0
    for view in closed_talon_views(107):
        worlds, solver = worlds_of(view)
        values = PresumedSearch(solver, view.seat, 10**9, 1).action_values(worlds)
        per_world = [solver.action_values(deal) for deal in worlds]
        pimc = {a: sum(v[a] for v in per_world) / len(worlds) for a in values}
        best_each = sum(max(v.values()) for v in per_world) / len(worlds)
        assert set(values) == {action_of(a) for a in view.legal_actions()}
        for action, value in values.items():
            assert value <= pimc[action] + EPSILON
            assert value >= -3 - EPSILON
        assert max(values.values()) <= best_each + EPSILON
        fused += any(values[a] < pimc[a] - EPSILON for a in values)
        checked += 1
    assert checked > 100
    assert fused > 0


def test_a_search_past_its_limit_stops():
    """The work is bounded: a tiny limit raises ``TooLarge`` on a position with many worlds."""
    stopped = 0
    for view in closed_talon_views(109):
        worlds, solver = worlds_of(view)
        if len(worlds) < 10:
            continue
        try:
            PresumedSearch(solver, view.seat, 10, 1).action_values(worlds)
        except TooLarge:
            stopped += 1
    assert stopped > 10


def test_master_plays_a_closed_talon_by_the_presumed_values():
    """At a closed talon ``master`` chooses a legal action with the best presumed value."""
    bot = MasterBot(wall_clock_guard=False)
    checked = 0
    for number, view in enumerate(closed_talon_views(113)):
        worlds, solver = worlds_of(view)
        presumed = PresumedSearch(solver, view.seat, 10**9, 1).action_values(worlds)
        decision = bot.choose(view, seed=number)
        assert decision.action in view.legal_actions()
        assert presumed[action_of(decision.action)] >= max(presumed.values()) - EPSILON
        checked += 1
    assert checked > 100
