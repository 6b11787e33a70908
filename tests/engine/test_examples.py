"""The worked examples E1-E5 of docs/rules.md, each played out card by card."""

from service.engine import DealEndReason, ErrorCode, legal_actions
from service.engine.actions import CLAIM
from tests.engine.builders import (
    E1_DEAL,
    E1_MOVES,
    E2_DEAL,
    E2_TO_66,
    E2_TO_CLOSE,
    E3_THREE_DEAL,
    E3_THREE_TO_60,
    E3_TWO_DEAL,
    E3_TWO_MOVES,
    E4_DEAL,
    E5_DEAL,
    E5_TO_70,
    FULL_DEAL,
    FULL_DEAL_OPEN,
    FULL_DEAL_STRICT,
    TRACKED,
    deal_outcome,
    play,
    play_states,
    refuse,
    start,
)

# -- E1 going out with 70 ----------------------------------------------------


def test_e1_going_out_with_70_after_four_tricks():
    state = play(start(E1_DEAL), *E1_MOVES)
    assert [trick.points for trick in state.deal.tricks] == [21, 21, 14, 14]
    assert all(trick.winner == 0 for trick in state.deal.tricks)
    assert state.deal.card_points(0) == 70
    assert CLAIM in legal_actions(state)
    state = play(state, "claim")
    assert deal_outcome(state) == (0, 3, DealEndReason.WENT_OUT)
    assert state.deal.result.card_points == (70, 0)
    assert state.game_points == (4, 7)


def test_e1_claim_one_trick_early_is_false():
    state = play(start(E1_DEAL), *E1_MOVES[:6])
    assert state.deal.card_points(0) == 56
    state = play(state, "claim")
    assert deal_outcome(state) == (1, 3, DealEndReason.FALSE_CLAIM)


def test_e1_tracked_goes_out_at_the_fourth_trick():
    states = play_states(start(E1_DEAL, TRACKED), *E1_MOVES)
    assert all(state.deal.result is None for state in states[:-1])
    assert deal_outcome(states[-1]) == (0, 3, DealEndReason.WENT_OUT)


# -- E2 closing: judged at the close -----------------------------------------


def test_e2_closer_scored_at_close():
    state = play(start(E2_DEAL), *E2_TO_CLOSE)
    assert state.deal.closed_by == 0
    assert state.deal.at_close == (19, 2)
    state = play(state, *E2_TO_66[:3])
    assert state.deal.card_points(1) == 19
    state = play(state, *E2_TO_66[3:5])  # TC into seat 1's AC: seat 1 takes A and T of clubs
    last = state.deal.tricks[-1]
    assert {last.lead.value, last.follow.value} == {"TC", "AC"} and last.winner == 1
    assert state.deal.card_points(1) == 40
    state = play(state, *E2_TO_66[5:])
    assert state.deal.card_points(0) == 66
    state = play(state, "claim")
    assert deal_outcome(state) == (0, 2, DealEndReason.CLOSER_WENT_OUT)  # not 1 for 40
    assert state.deal.result.card_points == (66, 40)
    assert state.game_points == (5, 7)


def test_e2_tracked_closer_goes_out_automatically_and_scores_two():
    state = play(start(E2_DEAL, TRACKED), *E2_TO_CLOSE, *E2_TO_66)
    assert deal_outcome(state) == (0, 2, DealEndReason.CLOSER_WENT_OUT)


# -- E3 close, and the opponent goes out first ---------------------------------


def test_e3_opponent_goes_out_first_wins_two():
    state = play(start(E3_TWO_DEAL), *E3_TWO_MOVES)
    assert state.deal.closed_by == 0 and state.deal.at_close == (13, 1)
    assert state.deal.card_points(1) == 66
    state = play(state, "claim")
    assert deal_outcome(state) == (1, 2, DealEndReason.CLOSER_OPPONENT_WENT_OUT)
    assert state.game_points == (7, 5)


