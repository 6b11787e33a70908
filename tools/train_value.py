"""Train the learned value (service/bots/value_model.py) on expert self-play positions.

Run from the repository root::

    python tools/train_value.py --data /work/data/positions-seed1-700.npz --seed 1 \\
        --out service/bots/value_model.npz

numpy only. The model is asked for a deal's expected outcome at a trick's
start with the talon open, so it learns from the data's rows of that kind
(benchmarks/positions.py). Two labels estimate that expectation: the outcome
itself (unbiased, noisy) and the expert's search value (less noisy, but
biased by its playout policy); a candidate's target is ``w * outcome +
(1 - w) * search`` for ``w`` in ``TARGET_WEIGHTS``, its network one of
``ARCHITECTURES`` (linear, or tanh hidden layers).

Games are split, never positions (the positions of one game are alike): a
tenth of them, the test games, is set aside until the end. The rest is cut
into ``FOLDS`` folds; each candidate trains ``FOLDS`` times, each time
stopped at the epoch with the lowest error on the fold left out. Its
validation error is the mean over the folds of the mean squared error
against the *outcomes* (whatever it was trained on), beside the constant
that predicts the training outcomes' mean. The smallest network whose
excess error over the best candidate's is within one standard error (of
that excess, fold by fold) is kept, with its best target: a bigger network
must earn its cost per call. It is trained again on all the non-test games
for the median of its folds' epochs, and the test games give its error once.

Deterministic: a seeded generator, one BLAS thread, float64 training, so the
same data and seed give the same weights (and the same file, ``tools/npz.py``).
Written: the weights (float32) to ``--out`` and the manifest beside it
(``--out`` with ``.json``: the input layout, the data's description, the
seed, every candidate's errors and the weights' SHA-256). Printed: that
table and the training time.
"""

from __future__ import annotations

import os

# One BLAS thread: sums in a fixed order (the same weights every run), and the machine
# stays free for other work.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_name] = "1"

import argparse  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass, replace  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from service.bots.features import LAYOUT  # noqa: E402
from service.bots.model_files import weights_digest  # noqa: E402
from service.bots.value_model import OUTPUT_SCALE, ValueModel  # noqa: E402
from tools import training  # noqa: E402
from tools.training import Layers  # noqa: E402

#: Weights of the outcome in the target (the rest is the expert's search value).
TARGET_WEIGHTS = (0.0, 0.25, 0.5, 0.75, 1.0)
#: Hidden layers, smallest (cheapest per call) first.
ARCHITECTURES: tuple[tuple[int, ...], ...] = ((), (32,), (64, 32))
FOLDS = 5
TEST_SHARE = 0.1
#: Minibatches of 256 rows, at most 80 epochs, stopping when the validation error has not
#: improved for 10; Adam at a learning rate of 1e-3.
SCHEDULE = training.Schedule(batch=256, epochs=80, patience=10, adam=training.Adam(1e-3))
#: L2 penalty on the weight matrices (not the biases), per minibatch step.
WEIGHT_DECAY = 1e-3
#: The data's ``kind`` of a trick's start with the talon open (benchmarks/positions.py).
TRICK_START = 0


@dataclass(frozen=True)
class Data:
    """The rows the model learns from: the test games' rows, and folds of the others."""

    x: np.ndarray
    outcome: np.ndarray
    search: np.ndarray
    folds: tuple[np.ndarray, ...]
    test: np.ndarray
    description: dict

    @property
    def pool(self) -> np.ndarray:
        """Every row not of a test game."""
        return np.sort(np.concatenate(self.folds))


@dataclass(frozen=True)
class Candidate:
    """One network and target, scored across the folds against the outcomes."""

    hidden: tuple[int, ...]
    weight: float
    fold_mse: tuple[float, ...]
    fold_epochs: tuple[int, ...]

    @property
    def name(self) -> str:
        net = "linear" if not self.hidden else "mlp " + "-".join(map(str, self.hidden))
        return f"{net}, target {self.weight:.2f} outcome + {1 - self.weight:.2f} search"

    @property
    def mse(self) -> float:
        return statistics.fmean(self.fold_mse)

    @property
    def standard_error(self) -> float:
        return statistics.stdev(self.fold_mse) / len(self.fold_mse) ** 0.5


