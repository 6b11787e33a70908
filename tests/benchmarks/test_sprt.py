"""The tournament's sequential test (benchmarks/sprt.py) stops clear results early, and
an even match does not pass for a stronger A.

Plain arithmetic on pair results: the unit lane, unlike the rest of this folder
(short runs of the benchmarks, which start the service).
"""

from __future__ import annotations

import itertools
import random
import sys
from collections.abc import Iterable

import pytest

from tests.support.paths import REPO

sys.path.insert(0, str(REPO / "benchmarks"))
from sprt import MIN_PAIRS, Pairs, Sprt  # noqa: E402

pytestmark = pytest.mark.unit


def first_verdict(test: Sprt, stream: Iterable[int]) -> tuple[str | None, int]:
    """The test's first decision on a stream of pairs (A's wins in each: 0, 1 or 2),
    and after how many pairs; ``(None, n)`` if the stream ran out first."""
    pairs = Pairs()
    for a_wins in stream:
        pairs = pairs.add(a_wins)
        verdict = test.verdict(pairs)
        if verdict is not None:
            return verdict, pairs.count
    return None, pairs.count


def coin_pairs(rng: random.Random, win_rate: float, pairs: int) -> list[int]:
    """Pairs of two independent games, each won by A with ``win_rate``."""
    return [(rng.random() < win_rate) + (rng.random() < win_rate) for _ in range(pairs)]


def test_clear_wins_accept_h1_within_a_few_dozen_pairs_but_not_before_the_minimum():
    wins = itertools.islice(itertools.cycle([2, 2, 1, 2, 1]), 1000)  # A scores 80%
    verdict, after = first_verdict(Sprt(), wins)
    assert verdict == "H1"
    assert MIN_PAIRS <= after <= 40


def test_clear_losses_accept_h0_within_a_few_dozen_pairs():
    losses = itertools.islice(itertools.cycle([0, 0, 1, 0, 1]), 1000)  # A scores 20%
    verdict, after = first_verdict(Sprt(), losses)
    assert verdict == "H0"
    assert after <= 40


def test_an_even_stream_never_accepts_h1_and_settles_on_h0():
    even = itertools.islice(itertools.cycle([2, 0, 1, 1]), 2000)  # exactly 50%
    verdict, after = first_verdict(Sprt(), even)
    assert verdict == "H0"
    assert after >= 100  # a 55% A would look like this often enough early on


def test_the_hypotheses_may_point_the_other_way():
    losses = itertools.islice(itertools.cycle([0, 0, 1, 0, 1]), 1000)
    verdict, _ = first_verdict(Sprt(p0=0.50, p1=0.45), losses)
    assert verdict == "H1"


def test_even_matches_accept_h1_about_as_rarely_as_alpha_says():
    rng = random.Random(2024)
    verdicts = [first_verdict(Sprt(), coin_pairs(rng, 0.50, 1500))[0] for _ in range(400)]
    assert verdicts.count("H1") / len(verdicts) <= 0.08  # alpha 0.05, and sampling noise
    assert verdicts.count(None) <= 4


def test_a_stronger_a_accepts_h0_about_as_rarely_as_beta_says():
    rng = random.Random(2025)
    verdicts = [first_verdict(Sprt(), coin_pairs(rng, 0.55, 1500))[0] for _ in range(400)]
    assert verdicts.count("H0") / len(verdicts) <= 0.08  # beta 0.05, and sampling noise
    assert verdicts.count(None) <= 4


def test_wald_bounds_follow_alpha_and_beta():
    test = Sprt(alpha=0.05, beta=0.10)
    assert test.upper == pytest.approx(2.890, abs=1e-3)  # log(0.90 / 0.05)
    assert test.lower == pytest.approx(-2.251, abs=1e-3)  # log(0.10 / 0.95)


def test_a_pair_has_at_most_two_wins():
    with pytest.raises(ValueError):
        Pairs().add(3)
