"""Players' ratings by Glickman's Glicko-2 system: pure arithmetic, standard library only.

A rating says how strong a player is (``rating``), how sure that is
(``deviation``: a strength within two deviations of the rating is 95% likely)
and how erratic the player's results are (``volatility``). Unlike a plain Elo
number, it knows that a newcomer's first games say more than a regular's
hundredth, and that a player who has not played for a while is known less well.

``rate`` is one rating period exactly as in Glickman's "Example of the Glicko-2
system" (http://www.glicko.net/glicko/glicko2.pdf), steps 1-8, so any
implementation of the paper gives the same numbers, to rounding (a few formulas
are rearranged so that extreme inputs neither overflow nor divide by zero; the
mathematics is the paper's). The one addition is a cap:
no deviation exceeds an unrated player's 350, because no player is known less
than one who never played. Ratings are given and answered in the Glicko scale
(1500, 350, 0.06 for a newcomer); the Glicko-2 scale the steps compute in stays
inside this module.

Nothing here stores a rating or knows a game's log: the caller passes the
ratings before and gets the ratings after, so the arithmetic is tested alone.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

#: Glickman's factor between the scales: 400 / ln 10, to the paper's digits.
SCALE = 173.7178
#: The Glicko scale's centre: a newcomer's rating, Glicko-2's mu = 0.
CENTRE = 1500.0
#: An unrated player's deviation, and the widest any deviation gets (step 6).
MAX_DEVIATION = 350.0
#: A newcomer's volatility (the paper's suggestion for an unrated player).
START_VOLATILITY = 0.06
#: Glicko-2's tau: how far volatility may move in one period (the paper: 0.3 .. 1.2).
DEFAULT_TAU = 0.5
#: Step 5's convergence tolerance, the paper's.
EPSILON = 0.000001
#: Step 5's bound on the Illinois iterations; the paper's example closes in 2.
MAX_ITERATIONS = 1000
#: The tau ``rate`` accepts: the paper suggests 0.3 to 1.2 (as low as 0.2 for very
#: improbable results); far outside, step 5 divides by a tau^2 that rounds to 0 or
#: searches its bracket in steps of tau for ever.
MIN_TAU = 0.01
MAX_TAU = 10.0
#: A bot level's deviation (``fixed``): why 50, see there.
BOT_DEVIATION = 50.0

_MAX_PHI = MAX_DEVIATION / SCALE


class RatingError(ValueError):
    """A rating, a game's score or tau the system cannot rate with."""


def _finite(name: str, value: float) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise RatingError(f"{name} must be a number, not {value!r}")
    if not math.isfinite(value):
        raise RatingError(f"{name} must be finite, not {value!r}")
    return float(value)


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's strength in the Glicko scale; the defaults are a newcomer's.

    Frozen: a rating period answers new ratings, it never changes the ones it was
    given. Refused with ``RatingError``: any number that is not finite, a negative
    deviation or one above 350 (no rating is less sure than a newcomer's, and
    ``rate`` never answers one), and a volatility that is not positive (step 5
    takes its logarithm).
    """

    rating: float = CENTRE
    deviation: float = MAX_DEVIATION
    volatility: float = START_VOLATILITY

    def __post_init__(self) -> None:
        _finite("rating", self.rating)
        deviation = _finite("deviation", self.deviation)
        volatility = _finite("volatility", self.volatility)
        if deviation < 0:
            raise RatingError(f"deviation must not be negative, not {deviation!r}")
        if deviation > MAX_DEVIATION:
            raise RatingError(f"deviation must be at most {MAX_DEVIATION:g}, not {deviation!r}")
        if volatility <= 0:
            raise RatingError(f"volatility must be positive, not {volatility!r}")


def _check_score(score: float) -> float:
    score = _finite("score", score)
    if not 0 <= score <= 1:
        raise RatingError(f"score must be between 0 and 1, not {score!r}")
    return score


@dataclass(frozen=True, slots=True)
class Result:
    """One game of a rating period, from the rated player's side: whom, and how it went.

    ``score`` is 1 for a won game, 0 for a lost one, 0.5 for Glicko's draw. A
    game of Schnapsen always has a winner (an aborted game was never played and
    is not rated), so the service passes 1 or 0; any score in [0, 1] is
    accepted, as the paper allows.
    """

    opponent: Rating
    score: float

    def __post_init__(self) -> None:
        if not isinstance(self.opponent, Rating):
            raise RatingError(f"opponent must be a Rating, not {self.opponent!r}")
        _check_score(self.score)


@dataclass(frozen=True, slots=True)
class _Scaled:
    """A rating in the Glicko-2 scale (step 2): mu, phi, sigma."""

    mu: float
    phi: float
    sigma: float


def _to_glicko2(rating: Rating) -> _Scaled:
    """Step 2: the Glicko scale to Glicko-2's, where the formulas are simplest."""
    return _Scaled(
        (rating.rating - CENTRE) / SCALE, rating.deviation / SCALE, float(rating.volatility)
    )


