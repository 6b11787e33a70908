"""R7 going out (claiming 66), head counting and tracked scorekeeping; R8 running out of cards."""

import pytest

from service.engine import (
    Action,
    ActionType,
    Card,
    DealEndReason,
    ErrorCode,
    IllegalActionError,
    apply,
    legal_actions,
    observe,
)
from tests.engine.builders import (
    BALANCED_DEAL,
    BALANCED_MOVES,
    E1_DEAL,
    E1_MOVES,
    E2_DEAL,
    E2_TO_66,
    E2_TO_CLOSE,
    E2_TO_END,
    E3_TWO_DEAL,
    E3_TWO_MOVES,
    E5_DEAL,
    E5_TO_70,
    FULL_DEAL,
    FULL_DEAL_OPEN,
    FULL_DEAL_STRICT,
    LAST_TRICK_DEAL,
    LAST_TRICK_OPEN,
    LAST_TRICK_STRICT,
    OUT_DEAL,
    TRACKED,
    deal_outcome,
    play,
    play_states,
    refuse,
    start,
)

CLAIM = Action(ActionType.CLAIM)
ACCEPT = Action(ActionType.ACCEPT_LAST_TRICK)


def _result(state):
    """The deal's outcome and who claimed."""
    return (*deal_outcome(state), state.deal.result.claimed_by)


# -- R7a card points ---------------------------------------------------------


def test_r7a_card_points_are_trick_points_plus_counting_marriages():
    state = play(start(E5_DEAL), *E5_TO_70)
    deal = state.deal
    assert deal.trick_points == (14 + 14 + 22, 6 + 5)
    assert deal.card_points(0) == 50 + 20 == 70
    assert deal.card_points(1) == 11 + 40 == 51


def test_r7a_tracked_view_shows_card_points_with_marriages():
    state = play(start(E5_DEAL, TRACKED), *E5_TO_70[:5])  # seat 1: 6 + 5 + 40
    assert observe(state, 0)["deal"]["card_points"] == [0, 51]
    assert observe(state, 1)["deal"]["card_points"] == [0, 51]
    assert observe(state, None)["deal"]["card_points"] == [0, 51]


# -- R7b when a claim is allowed ------------------------------------------------


def test_r7b_no_claim_on_the_first_lead_without_a_marriage():
    state = start(E1_DEAL)
    assert CLAIM not in legal_actions(state)
    error = refuse(state, "claim", ErrorCode.CLAIM_NOT_ALLOWED, "R7b")
    assert str(error).startswith("R7b: the first lead of a deal allows a claim only")


def test_r7b_claim_on_the_first_lead_just_after_a_marriage():
    state = play(start(OUT_DEAL), "marry H")
    assert CLAIM in legal_actions(state)
    state = play(state, "claim")
    assert _result(state) == (1, 3, DealEndReason.FALSE_CLAIM, 0)


def test_r7b_trick_winner_may_claim_before_leading():
    state = play(start(E1_DEAL), "AC", "TC")
    assert state.to_move == 0
    assert CLAIM in legal_actions(state)
    assert play(state, "claim").deal.result is not None


def test_r7b_no_claim_after_leading_or_by_the_loser():
    state = play(start(E1_DEAL), "AC", "TC")  # seat 0 won
    refuse(state, "claim", ErrorCode.NOT_YOUR_TURN, "R2c", seat=1)
    state = play(state, "AD")  # led: the claim moment has passed
    refuse(state, "claim", ErrorCode.NOT_YOUR_TURN, "R2a", seat=0)
    refuse(state, "claim", ErrorCode.NOT_ON_LEAD, "R2a", seat=1)


def test_r7b_claim_still_allowed_after_closing_before_the_lead():
    # reading: closing does not end the "just after the trick" moment
    state = play(start(E2_DEAL), *E2_TO_CLOSE)
    assert CLAIM in legal_actions(state)
    assert _result(play(state, "claim")) == (1, 2, DealEndReason.CLOSER_FALSE_CLAIM, 0)


# -- R7c a claim ends the deal -------------------------------------------------


def test_r7c_claim_with_66_ends_the_deal_and_wins():
    state = play(start(E1_DEAL), *E1_MOVES, "claim")
    assert _result(state) == (0, 3, DealEndReason.WENT_OUT, 0)
    assert state.deal.result.card_points == (70, 0)
    assert state.game_points == (4, 7)
    assert state.to_move is None
    assert legal_actions(state) == []
    assert state.awaiting_deal
    with pytest.raises(IllegalActionError) as caught:
        apply(state, Action.play(Card.KC), 0)
    assert caught.value.code is ErrorCode.NO_DEAL


def test_r7c_claim_with_exactly_66_wins():
    state = play(start(E3_TWO_DEAL), *E3_TWO_MOVES)
    assert state.deal.card_points(1) == 66
    assert play(state, "claim").deal.result.winner == 1


