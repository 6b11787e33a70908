"""The shipped opponent model (service/bots/opponent_model.py): the model its manifest names,
a distribution over exactly the legal actions, read from the mover's view alone."""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys

import numpy as np
import pytest

from service.bots import opponent_model
from service.bots.action_features import ACTION_LAYOUT
from service.bots.model_files import weights_digest
from service.engine.knowledge import seat_view
from tests.support.paths import REPO
from tests.support.positions import permuted, sampled_states

FOLDER = REPO / "service" / "bots"


def manifest() -> dict:
    return json.loads((FOLDER / opponent_model.MANIFEST_FILE).read_text())


def model_bytes() -> bytes:
    return (FOLDER / opponent_model.MODEL_FILE).read_bytes()


def movers_views(seed: int, count: int):
    """The view of the seat to move in about ``count`` positions of random games."""
    return [seat_view(s, s.deal.to_move) for s in sampled_states(seed, count)]


def test_the_shipped_model_loads_offline_and_is_the_one_its_manifest_names():
    model = opponent_model.shipped_model()
    named = manifest()
    assert tuple(named["layout"]) == opponent_model.POSITION_LAYOUT
    assert tuple(named["action_layout"]) == ACTION_LAYOUT
    assert weights_digest(model.layers) == named["weights_sha256"]
    assert [list(weight.shape) for weight, _ in model.layers] == named["layers"]
    assert len(model_bytes()) <= 1_000_000
    for key in ("games", "decisions", "parts"):
        assert key in named["data"]
    assert "seed" in named["training"]


def test_damaged_weights_are_refused():
    with np.load(io.BytesIO(model_bytes())) as arrays:
        changed = {name: arrays[name].copy() for name in arrays.files}
    changed["w0"][0, 0] += 0.5
    buffer = io.BytesIO()
    np.savez(buffer, **changed)
    buffer.seek(0)
    with pytest.raises(ValueError, match="not the ones its manifest names"):
        opponent_model.read_model(buffer, manifest())


def test_a_model_of_other_inputs_is_refused():
    other = {**manifest(), "action_layout": [*ACTION_LAYOUT[1:], ACTION_LAYOUT[0]]}
    with pytest.raises(ValueError, match="another input layout"):
        opponent_model.read_model(io.BytesIO(model_bytes()), other)


def test_a_built_package_carries_the_model_files(tmp_path):
    """What a non-editable install copies (as the learned value's test checks for its own)."""
    subprocess.run(
        [
            sys.executable,
            "setup.py",
            "-q",
            "egg_info",
            "--egg-base",
            str(tmp_path),
            "build_py",
            "--build-lib",
            str(tmp_path / "lib"),
        ],
        cwd=REPO,
        env={**os.environ, "SCHNAPSEN_PURE_PYTHON": "1"},  # copy the sources, compile nothing
        check=True,
        capture_output=True,
    )
    for name in (opponent_model.MODEL_FILE, opponent_model.MANIFEST_FILE):
        built = tmp_path / "lib" / "service" / "bots" / name
        assert built.read_bytes() == (FOLDER / name).read_bytes(), name


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