def load(path: Path, seed: int) -> Data:
    """The data's trick-start rows: test games set aside, the others in folds (by ``seed``)."""
    with training.recorded(path, {"layout": LAYOUT}, "value model") as data:
        keep = data["kind"] == TRICK_START
        x = data["features"][keep].astype(np.float64)
        outcome = data["outcome"][keep].astype(np.float64)
        search = data["search"][keep].astype(np.float64)
        games = data["game"][keep]
        description = {
            **training.described_run(
                path, data, ("seed", "games", "generator_version", "budget_ms")
            ),
            "rows": int(data["features"].shape[0]),
            "trick_start_rows": int(keep.sum()),
            "positions": int(data["mover"][keep].sum()),
        }
    # A forced first move has no search value: its outcome stands in.
    search = np.where(np.isnan(search), outcome, search)
    folds, test = training.split_by_game(games, seed, TEST_SHARE, FOLDS)
    return Data(x, outcome, search, folds, test, description)


def forward(layers: Layers, x: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """The outputs and every layer's input (for the gradient)."""
    inputs = []
    h = x
    for weight, bias in layers[:-1]:
        inputs.append(h)
        h = np.tanh(h @ weight + bias)
    inputs.append(h)
    weight, bias = layers[-1]
    return OUTPUT_SCALE * np.tanh((h @ weight + bias)[:, 0]), inputs


def gradient(layers: Layers, x: np.ndarray, target: np.ndarray) -> Layers:
    """The gradient of the mean squared error (plus the weight decay) by every array."""
    y, inputs = forward(layers, x)
    # d loss / d (last layer's sum): y = s * tanh(z), so dy/dz = s - y * y / s.
    delta = (2.0 / len(x) * (y - target) * (OUTPUT_SCALE - y * y / OUTPUT_SCALE))[:, None]
    grads: Layers = []
    for index in range(len(layers) - 1, -1, -1):
        weight, _ = layers[index]
        h = inputs[index]
        grads.append((h.T @ delta + WEIGHT_DECAY * weight, delta.sum(axis=0)))
        if index:
            delta = (delta @ weight.T) * (1.0 - h * h)  # h = tanh(previous sum)
    return grads[::-1]


def outcome_mse(layers: Layers, data: Data, rows: np.ndarray) -> float:
    """The error against the outcomes of ``rows``, as shipped: float32 weights through the
    loader's own sums."""
    model = ValueModel(tuple(training.shipped(layers)), {})
    return float(np.mean((model.predict(data.x[rows]) - data.outcome[rows]) ** 2))


def train(
    data: Data,
    rows: np.ndarray,
    target: np.ndarray,
    hidden: tuple[int, ...],
    seed: int,
    *,
    validation: np.ndarray | None = None,
    epochs: int = SCHEDULE.epochs,
) -> tuple[Layers, int, float]:
    """Adam on minibatches of ``rows``: with ``validation``, the epoch with the lowest error
    against its outcomes (stopping ``SCHEDULE.patience`` epochs after it); without,
    ``epochs`` epochs.

    The weights, their epoch, and their validation error (NaN without validation).
    """

    def step(layers: Layers, batch: np.ndarray) -> Layers:
        return gradient(layers, data.x[batch], target[batch])

    def error(layers: Layers) -> float:
        return outcome_mse(layers, data, validation)

    return training.train_network(
        [data.x.shape[1], *hidden, 1],
        rows,
        step,
        seed,
        replace(SCHEDULE, epochs=epochs),
        None if validation is None else error,
    )


def target_of(data: Data, weight: float) -> np.ndarray:
    return weight * data.outcome + (1.0 - weight) * data.search


def cross_validate(data: Data, hidden: tuple[int, ...], weight: float, seed: int) -> Candidate:
    """Train on all folds but one, stop and score on that one; each fold in turn."""
    target = target_of(data, weight)
    errors, epochs = [], []
    for index, held in enumerate(data.folds):
        rows = np.sort(np.concatenate([f for i, f in enumerate(data.folds) if i != index]))
        _, epoch, error = train(data, rows, target, hidden, seed, validation=held)
        errors.append(error)
        epochs.append(epoch)
    return Candidate(hidden, weight, tuple(errors), tuple(epochs))


def excess(candidate: Candidate, best: Candidate) -> tuple[float, float]:
    """How much worse than ``best`` a candidate is, fold by fold: the mean difference of
    the errors and its standard error (paired: both saw the same folds)."""
    if candidate is best:
        return 0.0, 0.0
    differences = [a - b for a, b in zip(candidate.fold_mse, best.fold_mse, strict=True)]
    return statistics.fmean(differences), statistics.stdev(differences) / len(differences) ** 0.5


def choose(candidates: list[Candidate]) -> Candidate:
    """The smallest network within one standard error of the best, with its best target."""
    best = min(candidates, key=lambda c: c.mse)
    for hidden in ARCHITECTURES:
        near = [
            c for c in candidates if c.hidden == hidden and excess(c, best)[0] <= excess(c, best)[1]
        ]
        if near:
            return min(near, key=lambda c: c.mse)
    return best


def constant_errors(data: Data) -> tuple[float, float, float]:
    """The constant (the training outcomes' mean): its value, fold-mean and test errors."""
    errors = []
    for index, held in enumerate(data.folds):
        rows = np.concatenate([f for i, f in enumerate(data.folds) if i != index])
        errors.append(float(np.mean((data.outcome[held] - data.outcome[rows].mean()) ** 2)))
    mean = float(data.outcome[data.pool].mean())
    test = float(np.mean((data.outcome[data.test] - mean) ** 2))
    return mean, statistics.fmean(errors), test


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="benchmarks/positions.py's .npz")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, required=True, help="the model's .npz")
    args = parser.parse_args(argv)
    began = time.perf_counter()
    data = load(args.data, args.seed)
    print(
        f"Data: {args.data} ({data.description['games']} games, seed "
        f"{data.description['seed']}): {len(data.x)} trick-start rows; "
        f"{len(data.pool)} in {FOLDS} folds, {len(data.test)} of test games"
    )
    candidates = [
        cross_validate(data, hidden, weight, args.seed)
        for hidden in ARCHITECTURES
        for weight in TARGET_WEIGHTS
    ]
    chosen = choose(candidates)
    epochs = round(statistics.median(chosen.fold_epochs))
    target = target_of(data, chosen.weight)
    layers, _, _ = train(data, data.pool, target, chosen.hidden, args.seed, epochs=epochs)
    test_mse = outcome_mse(layers, data, data.test)
    constant, constant_mse, constant_test = constant_errors(data)
    best = min(candidates, key=lambda c: c.mse)
    seconds = time.perf_counter() - began

    print(
        f"Validation: mean squared error against the outcomes, mean of {FOLDS} folds "
        "(± s.e.; then the excess over the best, ± its paired s.e.):"
    )
    print(f"  {'constant ' + format(constant, '+.3f'):<52} {constant_mse:.4f}")
    for c in candidates:
        mark = "  <- chosen" if c is chosen else ""
        more, error = excess(c, best)
        print(
            f"  {c.name:<52} {c.mse:.4f} ± {c.standard_error:.4f}   +{more:.4f} ± {error:.4f}{mark}"
        )
    print(
        f"Chosen: {chosen.name}, trained on every fold for {epochs} epochs: "
        f"test error {test_mse:.4f} (the constant's {constant_test:.4f})"
    )
    print(f"Training: {seconds:.0f} s")

    weights = training.shipped(layers)
    manifest = {
        "layout": list(LAYOUT),
        "layers": [list(weight.shape) for weight, _ in weights],
        "activation": "tanh",
        "output": f"{OUTPUT_SCALE:g} * tanh",
        "units": "game points for the seat (a win counts at most what the winner still needs)",
        "weights_sha256": weights_digest(weights),
        "data": data.description,
        "training": {
            "seed": args.seed,
            "rows": {"folds": [len(f) for f in data.folds], "test": len(data.test)},
            "chosen": chosen.name,
            "hidden": list(chosen.hidden),
            "outcome_weight": chosen.weight,
            "epochs": epochs,
            "test_mse": test_mse,
            "constant": {
                "value": constant,
                "validation_mse": constant_mse,
                "test_mse": constant_test,
            },
            "candidates": [
                {
                    "name": c.name,
                    "validation_mse": c.mse,
                    "standard_error": c.standard_error,
                    "excess_over_best": excess(c, best)[0],
                    "excess_standard_error": excess(c, best)[1],
                    "fold_epochs": list(c.fold_epochs),
                }
                for c in candidates
            ],
        },
    }
    training.write_model(args.out, weights, manifest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
