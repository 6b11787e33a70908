"""A Swiss table is a function of the games alone: its tiebreaks equal a recomputation
written here from their definitions, whatever order the games come in."""

from __future__ import annotations

import random

from service.competition import Bye, Result, swiss_standings
from tests.competition.play import play, seeded


def recomputed(results: list[Result], byes: list[Bye]) -> dict[str, tuple[int, int, int]]:
    """Points, Buchholz and Sonneborn-Berger per player, by their definitions."""
    players = {p for r in results for p in r.players} | {b.player for b in byes}
    points = {
        p: sum(r.winner == p for r in results) + sum(b.player == p for b in byes) for p in players
    }
    return {
        p: (
            points[p],
            sum(points[next(iter(r.players - {p}))] for r in results if p in r.players),
            sum(points[r.loser] for r in results if r.winner == p),
        )
        for p in players
    }


def test_the_tiebreaks_equal_a_recomputation_from_the_games_in_any_order():
    for seed, tournament in enumerate(seeded()):
        results, byes = list(tournament.results), list(tournament.byes)
        table = swiss_standings(results, byes)
        expected = recomputed(results, byes)
        assert {
            line.player: (line.points, line.buchholz, line.sonneborn_berger) for line in table
        } == expected
        random.Random(seed).shuffle(results)
        assert swiss_standings(results, byes[::-1]) == table


def test_the_table_orders_by_points_then_buchholz_then_sonneborn_berger():
    tournament = play(seed=5, players=60, rounds=7)
    table = swiss_standings(tournament.results, tournament.byes)
    keys = [(-line.points, -line.buchholz, -line.sonneborn_berger) for line in table]
    assert keys == sorted(keys)
    assert [line.rank for line in table] == list(range(1, len(table) + 1))


def test_a_withdrawn_opponent_counts_with_the_score_they_left_with_and_a_bye_with_none():
    results = [Result(1, "a", "b", "a"), Result(2, "a", "c", "c"), Result(1, "c", "d", "c")]
    table = {line.player: line for line in swiss_standings(results, [Bye(2, "b")])}
    # b withdrew after a bye: 1 point; c scored 2.
    assert (table["a"].points, table["a"].buchholz, table["a"].sonneborn_berger) == (1, 3, 1)
    assert (table["b"].points, table["b"].buchholz, table["b"].byes) == (1, 1, 1)
    assert (table["c"].buchholz, table["c"].sonneborn_berger) == (1, 1)


def test_a_late_joiner_without_a_game_stands_on_nought():
    table = swiss_standings([Result(1, "a", "b", "a")], players=["z"])
    assert [(line.player, line.points) for line in table] == [("a", 1), ("b", 0), ("z", 0)]
