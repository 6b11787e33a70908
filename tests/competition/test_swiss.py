"""Swiss pairing over random tournaments (2 to 300 players, 3 to 11 rounds, random
results, withdrawals and late joins): the rules of docs/tournaments.md hold in every
round, checked by means of the tests' own (tests/competition/play.py)."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.competition import Bye, Entrant, Result, pair_round, swiss_standings
from service.competition.swiss import PairingError
from tests.competition.play import (
    Tournament,
    every_pairing,
    met,
    pairs_without_repeat,
    play,
    repeats,
    seeded,
)

TOURNAMENTS = settings(
    max_examples=30, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
#: Mostly small fields, where repeats and second byes are hard to avoid, some large ones.
SIZES = st.one_of(st.integers(2, 12), st.integers(13, 60), st.integers(61, 300))


def tournaments(draw_size=SIZES):
    return st.builds(play, seed=st.integers(0, 2**31), players=draw_size, rounds=st.integers(3, 11))


def fast_and_heavy(check):
    """The check over the fixed tournaments (fast lane), and as a heavy property over
    tournaments drawn by hypothesis."""

    def fast():
        for tournament in seeded():
            check(tournament)

    @pytest.mark.heavy
    @TOURNAMENTS
    @given(tournament=tournaments())
    def heavy(tournament: Tournament):
        check(tournament)

    fast.__name__ = f"test_{check.__name__}"
    fast.__doc__ = heavy.__doc__ = check.__doc__
    heavy.__name__ = f"test_{check.__name__}_over_drawn_tournaments"
    return fast, heavy


def points_before(played) -> dict[str, int]:
    return {
        line.player: line.points
        for line in swiss_standings(played.results_before, played.byes_before)
    }


def every_player_in_the_field_plays_once_or_sits_out_and_no_withdrawn_player_is_paired(
    tournament: Tournament,
):
    for played in tournament.rounds:
        seated = [p for board in played.round.pairings for p in (board.dealer, board.forehand)]
        if played.round.bye is not None:
            seated.append(played.round.bye)
        assert sorted(seated) == sorted(entrant.player for entrant in played.field)
        assert (played.round.bye is not None) == (len(played.field) % 2 == 1)


def no_pair_meets_twice_while_the_round_could_be_paired_without(tournament: Tournament):
    for played in tournament.rounds:
        if repeats(played):
            assert not pairs_without_repeat(played), f"round {played.round.number}"


def no_second_bye_while_a_player_without_one_could_sit_out_without_a_repeat(tournament: Tournament):
    for played in tournament.rounds:
        bye = played.round.bye
        had = {b.player for b in played.byes_before}
        if bye in had and not repeats(played):
            fresh = {e.player for e in played.field} - had
            assert not pairs_without_repeat(played, bye_to=fresh), f"round {played.round.number}"


def score_cost(pairs, points) -> int:
    return sum((points.get(a, 0) - points.get(b, 0)) ** 2 for a, b in pairs)


def no_two_boards_could_swap_partners_to_keep_closer_to_their_score_groups(tournament: Tournament):
    """Score groups: no two boards of a round could be re-paired, with no new repeat, so
    that the players' scores differ less (the sum of squared differences)."""
    for played in tournament.rounds:
        points, before = points_before(played), met(played.results_before)
        boards = [(b.dealer, b.forehand) for b in played.round.pairings]
        for i, (a, b) in enumerate(boards):
            for c, d in boards[i + 1 :]:
                now = score_cost([(a, b), (c, d)], points)
                for swapped in (((a, c), (b, d)), ((a, d), (b, c))):
                    fresh = all(frozenset(pair) not in before for pair in swapped)
                    assert not (fresh and score_cost(swapped, points) < now), (
                        f"round {played.round.number}: {(a, b)} {(c, d)} -> {swapped}"
                    )


def objective(pairs, bye, points, before, had_bye) -> tuple[int, int, int]:
    """What a pairing gives up, in the order the rules give way: repeats, a second bye,
    then distance from the score groups (the bye as a float below the lowest score)."""
    lowest = min(points.values())
    sitting = (points[bye] - lowest + 1) ** 2 if bye is not None else 0
    return (
        sum(frozenset(pair) in before for pair in pairs),
        int(bye in had_bye),
        score_cost(pairs, points) + sitting,
    )


