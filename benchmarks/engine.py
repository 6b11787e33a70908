"""Speed of the rules engine: random-vs-random deals and games per second.

Run from the repository root::

    python benchmarks/engine.py [--seconds S] [--warmup W] [--seed N] [--baseline REV]

Everything goes through the public API only (``new_game``, ``take_seat``,
``start_deal``, ``legal_actions``, ``apply``), in one process, one core.
Each figure is the number of complete deals (or games) finished in a fixed
wall time (``--seconds``, default 3) after a short warm-up, divided by the
time they took. The time includes shuffling each deck (``random.sample``) and
choosing each action (``random.Random.choice`` over ``legal_actions``), so it
is what a random playout costs, for example in a bot's Monte Carlo search.

``--baseline REV`` also runs this benchmark as it was at git revision REV (its
own engine, from ``git archive``, in a subprocess) before and after this
checkout's run, and prints both with their ratios: the machine is shared,
so only figures of one run are compared.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

# The repository root first: measure the engine of this checkout, whether or
# not (and wherever) the package is installed.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# core: the search core, measured in its own section below (compiled, or run from source).
from service.engine import (  # noqa: E402
    DECK,
    GameState,
    Variant,
    apply,
    core,
    legal_actions,
    native,
    new_game,
    start_deal,
    take_seat,
)
from service.engine.actions import CLAIM, Action  # noqa: E402
from service.engine.core import FastDeal  # noqa: E402

Policy = Callable[[random.Random, list[Action]], Action]


def uniform(rng: random.Random, legal: list[Action]) -> Action:
    """Any legal action, uniformly (claims included in the head variant)."""
    return rng.choice(legal)


def never_claim(rng: random.Random, legal: list[Action]) -> Action:
    """Any legal action but a claim: every deal runs out of cards (or is closed)."""
    if CLAIM in legal:
        legal = [action for action in legal if action is not CLAIM]
    return rng.choice(legal)


def seated_game(variant: Variant, first_dealer: int) -> GameState:
    return take_seat(take_seat(new_game(variant, first_dealer), 0), 1)


class Tally:
    """What one timed run counted."""

    def __init__(self) -> None:
        self.deals = 0
        self.games = 0
        self.actions = 0
        self.seconds = 0.0


def play_deals(variant: Variant, policy: Policy, rng: random.Random, seconds: float) -> Tally:
    """Complete deals for ``seconds``: deal, then play to the deal's result."""
    # Each deal is the first of a fresh game (dealers alternate), so the
    # figure is per deal and does not depend on how games end.
    starts = (seated_game(variant, 0), seated_game(variant, 1))
    deck = list(DECK)
    tally = Tally()
    clock = time.perf_counter
    begin = clock()
    end = begin + seconds
    while True:
        state = start_deal(starts[tally.deals & 1], rng.sample(deck, 20))
        deal = state.deal
        while deal.result is None:
            state = apply(state, policy(rng, legal_actions(state)))
            deal = state.deal
            tally.actions += 1
        tally.deals += 1
        now = clock()
        if now >= end:
            tally.seconds = now - begin
            return tally


def play_games(variant: Variant, policy: Policy, rng: random.Random, seconds: float) -> Tally:
    """Complete games (from 7 game points each to 0) for ``seconds``."""
    deck = list(DECK)
    tally = Tally()
    clock = time.perf_counter
    begin = clock()
    end = begin + seconds
    while True:
        state = seated_game(variant, rng.randrange(2))
        while state.winner is None:
            if state.awaiting_deal:
                state = start_deal(state, rng.sample(deck, 20))
                tally.deals += 1
                continue
            state = apply(state, policy(rng, legal_actions(state)))
            tally.actions += 1
        tally.games += 1
        now = clock()
        if now >= end:
            tally.seconds = now - begin
            return tally


