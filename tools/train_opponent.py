"""Train the opponent model (service/bots/opponent_model.py) on expert self-play decisions.

Run from the repository root::

    python tools/train_opponent.py --data /work/data/decisions-seed1-*.npz --seed 1 \\
        --out service/bots/opponent_model.npz

The data is benchmarks/decisions.py's (one file or several parts of one run).
The games are split whole (``tools.training.split_by_game``): a tenth for the
test, a tenth to choose the network and its epoch, the rest to train on. Each
candidate (a linear scorer, then tanh networks of 16, 32 and 64 hidden units) is
trained by Adam on the mean log-loss of the action taken (a softmax over each
decision's legal actions), keeping its epoch of lowest validation log-loss;
the candidate with the lowest is kept and scored once on the test games, as
shipped (float32 weights through ``OpponentModel.distribution``), beside

- the ``heuristic`` level's choice as a predictor: its top-1 accuracy, and its
  log-loss as a smoothed one-hot (1 - e on its choice, e spread evenly over the
  legal actions, e fitted on the training games);
- a uniform choice among the legal actions.

Deterministic: a seeded generator, one BLAS thread, float64 training, so the
same data and seed give the same weights (and the same file, ``tools/npz.py``).
Written: the weights (float32) to ``--out`` and the manifest beside it (the
layouts, the data's description, every candidate's figures, the test figures
and the weights' SHA-256). Printed: those figures and the training time.
"""

from __future__ import annotations

import os

# One BLAS thread: sums in a fixed order (the same weights every run), and the machine
# stays free for other work.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_name] = "1"

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from service.bots.action_features import ACTION_LAYOUT  # noqa: E402
from service.bots.model_files import weights_digest  # noqa: E402
from service.bots.opponent_model import POSITION_LAYOUT, OpponentModel  # noqa: E402
from tools import training  # noqa: E402
from tools.training import Layers  # noqa: E402

#: Hidden layers of the candidates, smallest first.
ARCHITECTURES: tuple[tuple[int, ...], ...] = ((), (16,), (32,), (64,))
TEST_SHARE = 0.1
#: The games not set aside for the test, in this many parts: one validates, the rest train.
PARTS = 9
#: Minibatches of 256 decisions, at most 40 epochs, stopping when the validation log-loss
#: has not improved for 4; Adam at a learning rate of 3e-3.
SCHEDULE = training.Schedule(batch=256, epochs=40, patience=4, adam=training.Adam(3e-3))
#: L2 penalty on the weight matrices (not the biases), per minibatch step.
WEIGHT_DECAY = 1e-5
#: The heuristic predictor's smoothing, tried in these steps.
SMOOTHING = tuple(i / 100 for i in range(1, 100))


@dataclass(frozen=True)
class Decisions:
    """Every decision: the position's inputs, its legal actions' rows, the action taken."""

    position: np.ndarray  # (decisions, position inputs)
    actions: np.ndarray  # (legal actions, action inputs)
    first: np.ndarray  # each decision's first row in ``actions``, then the total
    taken: np.ndarray  # the index of the action taken among the decision's
    heuristic: np.ndarray  # the index of the heuristic's choice
    game: np.ndarray
    follows: np.ndarray
    talon_open: np.ndarray
    description: dict

    @property
    def sizes(self) -> np.ndarray:
        return np.diff(self.first)


def load(paths: list[Path]) -> Decisions:
    """The decisions of every file, in order (parts of one run: the same seed and budget)."""
    parts: dict[str, list[np.ndarray]] = {}
    described = []
    offset = 0
    layouts = {"layout": POSITION_LAYOUT, "action_layout": ACTION_LAYOUT}
    run = ("seed", "first_game", "games", "budget_ms", "generator_version")
    for path in paths:
        with training.recorded(path, layouts, "opponent model") as data:
            for name in ("position", "actions", "taken", "heuristic", "game", "follows"):
                parts.setdefault(name, []).append(data[name])
            parts.setdefault("talon_open", []).append(data["talon_open"])
            parts.setdefault("first", []).append(data["first"][:-1] + offset)
            offset += int(data["first"][-1])
            described.append(
                {
                    **training.described_run(path, data, run),
                    "decisions": int(len(data["taken"])),
                    "forced": int(data["forced"]),
                }
            )
    joined = {name: np.concatenate(arrays) for name, arrays in parts.items()}
    first = np.append(joined.pop("first"), offset).astype(np.int64)
    description = {
        "parts": described,
        "games": sum(d["games"] for d in described),
        "decisions": sum(d["decisions"] for d in described),
        "forced": sum(d["forced"] for d in described),
        "legal_actions": int(offset),
    }
    return Decisions(
        position=joined["position"].astype(np.float64),
        actions=joined["actions"].astype(np.float64),
        first=first,
        taken=joined["taken"].astype(np.int64),
        heuristic=joined["heuristic"].astype(np.int64),
        game=joined["game"],
        follows=joined["follows"].astype(bool),
        talon_open=joined["talon_open"].astype(bool),
        description=description,
    )


