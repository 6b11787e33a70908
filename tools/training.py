"""What the trainers of the bots' models share: their data, games set aside, weights, Adam,
early stopping, the files they write.

``tools/train_value.py`` (the learned value) and ``tools/train_opponent.py``
(the opponent model) learn small networks on self-play the same way; each
supplies only what it reads of the data, its loss (``gradient``), its
validation error (``score``) and its manifest:

- ``recorded``: a recorder's file (benchmarks/positions.py,
  benchmarks/decisions.py), refused unless written for the model's inputs;
  ``described_run``: what the file says of the run that wrote it;
- ``split_by_game``: rows of whole games set aside for the test, the other
  games in folds, so no game is on both sides of a split (positions of one
  game are alike);
- ``train_network``: Glorot-uniform matrices and zero biases (``initial``),
  then Adam on shuffled minibatches (``fit``), keeping the epoch with the
  lowest validation error and stopping ``patience`` epochs after it, as a
  ``Schedule`` says;
- ``shipped`` and ``write_model``: the weights as float32, written beside their
  manifest (service/bots/model_files.py reads them back).

Deterministic: every draw comes from the one generator the caller seeds, in a
fixed order (the initial weights, then each epoch's shuffle), and the
trainers run numpy on one BLAS thread, so the same data and seed give the
same weights.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from service.bots.model_files import layer_names
from tools.npz import write_npz

Layers = list[tuple[np.ndarray, np.ndarray]]
#: What a recorder's file says of its run: the manifest's name of each, and the array's.
RUN_FIELDS = {
    "seed": "seed",
    "first_game": "first_game",
    "games": "games",
    "budget_ms": "budget_ms",
    "generator_version": "version",
}


@dataclass(frozen=True)
class Adam:
    """Adam's settings (Kingma and Ba), the usual defaults but the learning rate."""

    learning_rate: float = 1e-3
    beta1: float = 0.9
    beta2: float = 0.999
    epsilon: float = 1e-8


@dataclass(frozen=True)
class Schedule:
    """How a network is fitted: minibatches of ``batch`` units, at most ``epochs`` epochs,
    stopping ``patience`` epochs after the best validation error, by ``adam``."""

    batch: int
    epochs: int
    patience: int = 0
    adam: Adam = field(default_factory=Adam)


@contextmanager
def recorded(path: Path, layouts: Mapping[str, tuple[str, ...]], model: str) -> Iterator[Any]:
    """The arrays of a recorder's ``.npz``, once each of ``layouts`` (the array's name, the
    columns the model encodes) is as the file records it: a file written for other inputs
    stops the trainer, saying so (``model`` names whose inputs they are)."""
    with np.load(path, allow_pickle=False) as data:
        for key, layout in layouts.items():
            if tuple(str(name) for name in data[key]) != layout:
                raise SystemExit(f"{path}: its {key} is not the {model}'s; generate it again")
        yield data


def described_run(path: Path, data: Any, fields: Sequence[str]) -> dict[str, Any]:
    """The run that wrote ``path`` as a manifest records it: the file's name, then ``fields``
    (names of ``RUN_FIELDS``) in that order."""
    return {"file": path.name, **{name: int(data[RUN_FIELDS[name]]) for name in fields}}


def split_by_game(
    games: np.ndarray, seed: int, test_share: float, folds: int
) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
    """The rows of each fold, and the rows of the test games: the games in an order drawn
    from ``seed``, the first ``test_share`` of them for the test, the rest in ``folds``."""
    order = np.random.default_rng(seed).permutation(np.unique(games))
    held = round(test_share * len(order))
    parts = [order[:held], *np.array_split(order[held:], folds)]
    part = {int(game): i for i, chunk in enumerate(parts) for game in chunk}
    which = np.array([part[int(game)] for game in games])
    rows = [np.flatnonzero(which == i) for i in range(len(parts))]
    return tuple(rows[1:]), rows[0]


