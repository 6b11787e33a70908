"""The expert's decisions on 500 recorded positions are unchanged (tests/data/corpus.py).

A fixed seed and budget make the expert deterministic (work is counted, not
timed), so a refactoring of the rules core that keeps the game the same keeps
every one of these decisions.
"""

from __future__ import annotations

from service.bots.expert import ExpertBot
from service.engine import apply
from service.engine.knowledge import seat_view
from tests.data.corpus import DECISIONS, EXPERT_BUDGET_MS, EXPERT_SEED, read_decisions


def test_expert_decisions_on_recorded_positions_are_unchanged():
    bot = ExpertBot(wall_clock_guard=False)
    changed = []
    count = 0
    for position, expected in read_decisions():
        state = position.start()
        for action in position.actions:
            state = apply(state, action)
        view = seat_view(state, state.deal.to_move)
        choice = bot.choose(view, seed=EXPERT_SEED, budget_ms=EXPERT_BUDGET_MS).action
        if choice != expected:
            changed.append((count, str(expected), str(choice)))
        count += 1
    assert count == DECISIONS
    assert changed == []
