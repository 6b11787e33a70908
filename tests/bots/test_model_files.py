"""The learned models' files (service/bots/model_files.py): weights read only as the manifest
beside them vouches for them, and only when they fit the inputs the code encodes."""

from __future__ import annotations

import io

import numpy as np
import pytest

from service.bots.model_files import (
    ModelRefusedError,
    layer_names,
    read_layers,
    weights_digest,
)

LAYOUT = ("a", "b", "c")


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
