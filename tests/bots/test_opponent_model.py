"""The shipped opponent model (service/bots/opponent_model.py): a distribution over exactly the
legal actions, read from the mover's view alone, the same in every process. That it is the
model its manifest names, on the inputs it was trained on: tests/bots/test_model_files.py."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from service.bots import opponent_model
from service.engine.knowledge import seat_view
from tests.support.paths import REPO
from tests.support.positions import permuted, sampled_states


def movers_views(seed: int, count: int):
    """The view of the seat to move in about ``count`` positions of random games."""
    return [seat_view(s, s.deal.to_move) for s in sampled_states(seed, count)]


def test_predictions_are_a_distribution_over_exactly_the_legal_actions():
    views = movers_views(31, 300)
    choices = 0
    for view in views:
        odds = opponent_model.probabilities(view)
        assert [action for action, _ in odds] == view.legal_actions()
        assert all(0.0 < p <= 1.0 for _, p in odds)
        assert sum(p for _, p in odds) == pytest.approx(1.0, abs=1e-9)
        choices += len(odds) > 1
    assert choices > 150
    state = sampled_states(32, 1)[0]
    assert opponent_model.probabilities(seat_view(state, 1 - state.deal.to_move)) == []


def test_r11_the_prediction_ignores_the_cards_the_mover_cannot_see():
    """The other seat's unknown cards and the talon shuffled among themselves (R11b): the
    same probabilities, to the bit."""
    rng = random.Random(6)
    changed = 0
    for state in sampled_states(33, 300):
        mover = state.deal.to_move
        moved = permuted(state, mover, rng)
        changed += moved.deal.hands[1 - mover] != state.deal.hands[1 - mover]
        here = opponent_model.probabilities(seat_view(state, mover))
        there = opponent_model.probabilities(seat_view(moved, mover))
        assert here == there
    assert changed > 100  # the other seat's hand really differed


def test_the_same_view_gives_the_same_prediction_in_another_process():
    views = movers_views(34, 40)
    here = [[p for _, p in opponent_model.probabilities(view)] for view in views]
    assert here == [[p for _, p in opponent_model.probabilities(view)] for view in views]
    script = (
        "import json; from service.bots import opponent_model; "
        "from service.engine.knowledge import seat_view; "
        "from tests.support.positions import sampled_states; "
        "views = [seat_view(s, s.deal.to_move) for s in sampled_states(34, 40)]; "
        "print(json.dumps([[p for _, p in opponent_model.probabilities(v)] for v in views]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, check=True, capture_output=True, text=True
    )
    assert json.loads(done.stdout) == here
