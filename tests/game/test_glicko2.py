"""Glicko-2 ratings: Glickman's worked example to its printed digits, and what a
rating period promises whatever the ratings and results.

Pure arithmetic, no Redis. The random inputs come from hypothesis, derandomized, so
every run draws the same cases and a failure reproduces.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.game.glicko2 import (
    BOT_DEVIATION,
    MAX_DEVIATION,
    MAX_TAU,
    MIN_TAU,
    SCALE,
    Rating,
    RatingError,
    Result,
    fixed,
    rate,
    rate_game,
)

#: The player and the period of Glickman's "Example of the Glicko-2 system".
EXAMPLE_PLAYER = Rating(1500, 200, 0.06)
EXAMPLE_PERIOD = (
    Result(Rating(1400, 30), 1),
    Result(Rating(1550, 100), 0),
    Result(Rating(1700, 300), 0),
)

property_settings = settings(max_examples=400, deadline=None, derandomize=True)


def ratings(
    low: float = -3000.0, high: float = 8000.0, volatility: float = 5.0
) -> st.SearchStrategy[Rating]:
    return st.builds(
        Rating,
        rating=st.floats(low, high),
        deviation=st.floats(0.0, MAX_DEVIATION),
        volatility=st.floats(1e-6, volatility),
    )


def periods(players: st.SearchStrategy[Rating]) -> st.SearchStrategy[list[Result]]:
    scores = st.one_of(st.sampled_from((0.0, 0.5, 1.0)), st.floats(0.0, 1.0))
    return st.lists(st.builds(Result, opponent=players, score=scores), max_size=12)


def assert_sound(rating: Rating) -> None:
    assert math.isfinite(rating.rating)
    assert 0.0 <= rating.deviation <= MAX_DEVIATION
    assert math.isfinite(rating.volatility) and rating.volatility > 0.0


# -- Glickman's worked example ----------------------------------------------------------


def test_glickmans_example_gives_his_numbers_in_the_glicko2_scale() -> None:
    after = rate(EXAMPLE_PLAYER, EXAMPLE_PERIOD, tau=0.5)

    # mu' and phi' round to the digits the paper prints; sigma' = 0.0599960 it cuts
    # to 0.05999 (an unchanged 0.06 would not pass).
    assert (after.rating - 1500) / SCALE == pytest.approx(-0.2069, abs=0.00005)
    assert after.deviation / SCALE == pytest.approx(0.8722, abs=0.00005)
    assert 0.05999 <= after.volatility < 0.06000


def test_glickmans_example_gives_his_numbers_in_the_glicko_scale() -> None:
    after = rate(EXAMPLE_PLAYER, EXAMPLE_PERIOD, tau=0.5)

    # The paper converts its rounded mu' = -0.2069 (1464.06); the unrounded one
    # gives 1464.05, within the paper's last digit.
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.deviation == pytest.approx(151.52, abs=0.01)


def test_the_games_of_a_period_count_as_played_at_once() -> None:
    forwards = rate(EXAMPLE_PLAYER, EXAMPLE_PERIOD)
    backwards = rate(EXAMPLE_PLAYER, EXAMPLE_PERIOD[::-1])

    assert backwards.rating == pytest.approx(forwards.rating, abs=1e-9)
    assert backwards.deviation == pytest.approx(forwards.deviation, abs=1e-9)
    assert backwards.volatility == pytest.approx(forwards.volatility, abs=1e-12)


# -- a period without games -------------------------------------------------------------


def test_a_period_without_games_only_widens_the_deviation() -> None:
    after = rate(EXAMPLE_PLAYER, [])

    assert after.rating == EXAMPLE_PLAYER.rating
    assert after.volatility == EXAMPLE_PLAYER.volatility
    # Step 6: phi* = sqrt(phi^2 + sigma^2), here back in the Glicko scale.
    assert after.deviation == pytest.approx(math.hypot(200, 0.06 * SCALE), abs=1e-9)
    assert after.deviation > EXAMPLE_PLAYER.deviation


def test_a_long_absence_widens_the_deviation_to_a_newcomers_350_and_no_further() -> None:
    rating = Rating(2100, 40, 0.09)
    deviations = []
    for _ in range(2000):
        rating = rate(rating, [])
        deviations.append(rating.deviation)

    assert deviations == sorted(deviations)
    assert deviations[-1] == MAX_DEVIATION
    assert rating.rating == 2100


def test_a_newcomers_first_game_starts_from_a_deviation_of_350_not_wider() -> None:
    # Against a sure opponent of equal rating g = 1 and E = 1/2, so v = 4 (steps 3-4),
    # and step 7 gives phi' = 1 / sqrt(1 / phi*^2 + 1 / 4) with phi* capped at 350
    # (in the Glicko-2 scale), whatever the volatility.
    phi_star = MAX_DEVIATION / SCALE
    expected = SCALE / math.sqrt(1 / phi_star**2 + 1 / 4)

    for volatility in (0.06, 0.5):
        newcomer = Rating(1500, 350, volatility)
        after = rate(newcomer, [Result(Rating(1500, 0), 1)])
        assert after.deviation == pytest.approx(expected, abs=1e-9)


# -- one game -------------------------------------------------------------------------


def test_a_won_game_raises_the_rating_and_a_lost_one_lowers_it() -> None:
    player, opponent = Rating(1620, 90, 0.06), Rating(1580, 140, 0.05)

    won = rate(player, [Result(opponent, 1)])
    lost = rate(player, [Result(opponent, 0)])

    assert won.rating > player.rating > lost.rating


def test_a_game_narrows_the_deviation() -> None:
    player = Rating(1500, 200, 0.06)

    for score in (0, 0.5, 1):
        assert rate(player, [Result(Rating(1500, 80), score)]).deviation < player.deviation


def test_a_won_game_between_equal_players_moves_both_by_the_same_amount() -> None:
    equal = Rating(1830, 120, 0.05)

    winner, loser = rate_game(equal, equal, 1)

    assert winner.rating > equal.rating > loser.rating
    assert winner.rating + loser.rating == pytest.approx(2 * equal.rating, abs=1e-9)
    assert winner.deviation == loser.deviation
    assert winner.volatility == loser.volatility


def test_a_drawn_game_between_equal_players_moves_no_rating_only_the_deviations() -> None:
    equal = Rating(1500, 80, 0.06)

    a, b = rate_game(equal, equal, 0.5)

    assert a == b
    assert a.rating == equal.rating
    assert a.deviation < equal.deviation
    # The result was the expected one: the players look no more erratic than before.
    assert a.volatility <= equal.volatility


def test_rate_game_rates_each_player_against_the_others_rating_before_the_game() -> None:
    a, b = Rating(1710, 60, 0.06), Rating(1390, 250, 0.08)

    assert rate_game(a, b, 0) == (rate(a, [Result(b, 0)]), rate(b, [Result(a, 1)]))


def test_an_upset_win_against_a_stronger_player_raises_the_rating_more() -> None:
    player = Rating(1500, 150, 0.06)

    against_stronger = rate(player, [Result(Rating(1900, 60), 1)])
    against_weaker = rate(player, [Result(Rating(1100, 60), 1)])

    assert against_stronger.rating - player.rating > against_weaker.rating - player.rating > 0


# -- bot levels ----------------------------------------------------------------------------


def test_a_bot_levels_rating_is_its_ladder_elo_with_a_small_fixed_deviation() -> None:
    expert = fixed(931)

    assert expert == Rating(931, BOT_DEVIATION)
    assert expert.deviation == 50
    assert fixed(931) == expert


def test_a_game_against_a_bot_counts_almost_as_one_against_a_settled_player() -> None:
    player = Rating(1000, 200, 0.06)

    against_bot = rate(player, [Result(fixed(931), 1)])
    against_sure = rate(player, [Result(Rating(931, 0), 1)])
    against_unsure = rate(player, [Result(Rating(931, 350), 1)])

    gain = against_bot.rating - player.rating
    assert gain == pytest.approx(against_sure.rating - player.rating, rel=0.03)
    assert gain > against_unsure.rating - player.rating


# -- bounds, and any input ------------------------------------------------------------------


@property_settings
@given(player=ratings(), results=periods(ratings()), tau=st.floats(MIN_TAU, MAX_TAU))
def test_a_period_of_players_ratings_answers_a_finite_rating_with_positive_volatility(
    player: Rating, results: list[Result], tau: float
) -> None:
    assert_sound(rate(player, results, tau=tau))


@property_settings
@given(a=ratings(), b=ratings(), score=st.floats(0.0, 1.0), tau=st.floats(MIN_TAU, MAX_TAU))
def test_the_deviation_after_a_game_is_never_above_350_nor_negative(
    a: Rating, b: Rating, score: float, tau: float
) -> None:
    for after in rate_game(a, b, score, tau=tau):
        assert_sound(after)


@property_settings
@given(
    player=ratings(-1e300, 1e300, volatility=1e300),
    results=periods(ratings(-1e300, 1e300, volatility=1e300)),
    tau=st.floats(MIN_TAU, MAX_TAU),
)
def test_any_accepted_input_answers_a_finite_rating_or_a_rating_error(
    player: Rating, results: list[Result], tau: float
) -> None:
    try:
        after = rate(player, results, tau=tau)
    except RatingError:
        return
    assert_sound(after)


def test_ratings_too_far_apart_for_floating_point_are_a_rating_error() -> None:
    with pytest.raises(RatingError):
        rate(Rating(1500, 0), [Result(Rating(1_000_000, 0), 1)])


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda: Rating(1500, -1), id="negative deviation"),
        pytest.param(lambda: Rating(1500, 350.5), id="deviation above 350"),
        pytest.param(lambda: Rating(1500, 200, 0), id="volatility zero"),
        pytest.param(lambda: Rating(1500, 200, -0.06), id="negative volatility"),
        pytest.param(lambda: Rating(math.nan), id="rating nan"),
        pytest.param(lambda: Rating(math.inf), id="rating infinite"),
        pytest.param(lambda: Rating(1500, math.nan), id="deviation nan"),
        pytest.param(lambda: Rating(1500, 200, math.inf), id="volatility infinite"),
        pytest.param(lambda: Result(Rating(), -0.1), id="score below 0"),
        pytest.param(lambda: Result(Rating(), 1.5), id="score above 1"),
        pytest.param(lambda: Result(Rating(), math.nan), id="score nan"),
        pytest.param(lambda: rate_game(Rating(), Rating(), 2), id="rate_game score above 1"),
        pytest.param(lambda: rate(Rating(), [], tau=0), id="tau zero"),
        pytest.param(lambda: rate(Rating(), [], tau=math.nan), id="tau nan"),
        pytest.param(lambda: rate(Rating(), [], tau=1e9), id="tau far too large"),
        pytest.param(lambda: fixed(math.inf), id="bot elo infinite"),
    ],
)
def test_bad_input_is_a_rating_error(make: Callable[[], object]) -> None:
    with pytest.raises(RatingError):
        make()


def test_a_rating_error_is_a_value_error() -> None:
    assert issubclass(RatingError, ValueError)


def test_a_rating_period_never_changes_the_ratings_it_was_given() -> None:
    player = Rating(1500, 200, 0.06)

    rate(player, EXAMPLE_PERIOD)

    assert player == Rating(1500, 200, 0.06)
    with pytest.raises(AttributeError):
        player.rating = 1600  # type: ignore[misc]