def test_r7c_claim_under_66_is_a_false_claim():
    state = play(start(OUT_DEAL), "TC", "AC", "TD", "JD", "QS", "AS", "marry H")
    assert state.deal.card_points(0) == 54
    state = play(state, "claim")
    assert _result(state) == (1, 2, DealEndReason.FALSE_CLAIM, 0)
    assert state.game_points == (7, 5)


# -- R7d head counting -------------------------------------------------------


def test_r7d_head_counting_hides_card_points_while_the_deal_runs():
    states = play_states(start(FULL_DEAL), *FULL_DEAL_OPEN, *FULL_DEAL_STRICT)
    for state in states:
        for viewer in (0, 1, None):
            assert observe(state, viewer)["deal"]["card_points"] is None
    over = play(states[-1], "accept")
    for viewer in (0, 1, None):
        assert observe(over, viewer)["deal"]["card_points"] == [70, 50]


def test_r7d_reaching_66_without_claiming_does_nothing():
    state = play(start(FULL_DEAL), *FULL_DEAL_OPEN)
    assert state.deal.card_points(0) == 70
    assert state.deal.result is None
    assert state.to_move == 0
    assert CLAIM in legal_actions(state)
    state = play(state, "JC", "JD")  # seat 0 leads on instead of claiming
    assert state.deal.result is None
    assert state.deal.leader == 1


# -- R7e tracked scorekeeping -----------------------------------------------


def test_r7e_tracked_card_points_are_visible_to_both():
    state = play(start(FULL_DEAL, TRACKED), "AC", "QC")
    for viewer in (0, 1, None):
        assert observe(state, viewer)["deal"]["card_points"] == [14, 0]


def test_r7e_tracked_goes_out_automatically_after_a_trick():
    state = play(start(FULL_DEAL, TRACKED), *FULL_DEAL_OPEN[:8])
    assert state.deal.result is None  # 56
    state = play(state, *FULL_DEAL_OPEN[8:])  # 70 at the fifth trick
    assert _result(state) == (0, 3, DealEndReason.WENT_OUT, 0)
    assert state.game_points == (4, 7)


def test_r7e_tracked_goes_out_automatically_after_a_marriage():
    state = play(start(E3_TWO_DEAL, TRACKED), *E3_TWO_MOVES)
    assert _result(state) == (1, 2, DealEndReason.CLOSER_OPPONENT_WENT_OUT, 1)
    assert state.deal.lead_card is None  # out at the declaration, before the lead


def test_r7e_tracked_has_no_claim():
    state = play(start(E1_DEAL, TRACKED), "AC", "TC")
    assert CLAIM not in legal_actions(state)
    error = refuse(state, "claim", ErrorCode.CLAIM_NOT_ALLOWED, "R7e")
    assert "automatic" in str(error)
    state = play(start(OUT_DEAL, TRACKED), "marry H")
    assert legal_actions(state) == [Action.play(Card.KH), Action.play(Card.QH)]
    refuse(state, "claim", ErrorCode.CLAIM_NOT_ALLOWED, "R7e")


def test_r7e_tracked_no_false_claims_in_a_whole_deal():
    states = play_states(start(LAST_TRICK_DEAL, TRACKED), *LAST_TRICK_OPEN)
    for state in states:
        assert CLAIM not in legal_actions(state)
        assert ACCEPT not in legal_actions(state)
    assert _result(states[-1]) == (0, 3, DealEndReason.WENT_OUT, 0)


def test_r7e_tracked_marriage_without_a_trick_does_not_go_out():
    state = play(start(OUT_DEAL, TRACKED), "marry H")
    assert state.deal.result is None
    state = play(state, "KH", "TH")  # seat 1 takes it: seat 0 still trickless
    assert state.deal.result is None
    assert observe(state, 0)["deal"]["card_points"] == [0, 14]


# -- R8a the last trick ------------------------------------------------------


def test_r8a_last_trick_winner_may_claim_or_accept():
    state = play(start(FULL_DEAL), *FULL_DEAL_OPEN, *FULL_DEAL_STRICT)
    assert state.deal.cards_out
    assert state.deal.result is None
    assert state.to_move == 1
    assert legal_actions(state) == [CLAIM, ACCEPT]


def test_r8a_accepting_gives_the_last_trick_one_game_point():
    state = play(start(FULL_DEAL), *FULL_DEAL_OPEN, *FULL_DEAL_STRICT, "accept")
    assert _result(state) == (1, 1, DealEndReason.LAST_TRICK, None)
    assert state.deal.result.card_points == (70, 50)
    assert state.game_points == (7, 6)