def initial(sizes: list[int], rng: np.random.Generator) -> Layers:
    """Glorot-uniform matrices, zero biases."""
    layers = []
    for fan_in, fan_out in zip(sizes, sizes[1:], strict=False):
        limit = np.sqrt(6.0 / (fan_in + fan_out))
        layers.append((rng.uniform(-limit, limit, (fan_in, fan_out)), np.zeros(fan_out)))
    return layers


def copied(layers: Layers) -> Layers:
    return [(w.copy(), b.copy()) for w, b in layers]


def train_network(
    sizes: list[int],
    units: np.ndarray,
    gradient: Callable[[Layers, np.ndarray], Layers],
    seed: int,
    schedule: Schedule,
    score: Callable[[Layers], float] | None = None,
) -> tuple[Layers, int, float]:
    """A network of ``sizes`` (inputs, hidden layers, outputs) fitted from ``seed``: its
    initial weights, then every epoch's shuffle, drawn from one generator in that order."""
    rng = np.random.default_rng(seed)
    return fit(initial(sizes, rng), units, gradient, rng, schedule, score)


def fit(
    layers: Layers,
    units: np.ndarray,
    gradient: Callable[[Layers, np.ndarray], Layers],
    rng: np.random.Generator,
    schedule: Schedule,
    score: Callable[[Layers], float] | None = None,
) -> tuple[Layers, int, float]:
    """Adam on minibatches of ``units`` (the rows, or the decisions, ``gradient`` is given
    a batch of), reshuffled by ``rng`` every epoch.

    With ``score`` (a validation error, lower is better): the layers of the epoch with the
    lowest score (epoch 0: the initial layers), stopping ``schedule.patience`` epochs after
    it. Without: the layers after ``schedule.epochs`` epochs. The layers, their epoch and
    their score (NaN without ``score``).
    """
    adam = schedule.adam
    moments = [[np.zeros_like(w), np.zeros_like(b)] for w, b in layers]
    squares = [[np.zeros_like(w), np.zeros_like(b)] for w, b in layers]
    beta1, beta2 = adam.beta1, adam.beta2
    best = (float("nan"), 0, layers)
    if score is not None:
        best = (score(layers), 0, copied(layers))
    step = 0
    for epoch in range(1, schedule.epochs + 1):
        order = units[rng.permutation(len(units))]
        for start in range(0, len(order), schedule.batch):
            step += 1
            grads = gradient(layers, order[start : start + schedule.batch])
            for i, pair in enumerate(grads):
                updated = []
                for j, g in enumerate(pair):
                    m, v = moments[i][j], squares[i][j]
                    m *= beta1
                    m += (1 - beta1) * g
                    v *= beta2
                    v += (1 - beta2) * g * g
                    m_hat = m / (1 - beta1**step)
                    v_hat = v / (1 - beta2**step)
                    updated.append(
                        layers[i][j] - adam.learning_rate * m_hat / (np.sqrt(v_hat) + adam.epsilon)
                    )
                layers[i] = (updated[0], updated[1])
        if score is None:
            best = (float("nan"), epoch, layers)
            continue
        error = score(layers)
        if error < best[0]:
            best = (error, epoch, copied(layers))
        elif epoch - best[1] >= schedule.patience:
            break
    return best[2], best[1], best[0]


def shipped(layers: Layers) -> Layers:
    """The weights as the file stores them (float32)."""
    return [(w.astype(np.float32), b.astype(np.float32)) for w, b in layers]


def write_model(out: Path, weights: Layers, manifest: Mapping[str, Any]) -> None:
    """The weights (``shipped``) to ``out``, by layer name, and the manifest beside them
    (``out`` with ``.json``), as service/bots/model_files.py reads them; says where."""
    arrays: dict[str, np.ndarray] = {}
    for (w_name, b_name), (weight, bias) in zip(layer_names(len(weights)), weights, strict=True):
        arrays[w_name] = weight
        arrays[b_name] = bias
    write_npz(out, arrays)
    manifest_path = out.with_suffix(".json")
    manifest_path.write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"Written: {out} ({out.stat().st_size} bytes) and {manifest_path}")
