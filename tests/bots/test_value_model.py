"""The shipped learned value (service/bots/value_model.py): the model its manifest names,
on the inputs it was trained on, blind to what its seat cannot see, within a deal's stakes."""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys

import numpy as np
import pytest

from service.bots import value_model
from service.bots.features import LAYOUT, encode
from service.bots.model_files import weights_digest
from service.engine.core import FastDeal
from service.engine.knowledge import seat_view
from tests.support.paths import REPO
from tests.support.positions import permuted, sampled_states

FOLDER = REPO / "service" / "bots"


def manifest() -> dict:
    return json.loads((FOLDER / value_model.MANIFEST_FILE).read_text())


def model_bytes() -> bytes:
    return (FOLDER / value_model.MODEL_FILE).read_bytes()


def test_the_shipped_model_loads_and_is_the_one_its_manifest_names():
    model = value_model.shipped_model()
    named = manifest()
    assert tuple(named["layout"]) == LAYOUT
    assert weights_digest(model.layers) == named["weights_sha256"]
    assert [list(weight.shape) for weight, _ in model.layers] == named["layers"]
    assert model.layers[0][0].shape[0] == len(LAYOUT)
    assert len(model_bytes()) <= 1_000_000
    for key in ("seed", "games", "positions", "generator_version"):
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
        value_model.read_model(buffer, manifest())


def test_a_model_of_another_layout_is_refused():
    other = {**manifest(), "layout": [*LAYOUT[1:], LAYOUT[0]]}
    with pytest.raises(ValueError, match="another input layout"):
        value_model.read_model(io.BytesIO(model_bytes()), other)


def test_a_built_package_carries_the_model_files(tmp_path):
    """What a non-editable install copies: setuptools' ``build_py`` with the package data,
    listed afresh (``egg_info`` into ``tmp_path``: the checkout's own list, left by an
    editable install, would name the files whatever pyproject.toml declares)."""
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
    for name in (value_model.MODEL_FILE, value_model.MANIFEST_FILE):
        built = tmp_path / "lib" / "service" / "bots" / name
        assert built.read_bytes() == (FOLDER / name).read_bytes(), name


def test_values_lie_within_a_deals_stakes_and_batches_agree():
    """R9: a deal is worth at most 3 game points either way; ``values`` is ``value`` batched."""
    states = [s for s in sampled_states(21, 600) if s.deal.lead_card is None]
    assert len(states) > 150
    for seat in (0, 1):
        deals = [FastDeal.from_engine(s.deal, s.variant) for s in states]
        batch = value_model.values(deals, seat, (4, 6))
        single = [value_model.value(deal, seat, (4, 6)) for deal in deals]
        assert np.allclose(batch, single, atol=1e-5)
        assert all(-3.0 <= v <= 3.0 for v in single)
        assert len(set(single)) > len(single) // 2  # not a constant
    assert value_model.values([], 0, (7, 7)) == []


def test_r11_the_value_ignores_the_cards_its_seat_cannot_see():
    """The opponent's unknown cards and the talon shuffled among themselves (R11b): the same
    value; a view's value is its deal's."""
    rng = random.Random(5)
    compared = 0
    for state in sampled_states(22, 500):
        for seat in (0, 1):
            moved = permuted(state, seat, rng)
            here = value_model.value(
                FastDeal.from_engine(state.deal, state.variant), seat, state.game_points
            )
            there = value_model.value(
                FastDeal.from_engine(moved.deal, moved.variant), seat, moved.game_points
            )
            assert here == there == value_model.value_of_view(seat_view(state, seat))
            compared += 1
    assert compared == 1000


def test_the_value_reads_the_match_score():
    """The same cards are worth less to a seat that needs one game point than to one that
    needs three (a deal wins at most what the winner still needs: R10a)."""
    states = [s for s in sampled_states(23, 400) if s.deal.lead_card is None]
    deals = [FastDeal.from_engine(s.deal, s.variant) for s in states]
    inputs = np.array([encode(deal, 0, (7, 7)) for deal in deals])
    near_end = np.array([encode(deal, 0, (1, 1)) for deal in deals])
    model = value_model.shipped_model()
    assert np.mean(np.abs(model.predict(near_end))) < np.mean(np.abs(model.predict(inputs)))