def measure(run, variant, policy, rng, seconds, warmup) -> Tally:
    run(variant, policy, rng, warmup)  # warm-up: caches, branch predictors, CPU clock
    return run(variant, policy, rng, seconds)


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{platform.platform()}, {cpu}, {os.cpu_count()} logical CPUs"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--seconds", type=float, default=3.0, help="wall time per measurement (default 3)"
    )
    parser.add_argument("--warmup", type=float, default=0.5, help="warm-up per measurement")
    parser.add_argument("--seed", type=int, default=2024, help="seed of the random play")
    parser.add_argument(
        "--baseline", help="also run this benchmark at git revision REV, before and after"
    )
    args = parser.parse_args(argv)
    if args.baseline:
        return compare(args)

    print("Schnapsen engine benchmark (benchmarks/engine.py)")
    print(
        f"Python {platform.python_version()} ({platform.python_implementation()}, {sys.executable})"
    )
    print(f"Machine: {machine()}")
    print(
        f"Method: one process, one core, public API only (start_deal, legal_actions, apply); "
        f"random.Random({args.seed}).choice over legal_actions; each figure = deals (games) finished "
        f"in {args.seconds:g} s of wall time (after {args.warmup:g} s warm-up) / time taken; "
        "shuffling and choosing included."
    )
    print()

    rng = random.Random(args.seed)
    seconds, warmup = args.seconds, args.warmup
    runs = [
        ("head variant, uniform random", play_deals, Variant.HEAD, uniform),
        ("tracked variant, uniform random", play_deals, Variant.TRACKED, uniform),
        ("head variant, full-length (never claims)", play_deals, Variant.HEAD, never_claim),
    ]
    for label, run, variant, policy in runs:
        tally = measure(run, variant, policy, rng, seconds, warmup)
        rate = tally.deals / tally.seconds
        print(
            f"{label}: {rate:,.0f} deals/s ({tally.actions / tally.deals:.1f} actions/deal, "
            f"{tally.actions / tally.seconds:,.0f} actions/s)"
        )
    tally = measure(play_games, Variant.HEAD, uniform, rng, seconds, warmup)
    print(
        f"head variant, whole games to 7, uniform random: {tally.games / tally.seconds:,.0f} "
        f"games/s ({tally.deals / tally.games:.1f} deals/game, "
        f"{tally.actions / tally.games:.1f} actions/game)"
    )
    print(
        "(full-length: uniform over legal_actions without claim, so every head deal ends at its "
        "last trick, closed or not; the tracked variant has no claim at all, its deals end "
        "early only by the automatic going out at 66.)"
    )
    print()
    print_fast_section(args.seed, seconds, warmup)
    return 0


# -- the search core ----------------------------------------------------------------


def shuffled_deck(random: Callable[[], float]) -> list[int]:
    """A uniformly shuffled deck of card indices (Fisher-Yates on ``random()``)."""
    deck = list(range(20))
    for i in range(19, 0, -1):
        j = int(random() * (i + 1))
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def core_playouts(head: bool, by_mask: bool, seed: int, seconds: float) -> Tally:
    """Uniformly random deals on the search core: fresh shuffled deck to the result.

    ``by_mask``: step by step over legal masks (the k-th set bit is the k-th
    legal action): ``FastDeal.legal_mask`` once, then the mask that each
    ``FastDeal.apply`` returns; otherwise over ``FastDeal.legal_actions``. Both
    choose the same actions from the same random numbers.
    """
    draw = random.Random(seed).random
    tally = Tally()
    clock = time.perf_counter
    begin = clock()
    end = begin + seconds
    while True:
        deal = FastDeal.from_deck(shuffled_deck(draw), tally.deals & 1, head)
        apply = deal.apply
        steps = 0
        if by_mask:
            mask = deal.legal_mask()
            while mask:
                for _ in range(int(draw() * mask.bit_count())):
                    mask &= mask - 1
                mask = apply((mask & -mask).bit_length() - 1)
                steps += 1
        else:
            legal_actions = deal.legal_actions
            while deal.result is None:
                legal = legal_actions()
                apply(legal[int(draw() * len(legal))])
                steps += 1
        tally.actions += steps
        tally.deals += 1
        now = clock()
        if now >= end:
            tally.seconds = now - begin
            return tally


