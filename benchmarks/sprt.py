"""A sequential test of a duplicate tournament's win rate, to stop once the result is clear.

A fixed number of games spends as long on a level that loses 30% of its games
as on one too close to call. Wald's sequential probability ratio test looks
at the results as they come and stops as soon as they favour one of two
hypotheses about A's game win rate ``p`` strongly enough:

- H0: ``p = p0`` (by default 0.50: A is no stronger than B);
- H1: ``p = p1`` (by default 0.55: A is stronger by a margin worth having).

with at most ``alpha`` chance of accepting H1 when H0 holds and ``beta`` of
accepting H0 when H1 holds. A rate beyond either hypothesis is accepted as
that one, and sooner: a clear loser accepts H0, a clear winner H1.

The unit is the duplicate pair, not the game: the two games of a pair share
their decks, so their results are not independent (a deck that favours a
seat gives each level one game). A pair's score is A's share of its two
games (0, 1/2 or 1), and the test is the generalized SPRT with the normal
approximation (as chess engine testing uses it): the log-likelihood ratio of
``n`` pair scores with mean ``m`` and variance ``v`` is

    n * (p1 - p0) * (2 * m - p0 - p1) / (2 * v),

the variance measured from the pairs themselves, so it holds whether the
pairing makes the games' results alike or opposite. It accepts H1 above
``log((1 - beta) / alpha)`` and H0 below ``log(beta / (1 - alpha))``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: No decision before this many pairs: the variance is measured, and a few pairs
#: cannot measure it.
MIN_PAIRS = 20
#: The smallest pair-score variance used: when every pair so far ended alike, the
#: measured one is 0 and the ratio would be infinite. Real tournaments measure
#: about 0.1 (each game a coin toss would give 0.125).
VARIANCE_FLOOR = 0.01


@dataclass(frozen=True)
class Pairs:
    """The finished duplicate pairs, from A's side: lost both games, split, won both."""

    lost: int = 0
    split: int = 0
    won: int = 0

    @property
    def count(self) -> int:
        return self.lost + self.split + self.won

    def add(self, a_wins: int) -> Pairs:
        """These pairs and one more, in which A won ``a_wins`` (0, 1 or 2) of the two games."""
        if a_wins not in (0, 1, 2):
            raise ValueError(f"a pair has two games, not {a_wins} wins")
        return Pairs(
            self.lost + (a_wins == 0), self.split + (a_wins == 1), self.won + (a_wins == 2)
        )


def log_likelihood_ratio(pairs: Pairs, p0: float, p1: float) -> float:
    """How much more likely the pairs are if A's win rate is ``p1`` than if it is ``p0``
    (natural log; the module doc gives the formula)."""
    n = pairs.count
    if n == 0:
        return 0.0
    mean = (0.5 * pairs.split + pairs.won) / n
    variance = (0.25 * pairs.split + pairs.won) / n - mean * mean
    variance = max(variance, VARIANCE_FLOOR)
    return n * (p1 - p0) * (2 * mean - p0 - p1) / (2 * variance)


@dataclass(frozen=True)
class Sprt:
    """The test's hypotheses (A's game win rate under H0 and H1) and error rates."""

    p0: float = 0.50
    p1: float = 0.55
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not (0 < self.p0 < 1 and 0 < self.p1 < 1 and self.p0 != self.p1):
            raise ValueError(f"the hypotheses must be two win rates in (0, 1): {self}")
        if not (0 < self.alpha < 0.5 and 0 < self.beta < 0.5):
            raise ValueError(f"alpha and beta must be in (0, 0.5): {self}")

    @property
    def lower(self) -> float:
        """At or below this log-likelihood ratio, H0 is accepted."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """At or above this log-likelihood ratio, H1 is accepted."""
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, pairs: Pairs) -> float:
        return log_likelihood_ratio(pairs, self.p0, self.p1)

    def verdict(self, pairs: Pairs) -> str | None:
        """``"H0"`` or ``"H1"`` once the pairs decide, else ``None`` (play on)."""
        if pairs.count < MIN_PAIRS:
            return None
        llr = self.llr(pairs)
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None