@settings(max_examples=30, deadline=None, derandomize=True)
@given(tournament=tournaments(st.integers(2, 9)))
def test_a_small_round_is_the_best_of_every_pairing_there_is(tournament: Tournament):
    """Fewest repeats, then no second bye, then closest to the score groups: the round
    equals the best of all pairings of its field on those three."""
    for played in tournament.rounds:
        points = points_before(played)
        points.update({e.player: points.get(e.player, 0) for e in played.field})
        before, had = met(played.results_before), {b.player for b in played.byes_before}
        players = [e.player for e in played.field]
        best = min(objective(p, s, points, before, had) for p, s in every_pairing(players))
        boards = [(b.dealer, b.forehand) for b in played.round.pairings]
        assert objective(boards, played.round.bye, points, before, had) == best


def the_dealer_is_the_player_whose_dealer_balance_is_lower(tournament: Tournament):
    for played in tournament.rounds:
        balance: dict[str, int] = {}
        for result in played.results_before:
            balance[result.dealer] = balance.get(result.dealer, 0) + 1
            balance[result.forehand] = balance.get(result.forehand, 0) - 1
        for board in played.round.pairings:
            assert balance.get(board.dealer, 0) <= balance.get(board.forehand, 0)


def test_every_dealer_balance_stays_within_one_in_a_swiss_without_churn():
    for seed in (7, 8):
        tournament = play(seed=seed, players=200, rounds=9, churn=False)
        balance: dict[str, int] = {}
        for result in tournament.results:
            balance[result.dealer] = balance.get(result.dealer, 0) + 1
            balance[result.forehand] = balance.get(result.forehand, 0) - 1
        assert sorted(p for p, b in balance.items() if abs(b) > 1) == []


def test_a_player_entered_twice_is_refused():
    with pytest.raises(PairingError):
        pair_round(1, [Entrant("a"), Entrant("b"), Entrant("a")])


def test_a_late_joiner_starts_on_nought_and_meets_their_score_group():
    field = [Entrant(p) for p in "abcd"]
    results = [Result(1, "a", "b", "a"), Result(1, "c", "d", "c")]
    second = pair_round(2, [*field, Entrant("e"), Entrant("f")], results)
    boards = {board.players for board in second.pairings}
    assert frozenset("ac") in boards
    assert not any(board & {"e", "f"} and board & {"a", "c"} for board in boards)


def test_the_bye_goes_to_the_lowest_placed_player_without_one_and_scores_a_win():
    field = [Entrant(p, rating) for p, rating in zip("abc", (1600, 1500, 1400), strict=True)]
    first = pair_round(1, field)
    assert first.bye == "c"
    second = pair_round(2, field, [Result(1, "a", "b", "b")], [Bye(1, "c")])
    assert second.bye == "a"
    table = swiss_standings([Result(1, "a", "b", "b")], [Bye(1, "c")])
    assert {line.player: line.points for line in table} == {"a": 0, "b": 1, "c": 1}


def test_a_round_is_the_same_whatever_order_the_field_and_history_come_in():
    tournament = play(seed=3, players=70, rounds=5)
    played = tournament.rounds[-1]
    rng = random.Random(1)
    field, results = list(played.field), list(played.results_before)
    rng.shuffle(field)
    rng.shuffle(results)
    again = pair_round(played.round.number, field, results, reversed(played.byes_before))
    assert again == played.round


(
    test_every_player_in_the_field_plays_once_or_sits_out_and_no_withdrawn_player_is_paired,
    test_every_player_in_the_field_plays_once_or_sits_out_and_no_withdrawn_player_is_paired_over_drawn_tournaments,
) = fast_and_heavy(
    every_player_in_the_field_plays_once_or_sits_out_and_no_withdrawn_player_is_paired
)
(
    test_no_pair_meets_twice_while_the_round_could_be_paired_without,
    test_no_pair_meets_twice_while_the_round_could_be_paired_without_over_drawn_tournaments,
) = fast_and_heavy(no_pair_meets_twice_while_the_round_could_be_paired_without)
(
    test_no_second_bye_while_a_player_without_one_could_sit_out_without_a_repeat,
    test_no_second_bye_while_a_player_without_one_could_sit_out_without_a_repeat_over_drawn_tournaments,
) = fast_and_heavy(no_second_bye_while_a_player_without_one_could_sit_out_without_a_repeat)
(
    test_no_two_boards_could_swap_partners_to_keep_closer_to_their_score_groups,
    test_no_two_boards_could_swap_partners_to_keep_closer_to_their_score_groups_over_drawn_tournaments,
) = fast_and_heavy(no_two_boards_could_swap_partners_to_keep_closer_to_their_score_groups)
(
    test_the_dealer_is_the_player_whose_dealer_balance_is_lower,
    test_the_dealer_is_the_player_whose_dealer_balance_is_lower_over_drawn_tournaments,
) = fast_and_heavy(the_dealer_is_the_player_whose_dealer_balance_is_lower)