def print_fast_section(seed: int, seconds: float, warmup: float) -> None:
    print(
        "Search core (service/engine/core.py on the rules of service/engine/masks.py: "
        "cards as ints, hands as bit masks, apply in place; "
        + ("compiled by setup.py with mypyc)" if native.compiled(core) else "run from source)")
    )
    print(
        "Method: one process, one core; a fresh deck shuffled by Fisher-Yates on random(), "
        "then uniformly random legal actions (every rule: closing, exchange, marriages, claims, "
        "R9 scoring) to the deal's result; shuffling and choosing included."
    )
    runs = [
        ("core, head variant, uniform random, next legal_mask from apply, per step", True, True),
        (
            "core, tracked variant, uniform random, next legal_mask from apply, per step",
            False,
            True,
        ),
        ("core, head variant, uniform random, legal_actions + apply per step", True, False),
    ]
    for label, head, by_mask in runs:
        core_playouts(head, by_mask, seed, warmup)
        tally = core_playouts(head, by_mask, seed, seconds)
        print(
            f"{label}: {tally.deals / tally.seconds:,.0f} deals/s "
            f"({tally.actions / tally.deals:.1f} actions/deal, "
            f"{tally.actions / tally.seconds:,.0f} actions/s)"
        )


# -- against a baseline revision ------------------------------------------------------

_FIGURE = re.compile(r"^(?P<label>[^:\n]+): (?P<rate>[\d,]+) (?:deals|games)/s", re.M)


def run_figures(root: Path, args: argparse.Namespace) -> dict[str, float]:
    """Run ``benchmarks/engine.py`` of the tree at ``root`` and read its figures."""
    command = [sys.executable, str(root / "benchmarks" / "engine.py")]
    command += ["--seconds", str(args.seconds), "--warmup", str(args.warmup)]
    command += ["--seed", str(args.seed)]
    out = subprocess.run(command, check=True, capture_output=True, text=True, cwd=root).stdout
    return {m["label"]: float(m["rate"].replace(",", "")) for m in _FIGURE.finditer(out)}


#: This checkout's figure -> the baseline's figure it must reach (the public API's
#: own lines, and the search core against the old fused playout loop).
PAIRS = [
    ("head variant, uniform random", "head variant, uniform random"),
    ("tracked variant, uniform random", "tracked variant, uniform random"),
    ("head variant, full-length (never claims)", "head variant, full-length (never claims)"),
    (
        "head variant, whole games to 7, uniform random",
        "head variant, whole games to 7, uniform random",
    ),
    (
        "core, head variant, uniform random, next legal_mask from apply, per step",
        "fast, head variant, uniform random, fused playout loop",
    ),
    (
        "core, tracked variant, uniform random, next legal_mask from apply, per step",
        "fast, tracked variant, uniform random, fused playout loop",
    ),
    (
        "core, head variant, uniform random, legal_actions + apply per step",
        "fast, head variant, uniform random, legal_actions + apply per step",
    ),
]


def compare(args: argparse.Namespace) -> int:
    """Baseline, this checkout, baseline, this checkout: each figure's mean, and the ratio."""
    here = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(
            ["git", "archive", "--format=tar", args.baseline, "service", "benchmarks"],
            check=True,
            capture_output=True,
            cwd=here,
        ).stdout
        with tarfile.open(fileobj=__import__("io").BytesIO(archive)) as tar:
            tar.extractall(tmp, filter="data")
        old_root = Path(tmp)
        runs: dict[str, list[dict[str, float]]] = {"old": [], "new": []}
        for _ in range(2):
            runs["old"].append(run_figures(old_root, args))
            runs["new"].append(run_figures(here, args))
    print(f"Same run, interleaved (baseline, this checkout, twice); baseline = {args.baseline}")
    print(f"{'figure (this checkout | baseline)':<72} {'baseline':>10} {'now':>10} {'ratio':>6}")
    for new_label, old_label in PAIRS:
        old = sum(r.get(old_label, 0.0) for r in runs["old"]) / 2
        new = sum(r.get(new_label, 0.0) for r in runs["new"]) / 2
        ratio = new / old if old else float("nan")
        print(f"{new_label:<72} {old:>10,.0f} {new:>10,.0f} {ratio:>6.2f}")
        if new_label != old_label:
            print(f"  (baseline: {old_label})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
