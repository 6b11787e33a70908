"""The learned value of a position: the game points a seat can expect from the deal.

A searching bot that stops at a trick's start while the talon is open needs
a value for what would follow; the expert plays the rest of the deal out to
find one. This model answers in microseconds instead: a small model (inputs ``features.LAYOUT`` -> tanh hidden layers, if
any -> ``OUTPUT_SCALE * tanh``) trained on expert self-play
(benchmarks/positions.py, tools/train_value.py; docs/value-model.md).

- ``value(deal, seat, game_points)``: one position, a float in game points
  for ``seat`` (positive: it expects to win the deal), within
  [-``OUTPUT_SCALE``, ``OUTPUT_SCALE``];
- ``values(deals, seat, game_points)``: many positions of one search at once,
  one matrix product per layer (cheaper per position than ``value``);
- ``value_of_view(view)``: the same for a seat's ``SeatView``.

The weights ship in the package (``value_model.npz``, beside its manifest
``value_model.json``) and load on first use, offline, checked as every shipped
model is (``model_files``): the manifest's input layout must be
``features.LAYOUT`` and the weights the ones it names, so a model trained on
another encoding, or a damaged file, is refused rather than quietly misread.

One position's value is summed in Python when the model is linear (as the
shipped one is: a network with hidden layers did no better on held-out games),
by numpy otherwise; batches always by numpy: each the faster where it is
used (``benchmarks/value_cost.py``; docs/value-model.md, cost per call).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from operator import mul
from typing import Any

import numpy as np

from service.bots.features import LAYOUT, encode, encode_view
from service.bots.model_files import Layers, read_layers, shipped
from service.engine.core import FastDeal
from service.engine.knowledge import SeatView

#: The files in ``service/bots`` (package data).
MODEL_FILE = "value_model.npz"
MANIFEST_FILE = "value_model.json"
#: A deal is worth at most 3 game points either way (R9): the output is 3 * tanh(last layer).
OUTPUT_SCALE = 3.0


@dataclass(frozen=True, slots=True)
class ValueModel:
    """A network's layers, float32: hidden layers with tanh, then ``OUTPUT_SCALE * tanh``."""

    layers: Layers
    manifest: dict[str, Any]
    #: A network without hidden layers as Python floats (weights, bias), else None:
    #: ``value_of`` sums it in Python, faster than numpy for one position.
    linear: tuple[tuple[float, ...], float] | None = field(init=False)

    def __post_init__(self) -> None:
        linear = None
        if len(self.layers) == 1:
            weight, bias = self.layers[0]
            linear = (tuple(float(w) for w in weight[:, 0]), float(bias[0]))
        object.__setattr__(self, "linear", linear)

    def predict(self, inputs: np.ndarray) -> np.ndarray:
        """Values of a batch of encoded positions (rows of ``features.LAYOUT``)."""
        h = np.asarray(inputs, dtype=np.float32)
        for weight, bias in self.layers[:-1]:
            h = np.tanh(h @ weight + bias)
        weight, bias = self.layers[-1]
        return OUTPUT_SCALE * np.tanh((h @ weight + bias)[..., 0])

    def value_of(self, inputs: list[float]) -> float:
        """The value of one encoded position: ``predict``'s sums, less overhead.

        A linear model is summed in Python (``sum(map(mul, ...))`` runs in C, with no
        array to build); a network with hidden layers by numpy
        (docs/value-model.md, cost per call).
        """
        if self.linear is not None:
            weights, bias = self.linear
            return OUTPUT_SCALE * math.tanh(bias + sum(map(mul, inputs, weights)))
        return self.numpy_value_of(inputs)

    def numpy_value_of(self, inputs: list[float]) -> float:
        """The value of one encoded position, by numpy whatever the network."""
        h = np.array(inputs, dtype=np.float32)
        for weight, bias in self.layers[:-1]:
            h = np.tanh(h @ weight + bias)
        weight, bias = self.layers[-1]
        return OUTPUT_SCALE * math.tanh(float(h @ weight[:, 0] + bias[0]))


def read_model(model: Any, manifest: dict[str, Any]) -> ValueModel:
    """A model from an open ``.npz`` (path or binary file) and its manifest, checked."""
    layers = read_layers(
        model, manifest, name="value model", layouts={"layout": LAYOUT}, encoding="features.LAYOUT"
    )
    return ValueModel(layers, manifest)


@cache
def shipped_model() -> ValueModel:
    """The model in the package, loaded on first use (and once)."""
    return shipped(MODEL_FILE, MANIFEST_FILE, read_model)


def value(deal: FastDeal, seat: int, game_points: tuple[int, int]) -> float:
    """The game points ``seat`` can expect from the deal (negative: expects to lose), at a
    trick's start with the talon open; ``game_points`` as in ``GameState`` (seat 0's, seat
    1's). A win counts at most what the winner still needs, as the expert counts it."""
    return shipped_model().value_of(encode(deal, seat, game_points))


def values(deals: Sequence[FastDeal], seat: int, game_points: tuple[int, int]) -> list[float]:
    """``value`` of each deal, in one batch (cheaper per deal when there are many)."""
    if not deals:
        return []
    inputs = np.array([encode(deal, seat, game_points) for deal in deals], dtype=np.float32)
    return [float(v) for v in shipped_model().predict(inputs)]


def value_of_view(view: SeatView) -> float:
    """``value`` of the position a seat sees (its ``SeatView``)."""
    return shipped_model().value_of(encode_view(view))
