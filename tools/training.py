"""What the trainers of the bots' models share: games set aside, weights, Adam, early stopping.

``tools/train_value.py`` (the learned value) and ``tools/train_opponent.py``
(the opponent model) learn small networks on self-play the same way; each
supplies only its loss (``gradient``) and its validation error (``score``):

- ``split_by_game``: rows of whole games set aside for the test, the other
  games in folds, so no game is on both sides of a split (positions of one
  game are alike);
- ``initial``: Glorot-uniform matrices, zero biases;
- ``fit``: Adam on shuffled minibatches, keeping the epoch with the lowest
  validation error and stopping ``patience`` epochs after it.

Deterministic: every draw comes from the one generator the caller seeds, in a
fixed order (the initial weights, then each epoch's shuffle), and the
trainers run numpy on one BLAS thread, so the same data and seed give the
same weights.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

Layers = list[tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class Adam:
    """Adam's settings (Kingma and Ba), the usual defaults but the learning rate."""

    learning_rate: float = 1e-3
    beta1: float = 0.9
    beta2: float = 0.999
    epsilon: float = 1e-8


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


def fit(
    layers: Layers,
    units: np.ndarray,
    gradient: Callable[[Layers, np.ndarray], Layers],
    rng: np.random.Generator,
    *,
    batch: int,
    epochs: int,
    score: Callable[[Layers], float] | None = None,
    patience: int = 0,
    adam: Adam = Adam(),
) -> tuple[Layers, int, float]:
    """Adam on minibatches of ``units`` (the rows, or the decisions, ``gradient`` is given
    a batch of), reshuffled by ``rng`` every epoch.

    With ``score`` (a validation error, lower is better): the layers of the epoch with the
    lowest score (epoch 0: the initial layers), stopping ``patience`` epochs after it.
    Without: the layers after ``epochs`` epochs. The layers, their epoch and their score
    (NaN without ``score``).
    """
    moments = [[np.zeros_like(w), np.zeros_like(b)] for w, b in layers]
    squares = [[np.zeros_like(w), np.zeros_like(b)] for w, b in layers]
    beta1, beta2 = adam.beta1, adam.beta2
    best = (float("nan"), 0, layers)
    if score is not None:
        best = (score(layers), 0, copied(layers))
    step = 0
    for epoch in range(1, epochs + 1):
        order = units[rng.permutation(len(units))]
        for start in range(0, len(order), batch):
            step += 1
            grads = gradient(layers, order[start : start + batch])
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
        elif epoch - best[1] >= patience:
            break
    return best[2], best[1], best[0]
