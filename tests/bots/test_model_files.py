"""The learned models' files (service/bots/model_files.py): weights read only as the manifest
beside them vouches for them, and only when they fit the inputs the code encodes; each shipped
model (the value, the opponent model) is the one its manifest names, refuses damage and other
inputs, and ships in the package."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from types import ModuleType

import numpy as np
import pytest

from service.bots import opponent_model, value_model
from service.bots.action_features import ACTION_LAYOUT
from service.bots.features import LAYOUT as VALUE_LAYOUT
from service.bots.model_files import (
    ModelRefusedError,
    layer_names,
    read_layers,
    weights_digest,
)
from tests.support.paths import REPO

FOLDER = REPO / "service" / "bots"
#: The made-up models' inputs.
LAYOUT = ("a", "b", "c")


@dataclass(frozen=True)
class Shipped:
    """A model that ships in the package: its module, the layouts its code encodes (by the
    manifest's key) and what its manifest must say of its data."""

    module: ModuleType
    layouts: dict[str, tuple[str, ...]]
    data_keys: tuple[str, ...]

    def manifest(self) -> dict:
        return json.loads((FOLDER / self.module.MANIFEST_FILE).read_text())

    def model_bytes(self) -> bytes:
        return (FOLDER / self.module.MODEL_FILE).read_bytes()


SHIPPED = {
    "value": Shipped(
        value_model,
        {"layout": VALUE_LAYOUT},
        ("seed", "games", "positions", "generator_version"),
    ),
    "opponent": Shipped(
        opponent_model,
        {"layout": opponent_model.POSITION_LAYOUT, "action_layout": ACTION_LAYOUT},
        ("games", "decisions", "parts"),
    ),
}
each_model = pytest.mark.parametrize("shipped", list(SHIPPED.values()), ids=list(SHIPPED))


def files(*shapes: tuple[int, int]) -> tuple[io.BytesIO, dict]:
    """A model of layers of ``shapes`` trained on ``LAYOUT``, and its manifest."""
    rng = np.random.default_rng(1)
    layers = [
        (rng.normal(size=shape).astype(np.float32), rng.normal(size=shape[1]).astype(np.float32))
        for shape in shapes
    ]
    arrays = {}
    for (w_name, b_name), (weight, bias) in zip(layer_names(len(layers)), layers, strict=True):
        arrays[w_name], arrays[b_name] = weight, bias
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    buffer.seek(0)
    manifest = {
        "layout": list(LAYOUT),
        "layers": [list(shape) for shape in shapes],
        "weights_sha256": weights_digest(layers),
    }
    return buffer, manifest


def read(model: io.BytesIO, manifest: dict):
    return read_layers(model, manifest, name="test model", layouts={"layout": LAYOUT}, encoding="T")


def test_weights_that_fit_their_inputs_are_read_as_written():
    model, manifest = files((3, 2), (2, 1))
    layers = read(model, manifest)
    assert [w.shape for w, _ in layers] == [(3, 2), (2, 1)]
    assert all(w.dtype == b.dtype == np.float32 for w, b in layers)
    assert weights_digest(layers) == manifest["weights_sha256"]


def test_a_first_layer_of_other_inputs_is_refused():
    with pytest.raises(ModelRefusedError, match="first layer does not take T's 3"):
        read(*files((2, 2), (2, 1)))


def test_a_last_layer_of_more_than_one_number_is_refused():
    with pytest.raises(ModelRefusedError, match="last layer must give one number"):
        read(*files((3, 2)))


def test_a_refusal_names_the_layout_that_differs():
    model, manifest = files((3, 1))
    with pytest.raises(ModelRefusedError, match=r"test model .* another input layout .*\(layout\)"):
        read(model, {**manifest, "layout": ["a", "c", "b"]})


@each_model
def test_each_shipped_model_loads_offline_and_is_the_one_its_manifest_names(shipped):
    model = shipped.module.shipped_model()
    named = shipped.manifest()
    for key, layout in shipped.layouts.items():
        assert tuple(named[key]) == layout
    assert weights_digest(model.layers) == named["weights_sha256"]
    assert [list(weight.shape) for weight, _ in model.layers] == named["layers"]
    assert model.layers[0][0].shape[0] == sum(len(layout) for layout in shipped.layouts.values())
    assert len(shipped.model_bytes()) <= 1_000_000
    for key in shipped.data_keys:
        assert key in named["data"]
    assert "seed" in named["training"]


@each_model
def test_damaged_weights_of_each_model_are_refused(shipped):
    with np.load(io.BytesIO(shipped.model_bytes())) as arrays:
        changed = {name: arrays[name].copy() for name in arrays.files}
    changed["w0"][0, 0] += 0.5
    buffer = io.BytesIO()
    np.savez(buffer, **changed)
    buffer.seek(0)
    with pytest.raises(ModelRefusedError, match="not the ones its manifest names"):
        shipped.module.read_model(buffer, shipped.manifest())


@each_model
def test_each_model_refuses_a_manifest_of_other_inputs(shipped):
    for key, layout in shipped.layouts.items():
        other = {**shipped.manifest(), key: [*layout[1:], layout[0]]}
        with pytest.raises(ModelRefusedError, match=rf"another input layout .*\({key}\)"):
            shipped.module.read_model(io.BytesIO(shipped.model_bytes()), other)


def test_a_built_package_carries_every_models_files(tmp_path):
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
    for shipped in SHIPPED.values():
        for name in (shipped.module.MODEL_FILE, shipped.module.MANIFEST_FILE):
            built = tmp_path / "lib" / "service" / "bots" / name
            assert built.read_bytes() == (FOLDER / name).read_bytes(), name
