"""A learned model's files in the package: its weights beside a manifest that vouches for them.

Each model (value_model.py, opponent_model.py) ships two files in
``service/bots``: its weights, a ``.npz`` of float32 arrays ``w0, b0, w1, b1,
...`` (``layer_names``), and its manifest, a ``.json`` naming the inputs the
weights were trained on (one layout or more: the names of the input columns, in
order), the layers' shapes and the weights' SHA-256 (``weights_digest``). They
load offline, on first use, and checked (``read_layers``): a model trained on
another encoding, or damaged weights, are refused with ``ModelRefusedError``
rather than quietly misread. The trainers (tools/) write both files with the
same two functions.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from typing import IO, Any, TypeVar

import numpy as np

#: A network's layers: each its weight matrix (inputs x outputs) and its bias, float32.
Layers = tuple[tuple[np.ndarray, np.ndarray], ...]
Model = TypeVar("Model")


class ModelRefusedError(ValueError):
    """A model's files do not hold what its code reads: another encoding, or damage."""


def weights_digest(layers: Sequence[tuple[np.ndarray, np.ndarray]]) -> str:
    """The SHA-256 of the weights as shipped: each layer's matrix then bias, float32,
    little-endian, row-major. The manifest records it; ``read_layers`` checks it."""
    digest = hashlib.sha256()
    for weight, bias in layers:
        for array in (weight, bias):
            digest.update(np.ascontiguousarray(array, dtype="<f4").tobytes())
    return digest.hexdigest()


def layer_names(count: int) -> list[tuple[str, str]]:
    """The names of the arrays of ``count`` layers in the model file: (w0, b0), (w1, b1), ..."""
    return [(f"w{i}", f"b{i}") for i in range(count)]


def read_layers(
    model: Any,
    manifest: Mapping[str, Any],
    *,
    name: str,
    layouts: Mapping[str, tuple[str, ...]],
    encoding: str,
) -> Layers:
    """The layers of ``model`` (an ``.npz``: a path or an open binary file), checked against
    its ``manifest``: each of ``layouts`` (the manifest's key, the columns the code encodes,
    ``encoding`` naming them in a refusal) as the manifest records it, the weights the ones
    it names, a first layer that takes those columns and a last layer that gives one
    number. ``name`` says which model a refusal is about."""
    for key, layout in layouts.items():
        if tuple(manifest[key]) != layout:
            raise ModelRefusedError(
                f"the {name} was trained on another input layout than {encoding} ({key})"
            )
    with np.load(model, allow_pickle=False) as arrays:
        layers = tuple(
            (arrays[w].astype(np.float32), arrays[b].astype(np.float32))
            for w, b in layer_names(len(manifest["layers"]))
        )
    if weights_digest(layers) != manifest["weights_sha256"]:
        raise ModelRefusedError(f"the {name}'s weights are not the ones its manifest names")
    inputs = sum(len(layout) for layout in layouts.values())
    if layers[0][0].shape[0] != inputs:
        raise ModelRefusedError(f"the {name}'s first layer does not take {encoding}'s {inputs}")
    if layers[-1][0].shape[1] != 1:
        raise ModelRefusedError(f"the {name}'s last layer must give one number")
    return layers


def shipped(
    model_file: str, manifest_file: str, read: Callable[[IO[bytes], dict[str, Any]], Model]
) -> Model:
    """The model whose files ship in ``service/bots``, as ``read`` makes it of them."""
    folder = resources.files("service.bots")
    manifest = json.loads(folder.joinpath(manifest_file).read_text())
    with folder.joinpath(model_file).open("rb") as model:
        return read(model, manifest)