def test_r8a_accept_only_once_both_hands_are_empty():
    state = play(start(FULL_DEAL), *FULL_DEAL_OPEN)
    error = refuse(state, "accept", ErrorCode.ACCEPT_NOT_ALLOWED, "R8a")
    assert str(error) == "R8a: accept_last_trick is only possible once both hands are empty"
    state = play(start(FULL_DEAL), *FULL_DEAL_OPEN, *FULL_DEAL_STRICT[:8])
    refuse(state, "accept", ErrorCode.ACCEPT_NOT_ALLOWED, "R8a")


@pytest.mark.parametrize("move", ["close", "exchange", "marry D", "JD"])
def test_r8a_only_claim_or_accept_once_the_cards_are_out(move):
    state = play(start(FULL_DEAL), *FULL_DEAL_OPEN, *FULL_DEAL_STRICT)
    refuse(state, move, ErrorCode.MUST_CLAIM_OR_ACCEPT, "R8a")
    refuse(state, "accept", ErrorCode.NOT_YOUR_TURN, "R2c", seat=0)


def test_r8a_accepting_after_a_close_is_scored_by_r9b():
    # E2: seat 0 closed and wins the last trick, then accepts instead of claiming
    state = play(start(E2_DEAL), *E2_TO_CLOSE, *E2_TO_66, *E2_TO_END)
    assert state.deal.cards_out and state.to_move == 0
    state = play(state, "accept")
    assert _result(state) == (1, 2, DealEndReason.CLOSER_RAN_OUT, None)


def test_r8a_last_trick_wins_even_against_more_card_points():
    state = play(start(BALANCED_DEAL), *BALANCED_MOVES)
    assert state.deal.card_points(0) == state.deal.card_points(1) == 60
    assert play(state, "accept").deal.result.winner == 1


# -- R8b claiming after the last trick ------------------------------------------


def test_r8b_last_trick_claim_with_66_scores_by_r9a():
    state = play(start(LAST_TRICK_DEAL), *LAST_TRICK_OPEN, *LAST_TRICK_STRICT)
    assert state.deal.card_points(0) == 105 and state.deal.card_points(1) == 15
    assert legal_actions(state) == [CLAIM, ACCEPT]
    claimed = play(state, "claim")
    assert _result(claimed) == (0, 2, DealEndReason.WENT_OUT, 0)  # seat 1: 15 in 3 tricks
    accepted = play(state, "accept")
    assert _result(accepted) == (0, 1, DealEndReason.LAST_TRICK, None)


def test_r8b_last_trick_claim_without_66_is_a_false_claim():
    state = play(start(FULL_DEAL), *FULL_DEAL_OPEN, *FULL_DEAL_STRICT, "claim")
    assert _result(state) == (0, 2, DealEndReason.FALSE_CLAIM, 1)  # 50 is not 66


def test_r8b_closer_claiming_after_the_last_trick_scores_by_r9b():
    state = play(start(E2_DEAL), *E2_TO_CLOSE, *E2_TO_66, *E2_TO_END, "claim")
    assert _result(state) == (0, 2, DealEndReason.CLOSER_WENT_OUT, 0)
    assert state.deal.result.card_points == (93, 40)


def test_r8b_tracked_last_trick_goes_out_with_66():
    # BALANCED_DEAL with seat 1 declaring hearts (20) before leading QH at trick 5:
    # seat 1 counts 46, 53, 60 and reaches 80 only with the last trick
    moves = list(BALANCED_MOVES)
    moves.insert(8, "marry H")
    states = play_states(start(BALANCED_DEAL, TRACKED), *moves)
    assert all(state.deal.result is None for state in states[:-1])
    assert states[-2].deal.card_points(1) == 60
    final = states[-1]
    assert final.deal.cards_out
    assert _result(final) == (1, 1, DealEndReason.WENT_OUT, 1)  # seat 0 has 60
    assert final.deal.result.card_points == (60, 80)


def test_r8b_head_same_line_claim_or_accept():
    moves = list(BALANCED_MOVES)
    moves.insert(8, "marry H")
    state = play(start(BALANCED_DEAL), *moves)
    assert legal_actions(state) == [CLAIM, ACCEPT]
    assert _result(play(state, "claim")) == (1, 1, DealEndReason.WENT_OUT, 1)
    assert _result(play(state, "accept")) == (1, 1, DealEndReason.LAST_TRICK, None)


def test_r8b_tracked_last_trick_otherwise_accepted():
    states = play_states(start(BALANCED_DEAL, TRACKED), *BALANCED_MOVES)
    assert all(state.deal.result is None for state in states[:-1])
    final = states[-1]
    assert _result(final) == (1, 1, DealEndReason.LAST_TRICK, None)
    assert final.deal.result.card_points == (60, 60)
    assert final.game_points == (7, 6)


def test_r8b_tracked_has_no_accept():
    state = play(start(FULL_DEAL, TRACKED), "AC", "QC")
    error = refuse(state, "accept", ErrorCode.ACCEPT_NOT_ALLOWED, "R8b")
    assert "automatic" in str(error)
