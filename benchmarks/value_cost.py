"""The learned value's cost per call: numpy's sums against the same sums written in Python.

Run from the repository root::

    python benchmarks/value_cost.py [--positions 300] [--repeat 5]

On positions at a trick's start from random play, with the shipped model
(service/bots/value_model.py), the time per position of

- ``encode`` alone (service/bots/features.py);
- ``encode`` then numpy (float32 matrix products, tanh);
- ``encode`` then the same sums in plain Python: dense (``sum(map(mul, ...))``
  per unit), and a first layer that adds only the rows of the inputs that
  are not zero (most inputs are 0: cards);
- ``value`` as it ships (``ValueModel.value_of``: Python for a linear model);
- ``values``: batches of ``BATCH`` positions (one seat, one match score, as in one
  search), per position.

Each is the best of ``--repeat`` passes (the least disturbed by other work on
the machine). Every variant's values are checked against ``value``'s.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from operator import mul
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.bots import value_model  # noqa: E402
from service.bots.features import encode  # noqa: E402
from service.bots.self_play import SelfPlay  # noqa: E402
from service.engine import Variant, legal_actions  # noqa: E402
from service.engine.core import FastDeal  # noqa: E402

Position = tuple[FastDeal, int, tuple[int, int]]
#: Positions per ``values`` call.
BATCH = 50


def positions(count: int) -> list[Position]:
    """Trick starts with the talon open from games of random legal play (seeded)."""
    import random

    rng = random.Random(1)
    found: list[Position] = []
    while len(found) < count:
        variant = rng.choice(list(Variant))
        game = SelfPlay.seated(variant, rng)  # the one generator deals and chooses
        for turn in game.turns():
            deal = turn.deal
            if deal.lead_card is None and deal.talon_open:
                fast = FastDeal.from_engine(deal, variant)
                found.append((fast, rng.randrange(2), turn.state.game_points))
            game.play(rng.choice(legal_actions(turn.state)))
            if len(found) == count:
                break
    return found


def python_network() -> tuple[Callable[[list[float]], float], Callable[[list[float]], float]]:
    """The shipped network as plain Python lists: a dense and a sparse first layer."""
    layers = [
        ([[float(x) for x in row] for row in weight.tolist()], [float(x) for x in bias.tolist()])
        for weight, bias in value_model.shipped_model().layers
    ]
    columns = [[list(col) for col in zip(*rows, strict=True)] for rows, _ in layers]
    scale = value_model.OUTPUT_SCALE
    last = len(layers) - 1

    def on_from(index: int, sums: list[float]) -> float:
        """The network from layer ``index``'s sums on."""
        while index < last:
            h = [math.tanh(v) for v in sums]
            index += 1
            sums = [
                b + sum(map(mul, h, col))
                for col, b in zip(columns[index], layers[index][1], strict=True)
            ]
        return scale * math.tanh(sums[0])

    def dense(x: list[float]) -> float:
        sums = [b + sum(map(mul, x, col)) for col, b in zip(columns[0], layers[0][1], strict=True)]
        return on_from(0, sums)

    def sparse(x: list[float]) -> float:
        rows, bias = layers[0]
        sums = bias[:]
        width = len(sums)
        for i, a in enumerate(x):
            if a:
                row = rows[i]
                for j in range(width):
                    sums[j] += a * row[j]
        return on_from(0, sums)

    return dense, sparse


def best_of(repeat: int, run: Callable[[], object], count: int) -> float:
    """Microseconds per position, the best of ``repeat`` passes."""
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        run()
        times.append(time.perf_counter() - began)
    return min(times) * 1e6 / count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    found = positions(args.positions)
    model = value_model.shipped_model()
    sizes = " -> ".join(str(w.shape[0]) for w, _ in model.layers) + " -> 1"
    dense, sparse = python_network()
    inputs = [encode(deal, seat, points) for deal, seat, points in found]
    reference = [value_model.value(deal, seat, points) for deal, seat, points in found]
    for name, network in (("dense", dense), ("sparse", sparse)):
        worst = max(abs(network(x) - v) for x, v in zip(inputs, reference, strict=True))
        assert worst < 1e-4, f"the Python network ({name}) differs by {worst}"
    # A search asks for one seat at one match score: batches of ``BATCH`` deals.
    batches = [[d for d, _, _ in found[i : i + BATCH]] for i in range(0, len(found), BATCH)]
    rows = [
        ("encode alone", lambda: [encode(d, s, p) for d, s, p in found]),
        (
            "encode + numpy",
            lambda: [model.numpy_value_of(encode(d, s, p)) for d, s, p in found],
        ),
        (
            "encode + Python, dense",
            lambda: [dense(encode(d, s, p)) for d, s, p in found],
        ),
        (
            "encode + Python, sparse first layer",
            lambda: [sparse(encode(d, s, p)) for d, s, p in found],
        ),
        (
            f"value ({'Python' if model.linear else 'numpy'}: as shipped)",
            lambda: [value_model.value(d, s, p) for d, s, p in found],
        ),
        (
            f"values, batches of {BATCH} (numpy)",
            lambda: [value_model.values(deals, 0, (7, 7)) for deals in batches],
        ),
    ]
    print(f"Model {sizes}, {len(found)} positions, best of {args.repeat} passes:")
    for name, run in rows:
        print(f"  {name:<40} {best_of(args.repeat, run, len(found)):8.1f} µs per position")
    return 0


if __name__ == "__main__":
    sys.exit(main())