@dataclass(frozen=True)
class Batch:
    """Some decisions' rows: ``owner`` maps each action row to its decision in the batch."""

    position: np.ndarray
    actions: np.ndarray
    starts: np.ndarray
    owner: np.ndarray
    chosen: np.ndarray  # the rows of the actions taken


def batch_of(data: Decisions, units: np.ndarray) -> Batch:
    sizes = data.sizes[units]
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    owner = np.repeat(np.arange(len(units)), sizes)
    rows = data.first[units][owner] + (np.arange(len(owner)) - starts[owner])
    return Batch(
        data.position[units], data.actions[rows], starts, owner, starts + data.taken[units]
    )


def forward(layers: Layers, batch: Batch) -> tuple[np.ndarray, list[np.ndarray]]:
    """Each row's log-probability within its decision, and every hidden layer's output."""
    weight, bias = layers[0]
    width = batch.position.shape[1]
    z = batch.actions @ weight[width:] + (batch.position @ weight[:width] + bias)[batch.owner]
    hidden = []
    for weight, bias in layers[1:]:
        h = np.tanh(z)
        hidden.append(h)
        z = h @ weight + bias
    z = z[:, 0]
    top = np.maximum.reduceat(z, batch.starts)[batch.owner]
    shifted = z - top
    total = np.add.reduceat(np.exp(shifted), batch.starts)[batch.owner]
    return shifted - np.log(total), hidden


def gradient(layers: Layers, batch: Batch) -> Layers:
    """The gradient of the batch's mean log-loss (plus the weight decay) by every array."""
    log_p, hidden = forward(layers, batch)
    delta = np.exp(log_p)
    delta[batch.chosen] -= 1.0
    delta = (delta / len(batch.starts))[:, None]
    grads: Layers = []
    for index in range(len(layers) - 1, 0, -1):
        weight, _ = layers[index]
        h = hidden[index - 1]
        grads.append((h.T @ delta + WEIGHT_DECAY * weight, delta.sum(axis=0)))
        delta = (delta @ weight.T) * (1.0 - h * h)
    weight, _ = layers[0]
    by_decision = np.add.reduceat(delta, batch.starts, axis=0)
    first = np.vstack([batch.position.T @ by_decision, batch.actions.T @ delta])
    grads.append((first + WEIGHT_DECAY * weight, delta.sum(axis=0)))
    return grads[::-1]


def log_loss(layers: Layers, data: Decisions, units: np.ndarray) -> float:
    """The mean log-loss of the actions taken in ``units`` (float64, for training)."""
    batch = batch_of(data, units)
    log_p, _ = forward(layers, batch)
    return float(-log_p[batch.chosen].mean())


def train(data: Decisions, rows: np.ndarray, valid: np.ndarray, hidden: tuple[int, ...], seed: int):
    """A candidate at its epoch of lowest validation log-loss: layers, epoch, log-loss."""

    def step(layers: Layers, units: np.ndarray) -> Layers:
        return gradient(layers, batch_of(data, units))

    def error(layers: Layers) -> float:
        return log_loss(layers, data, valid)

    sizes = [data.position.shape[1] + data.actions.shape[1], *hidden, 1]
    return training.train_network(sizes, rows, step, seed, SCHEDULE, error)


@dataclass(frozen=True)
class Figures:
    """A predictor's top-1 accuracy and mean log-loss over some decisions."""

    accuracy: float
    log_loss: float

    def as_dict(self) -> dict[str, float]:
        return {"top1_accuracy": self.accuracy, "log_loss": self.log_loss}