def test_e3_opponent_goes_out_first_wins_three_without_a_trick_at_the_close():
    state = play(start(E3_THREE_DEAL), *E3_THREE_TO_60, "AH", "JD")
    assert state.deal.at_close == (0, 0)
    assert state.deal.tricks_won(0) == 1  # the closer did win a trick later
    state = play(state, "claim")
    assert deal_outcome(state) == (1, 3, DealEndReason.CLOSER_OPPONENT_WENT_OUT)
    assert state.game_points == (7, 4)


def test_e3_tracked_opponent_goes_out_automatically():
    state = play(start(E3_TWO_DEAL, TRACKED), *E3_TWO_MOVES)
    assert deal_outcome(state) == (1, 2, DealEndReason.CLOSER_OPPONENT_WENT_OUT)
    state = play(start(E3_THREE_DEAL, TRACKED), *E3_THREE_TO_60, "AH", "JD")
    assert deal_outcome(state) == (1, 3, DealEndReason.CLOSER_OPPONENT_WENT_OUT)


# -- E4 close on the first lead with A, K, Q of trumps ---------------------------


def test_e4_claim_after_the_40_is_the_closers_false_claim():
    state = play(start(E4_DEAL), "close", "AH", "AS")
    assert state.deal.card_points(0) == 22  # the most an ace trick can bring
    state = play(state, "marry H")
    assert state.deal.card_points(0) == 62
    state = play(state, "claim")
    assert deal_outcome(state) == (1, 3, DealEndReason.CLOSER_FALSE_CLAIM)


def test_e4_leading_the_king_and_winning_goes_out():
    state = play(start(E4_DEAL), "close", "AH", "AS", "marry H", "KH")
    # seat 1 holds no trump and may throw anything; its lowest card still leaves 68
    state = play(state, "JS")
    assert state.deal.card_points(0) == 68
    state = play(state, "claim")
    assert deal_outcome(state) == (0, 3, DealEndReason.CLOSER_WENT_OUT)


def test_e4_first_lead_claim_needs_the_marriage():
    state = play(start(E4_DEAL), "close")
    refuse(state, "claim", ErrorCode.CLAIM_NOT_ALLOWED, "R7b")


def test_e4_tracked_goes_out_after_the_king_trick():
    state = play(start(E4_DEAL, TRACKED), "close", "AH", "AS", "marry H")
    assert state.deal.result is None  # 62
    state = play(state, "KH", "JS")
    assert deal_outcome(state) == (0, 3, DealEndReason.CLOSER_WENT_OUT)


# -- E5 70 points are worth nothing unclaimed -----------------------------------


def test_e5_player_with_70_loses_to_an_opponent_who_claims_first():
    state = play(start(E5_DEAL), *E5_TO_70)
    assert state.deal.card_points(0) == 70
    state = play(state, "TC", "AS")  # seat 0 leads on instead of claiming; seat 1 trumps
    assert state.deal.card_points(1) == 72
    state = play(state, "claim")
    assert deal_outcome(state) == (1, 1, DealEndReason.WENT_OUT)
    assert state.deal.result.card_points == (70, 72)


def test_e5_player_with_70_loses_to_the_last_trick():
    state = play(start(FULL_DEAL), *FULL_DEAL_OPEN)
    assert state.deal.card_points(0) == 70
    state = play(state, *FULL_DEAL_STRICT)  # seat 0 never claims
    assert state.deal.tricks[-1].winner == 1
    state = play(state, "accept")
    assert deal_outcome(state) == (1, 1, DealEndReason.LAST_TRICK)
    assert state.deal.result.card_points == (70, 50)


def test_e5_only_in_head_counting():
    # tracked: the same 70 goes out on its own at the fifth trick
    state = play(start(FULL_DEAL, TRACKED), *FULL_DEAL_OPEN)
    assert deal_outcome(state) == (0, 3, DealEndReason.WENT_OUT)
    state = play(start(E5_DEAL, TRACKED), *E5_TO_70)
    assert deal_outcome(state) == (0, 1, DealEndReason.WENT_OUT)