def _from_glicko2(scaled: _Scaled) -> Rating:
    """Step 8: back to the Glicko scale the callers speak."""
    return Rating(
        rating=scaled.mu * SCALE + CENTRE,
        # A phi at the cap comes back as 350 plus a rounding error: still 350.
        deviation=min(scaled.phi * SCALE, MAX_DEVIATION),
        volatility=scaled.sigma,
    )


def _g(phi: float) -> float:
    """Step 3's g: a game against an opponent known less well says less."""
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, g_j: float) -> tuple[float, float]:
    """Step 3's E and 1 - E, each computed without cancelling the other.

    Far apart players have an E within rounding of 1 (or 0); ``1 - E`` taken by
    subtraction would then be 0, and a game's information (``E (1 - E)``) with it,
    so each side comes from its own exponential.
    """
    z = -g_j * (mu - mu_j)
    if z >= 0:
        t = math.exp(-z)
        return t / (1.0 + t), 1.0 / (1.0 + t)
    t = math.exp(z)
    return 1.0 / (1.0 + t), t / (1.0 + t)


def _widened(phi: float, sigma: float) -> float:
    """Step 6: a period's passing makes a rating less sure, up to a newcomer's 350."""
    return min(math.hypot(phi, sigma), _MAX_PHI)


def _volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility, the root of the paper's f by the Illinois algorithm.

    Results far from what the ratings expected (``delta`` large against ``v``)
    raise the volatility; results as expected lower it, slowly, as tau allows.
    """
    a = 2.0 * math.log(sigma)  # ln(sigma^2), without squaring a tiny sigma to 0
    phi2 = phi * phi
    delta2 = delta * delta
    tau2 = tau * tau

    def f(x: float) -> float:
        # The paper's e^x (delta^2 - phi^2 - v - e^x) / (2 (phi^2 + v + e^x)^2) - (x - a) / tau^2,
        # with d = phi^2 + v + e^x divided in twice instead of squared, which overflows
        # for large v.
        ex = math.exp(x)
        d = phi2 + v + ex
        return (ex / d) * ((delta2 - d) / d) / 2.0 - (x - a) / tau2

    big_a = a
    if delta2 > phi2 + v:
        big_b = math.log(delta2 - phi2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a = f(big_a)
    f_b = f(big_b)
    for _ in range(MAX_ITERATIONS):
        if abs(big_b - big_a) <= EPSILON:
            return math.exp(big_a / 2.0)
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        # "<= 0", not "< 0": when C is the root exactly (f_c == 0), A must move
        # to B, or the bracket never closes.
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    # The Illinois algorithm closes a bracket in a few dozen steps; a worker must
    # never spin on one that floating point cannot close.
    raise RatingError("the volatility did not converge")


def _check_tau(tau: float) -> float:
    tau = _finite("tau", tau)
    if not MIN_TAU <= tau <= MAX_TAU:
        raise RatingError(f"tau must be between {MIN_TAU:g} and {MAX_TAU:g}, not {tau!r}")
    return tau


def rate(player: Rating, results: Sequence[Result], *, tau: float = DEFAULT_TAU) -> Rating:
    """The player's rating after one rating period with these games (Glickman, steps 1-8).

    The games of a period count as played at once: their order does not matter,
    and every opponent counts with the rating it had when the period began. A
    period without games leaves the rating and volatility as they were and only
    widens the deviation (step 6), up to 350.

    Any ratings and scores ``Rating`` and ``Result`` accept answer a finite
    rating, or ``RatingError`` when floating point cannot rate them (ratings
    tens of thousands of points apart, far beyond any player's, where a game's
    expected score rounds to 0 or 1); never NaN or infinity, which, once stored,
    would spoil the ratings of every later opponent.
    """
    tau = _check_tau(tau)
    if not isinstance(player, Rating):
        raise RatingError(f"player must be a Rating, not {player!r}")
    games = tuple(results)
    for result in games:
        if not isinstance(result, Result):
            raise RatingError(f"a result must be a Result, not {result!r}")
    me = _to_glicko2(player)
    if not games:
        return _from_glicko2(_Scaled(me.mu, _widened(me.phi, me.sigma), me.sigma))

    # Steps 3 and 4: how much the games tell (1 / v) and how far from the
    # expected scores they came out (delta / v).
    information = 0.0
    surprise = 0.0
    for result in games:
        opponent = _to_glicko2(result.opponent)
        g_j = _g(opponent.phi)
        e_j, not_e_j = _expected(me.mu, opponent.mu, g_j)
        information += g_j * g_j * e_j * not_e_j
        surprise += g_j * (result.score - e_j)
    if information == 0.0:
        raise RatingError("the ratings are too far apart to rate: every expected score is 0 or 1")
    v = 1.0 / information
    delta = v * surprise
    if not math.isfinite(delta * delta):
        raise RatingError("these results are too improbable to rate: delta^2 overflows")

    try:
        sigma = _volatility(me.phi, me.sigma, v, delta, tau)  # step 5
    except OverflowError as error:
        raise RatingError(f"floating point cannot rate these numbers: {error}") from error
    phi_star = _widened(me.phi, sigma)  # step 6
    # Step 7: the paper's 1 / sqrt(1 / phi*^2 + 1 / v), written so a phi* near 0
    # does not divide by zero.
    phi = phi_star / math.sqrt(1.0 + phi_star * phi_star * information)
    mu = me.mu + phi * phi * surprise
    return _from_glicko2(_Scaled(mu, phi, sigma))  # step 8


def rate_game(
    a: Rating, b: Rating, score_a: float, *, tau: float = DEFAULT_TAU
) -> tuple[Rating, Rating]:
    """Both players' ratings after one game between them, the game its own rating period.

    Glickman meant a period to hold 10-15 games a player, rated together; online
    game servers running Glicko-2 rate each game as it ends instead, as this
    does, so a player sees the rating move with every game. Each side is rated
    against the other's rating from before the game, so neither player's update
    depends on which is rated first; ``score_a`` is ``a``'s score, ``b``'s is 1
    minus it.
    """
    score_a = _check_score(score_a)
    return rate(a, [Result(b, score_a)], tau=tau), rate(b, [Result(a, 1.0 - score_a)], tau=tau)


def fixed(elo: float) -> Rating:
    """A bot level's rating, for a game against the bot: its ladder Elo, deviation 50.

    Rate the player alone, ``rate(player, [Result(fixed(elo), score)])``; the bot
    keeps this rating forever, since its strength is its code, which one game
    does not change. The ladder (``benchmarks/ladder.py``) measures Elo on the
    same logistic scale as Glicko (400 points are odds of 10 to 1), so the number
    is used as it is.

    Why 50: the ladder's 95% intervals are 28 to 44 points either side of each
    level's Elo, a standard error of 14 to 22; 50 adds room for what that
    measurement does not cover (bots were measured against bots, not people). A
    deviation of 0 would claim a certainty nobody has; 50 still makes a game
    against a bot count almost fully (step 3's g is 0.988, against 1 for a
    perfectly known opponent).
    """
    return Rating(rating=_finite("elo", elo), deviation=BOT_DEVIATION)