def model_figures(model: OpponentModel, data: Decisions, units: np.ndarray) -> Figures:
    """The shipped model's figures: each decision through ``OpponentModel.distribution``."""
    hits, losses = [], []
    for unit in units:
        rows = slice(data.first[unit], data.first[unit + 1])
        odds = model.distribution(data.position[unit], data.actions[rows])
        hits.append(int(np.argmax(odds)) == data.taken[unit])
        losses.append(-np.log(odds[data.taken[unit]]))
    return Figures(float(np.mean(hits)), float(np.mean(losses)))


def heuristic_figures(data: Decisions, units: np.ndarray, smoothing: float) -> Figures:
    """The heuristic's choice as a predictor, its one-hot smoothed by ``smoothing``."""
    hit = data.heuristic[units] == data.taken[units]
    spread = smoothing / data.sizes[units]
    p = np.where(hit, 1.0 - smoothing + spread, spread)
    return Figures(float(hit.mean()), float(-np.log(p).mean()))


def uniform_figures(data: Decisions, units: np.ndarray) -> Figures:
    sizes = data.sizes[units]
    return Figures(float(np.mean(1.0 / sizes)), float(np.mean(np.log(sizes))))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, nargs="+", required=True, help="decisions .npz")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, required=True, help="the model's .npz")
    args = parser.parse_args(argv)
    began = time.perf_counter()
    data = load(args.data)
    parts, test = training.split_by_game(data.game, args.seed, TEST_SHARE, PARTS)
    valid = parts[0]
    rows = np.sort(np.concatenate(parts[1:]))
    d = data.description
    print(
        f"Data: {d['games']} games, {d['decisions']} decisions with a choice "
        f"({d['legal_actions'] / d['decisions']:.2f} legal actions a decision; "
        f"{d['forced']} forced not kept): {len(rows)} to train on, {len(valid)} to "
        f"validate, {len(test)} of test games"
    )
    candidates = []
    for hidden in ARCHITECTURES:
        layers, epoch, loss = train(data, rows, valid, hidden, args.seed)
        name = "linear" if not hidden else "mlp " + "-".join(map(str, hidden))
        size = sum(w.size + b.size for w, b in layers)
        candidates.append((loss, name, hidden, epoch, size, layers))
        print(
            f"  {name:<8} validation log-loss {loss:.4f} at epoch {epoch}, {size} weights",
            flush=True,
        )
    loss, name, hidden, epoch, size, layers = min(candidates, key=lambda c: c[0])
    weights = training.shipped(layers)
    model = OpponentModel(tuple(weights), {})
    smoothing = min(SMOOTHING, key=lambda e: heuristic_figures(data, rows, e).log_loss)
    groups = {
        "all": test,
        "leading": test[~data.follows[test]],
        "following": test[data.follows[test]],
        "talon_open": test[data.talon_open[test]],
        "talon_shut": test[~data.talon_open[test]],
    }
    table = {
        group: {
            "decisions": len(units),
            "model": model_figures(model, data, units).as_dict(),
            "heuristic": heuristic_figures(data, units, smoothing).as_dict(),
            "uniform": uniform_figures(data, units).as_dict(),
        }
        for group, units in groups.items()
    }
    seconds = time.perf_counter() - began
    print(f"Chosen: {name} (epoch {epoch}); the heuristic's smoothing {smoothing:.2f}")
    print("Test games (top-1 accuracy, log-loss): model | heuristic | uniform")
    for group, figures in table.items():
        cells = " | ".join(
            f"{figures[who]['top1_accuracy']:.3f}, {figures[who]['log_loss']:.3f}"
            for who in ("model", "heuristic", "uniform")
        )
        print(f"  {group:<11} {figures['decisions']:>6}  {cells}")
    print(f"Training: {seconds:.0f} s")

    manifest = {
        "layout": list(POSITION_LAYOUT),
        "action_layout": list(ACTION_LAYOUT),
        "layers": [list(weight.shape) for weight, _ in weights],
        "activation": "tanh",
        "output": "the action's score; a softmax over the legal actions",
        "weights_sha256": weights_digest(weights),
        "data": data.description,
        "training": {
            "seed": args.seed,
            "decisions": {"train": len(rows), "validation": len(valid), "test": len(test)},
            "chosen": name,
            "hidden": list(hidden),
            "epoch": epoch,
            "weights": size,
            "candidates": [
                {"name": c[1], "validation_log_loss": c[0], "epoch": c[3], "weights": c[4]}
                for c in candidates
            ],
            "heuristic_smoothing": smoothing,
            "test": table,
        },
    }
    training.write_model(args.out, weights, manifest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
