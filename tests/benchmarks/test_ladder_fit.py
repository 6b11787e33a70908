"""The ladder's Elo fit (benchmarks/ladder.py) gives back the ratings the games came from."""

from __future__ import annotations

import sys

import pytest

from tests.support.paths import REPO

sys.path.insert(0, str(REPO / "benchmarks"))
from ladder import Score, fit_elo, ladder_steps, ladder_table  # noqa: E402


def expected_wins(elo_a: float, elo_b: float, games: int) -> int:
    return round(games / (1 + 10 ** ((elo_b - elo_a) / 400)))


def scores_from(ratings: dict[str, float], games: int) -> list[Score]:
    names = list(ratings)
    scores = []
    for i, first in enumerate(names):
        for second in names[i + 1 :]:
            won = expected_wins(ratings[first], ratings[second], games)
            scores.append(Score(first, second, won, games - won, (0.001,), (0.002,)))
    return scores


def test_the_fit_recovers_the_ratings_that_made_the_results():
    ratings = {"a": 0.0, "b": 150.0, "c": 300.0, "d": 420.0}
    fitted = fit_elo(list(ratings), scores_from(ratings, 4000))
    for name, elo in ratings.items():
        assert fitted[name][0] == pytest.approx(elo, abs=15)
    assert fitted["a"] == (0.0, 0.0)  # the anchor
    assert all(error > 0 for name, (_, error) in fitted.items() if name != "a")


def test_a_level_that_wins_every_game_gets_a_finite_rating_above_the_others():
    scores = [
        Score("a", "b", 10, 30, (0.001,), (0.001,)),
        Score("a", "c", 0, 40, (0.001,), (0.001,)),
        Score("b", "c", 0, 40, (0.001,), (0.001,)),
    ]
    fitted = fit_elo(["a", "b", "c"], scores)
    assert 0 < fitted["b"][0] < fitted["c"][0] < 2000


def test_the_table_shows_each_level_against_the_next_weaker():
    ratings = {"random": 0.0, "beginner": 200.0, "novice": 400.0}
    table = ladder_table(list(ratings), scores_from(ratings, 100))
    assert table[2].startswith("| random | 0 | anchor | - |")
    won = expected_wins(200.0, 0.0, 100)
    assert "| beginner | " in table[3] and f"{won} : {100 - won} vs random" in table[3]


def test_the_steps_line_shows_each_step_and_whether_the_smallest_reaches_100_elo():
    ratings = {"random": 0.0, "beginner": 150.0, "novice": 230.0, "club": 400.0}
    fitted = fit_elo(list(ratings), scores_from(ratings, 4000))
    gaps = {
        (a, b): fitted[b][0] - fitted[a][0]
        for a, b in zip(ratings, list(ratings)[1:], strict=False)
    }
    line = ladder_steps(list(ratings), fitted)
    for (a, b), gap in gaps.items():
        assert f"{a} -> {b} +{gap:.0f}" in line
    smallest = gaps[("beginner", "novice")]
    assert line.endswith(f"smallest +{smallest:.0f} (beginner -> novice): below 100")

    ratings = {"random": 0.0, "beginner": 150.0, "novice": 300.0}
    fitted = fit_elo(list(ratings), scores_from(ratings, 4000))
    assert ladder_steps(list(ratings), fitted).endswith(": at least 100")
