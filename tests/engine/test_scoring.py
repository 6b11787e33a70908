"""R9 scoring a deal in game points, R10 the game (a match of deals)."""

import pytest

from service.engine import (
    Action,
    Card,
    DealEndReason,
    ErrorCode,
    IllegalActionError,
    apply,
    legal_actions,
    new_game,
    start_deal,
)
from tests.engine.builders import (
    BALANCED_DEAL,
    BALANCED_MOVES,
    CLOSED_DEAL,
    CLOSED_MOVES,
    CLOSED_MOVES_NO_MARRIAGE,
    E1_DEAL,
    E1_MOVES,
    E2_DEAL,
    E2_TO_66,
    E2_TO_CLOSE,
    E2_TO_END,
    E3_THREE_DEAL,
    E3_THREE_TO_60,
    E3_TWO_DEAL,
    E3_TWO_MOVES,
    E4_DEAL,
    E5_DEAL,
    E5_TO_70,
    OUT_CLOSED_DEAL,
    OUT_DEAL,
    TRACKED,
    build_deck,
    deal_outcome,
    false_claim_deck,
    play,
    refuse,
    seated_game,
    start,
)


def _out_deal(seat1_first: str):
    """OUT_DEAL: seat 1 takes TC with ``seat1_first`` and TD-JD; seat 0 goes on to 68."""
    return play(start(OUT_DEAL), "TC", seat1_first, "TD", "JD", "QS", "AS", "marry H", "KH", "TS")


# -- R9a going out ---------------------------------------------------------


def test_r9a_one_point_when_the_opponent_has_33():
    state = _out_deal("AC")  # seat 1: 21 + 12 = 33
    assert state.deal.card_points(1) == 33 and state.deal.card_points(0) == 68
    state = play(state, "claim")
    assert deal_outcome(state) == (0, 1, DealEndReason.WENT_OUT)
    assert state.deal.result.claimed_by == 0
    assert state.game_points == (6, 7)


def test_r9a_two_points_when_the_opponent_has_32_and_a_trick():
    state = _out_deal("TH")  # seat 1 trumps: 20 + 12 = 32
    assert state.deal.card_points(1) == 32
    state = play(state, "claim")
    assert deal_outcome(state) == (0, 2, DealEndReason.WENT_OUT)
    assert state.game_points == (5, 7)


def test_r9a_three_points_when_the_opponent_has_no_trick():
    state = play(start(E1_DEAL), *E1_MOVES, "claim")
    assert deal_outcome(state) == (0, 3, DealEndReason.WENT_OUT)
    assert state.deal.result.tricks_won == (4, 0)


def test_r9a_opponents_counting_marriage_makes_33():
    # E5: seat 1 has 11 trick points but a counting 40 marriage: 51
    state = play(start(E5_DEAL), *E5_TO_70, "claim")
    assert state.deal.trick_points[1] == 11
    assert deal_outcome(state) == (0, 1, DealEndReason.WENT_OUT)


def test_r9a_trickless_opponents_marriage_does_not_count():
    # trump hearts (TH): seat 0 declares clubs (20) on the first lead but never wins a trick
    deck = build_deck("KC QC JD JS JH", "AC AD AS AH TS", "TH")
    state = play(start(deck), "marry C", "QC", "AC", "AD", "JD", "AS", "JS", "AH", "JH", "TS", "KC")
    assert state.deal.card_points(1) == 14 + 13 + 13 + 13 + 14 == 67
    assert state.deal.card_points(0) == 0
    state = play(state, "claim")
    assert deal_outcome(state) == (1, 3, DealEndReason.WENT_OUT)
    assert state.deal.result.card_points == (0, 67)


@pytest.mark.parametrize("seat1_first, seat1_points, game_points", [("AC", 33, 1), ("TH", 32, 2)])
def test_r9a_tracked_going_out_scores_the_same(seat1_first, seat1_points, game_points):
    state = play(start(OUT_DEAL, TRACKED), "TC", seat1_first, "TD", "JD", "QS", "AS", "marry H")
    assert state.deal.result is None  # 54
    state = play(state, "KH", "TS")  # 68: out at once
    assert state.deal.result.card_points == (68, seat1_points)
    assert deal_outcome(state) == (0, game_points, DealEndReason.WENT_OUT)


# -- R9b closing -----------------------------------------------------------


def test_r9b_closer_going_out_is_judged_at_the_close():
    # E2: seat 1 had 19 in 2 tricks at the close and 40 at the end
    state = play(start(E2_DEAL), *E2_TO_CLOSE, *E2_TO_66, "claim")
    assert state.deal.card_points(1) == 40
    assert deal_outcome(state) == (0, 2, DealEndReason.CLOSER_WENT_OUT)


def test_r9b_closer_going_out_one_point_when_opponent_had_33_at_the_close():
    state = play(start(OUT_CLOSED_DEAL), "TC", "AC", "TD", "JD", "QS", "AS", "close")
    assert state.deal.at_close == (33, 2)
    state = play(state, "marry H", "KH", "TS")  # seat 1 holds no trump: 68
    state = play(state, "claim")
    assert deal_outcome(state) == (0, 1, DealEndReason.CLOSER_WENT_OUT)


def test_r9b_closer_going_out_three_points_when_opponent_trickless_at_the_close():
    state = play(start(E4_DEAL), "close", "AH", "AS", "marry H", "KH", "JS", "claim")
    assert state.deal.result.card_points == (68, 0)
    assert deal_outcome(state) == (0, 3, DealEndReason.CLOSER_WENT_OUT)


def test_r9b_closer_false_claim_gives_opponent_two():
    state = play(start(E2_DEAL), *E2_TO_CLOSE, *E2_TO_66[:3])  # 58 after QH-JC
    assert state.deal.card_points(0) == 58
    state = play(state, "claim")
    assert deal_outcome(state) == (1, 2, DealEndReason.CLOSER_FALSE_CLAIM)
    assert state.deal.result.claimed_by == 0


def test_r9b_closer_false_claim_gives_trickless_opponent_three():
    state = play(start(E4_DEAL), "close", "AH", "AS", "marry H", "claim")
    assert deal_outcome(state) == (1, 3, DealEndReason.CLOSER_FALSE_CLAIM)


def test_r9b_closer_running_out_of_cards_gives_opponent_two():
    # E2 played out: seat 0 wins the last trick with 93 but accepts instead of claiming
    state = play(start(E2_DEAL), *E2_TO_CLOSE, *E2_TO_66, *E2_TO_END, "accept")
    assert deal_outcome(state) == (1, 2, DealEndReason.CLOSER_RAN_OUT)


def test_r9b_closer_losing_the_last_trick_fails_even_with_66():
    state = play(start(CLOSED_DEAL), *CLOSED_MOVES)
    assert state.deal.card_points(0) == 88
    assert state.deal.tricks[-1].winner == 1 and state.to_move == 1
    # the closer is not on lead: there is no moment left to claim
    refuse(state, "claim", ErrorCode.NOT_YOUR_TURN, "R2c", seat=0)
    state = play(state, "accept")
    assert deal_outcome(state) == (
        1,
        3,
        DealEndReason.CLOSER_RAN_OUT,
    )  # seat 1 trickless at the close
    assert state.game_points == (7, 4)


def test_r9b_closer_losing_the_last_trick_tracked():
    state = play(start(CLOSED_DEAL, TRACKED), *CLOSED_MOVES_NO_MARRIAGE)
    assert state.deal.result.card_points == (48, 13)
    assert deal_outcome(state) == (1, 3, DealEndReason.CLOSER_RAN_OUT)


def test_r9b_opponent_going_out_first_wins_two():
    state = play(start(E3_TWO_DEAL), *E3_TWO_MOVES, "claim")
    assert state.deal.at_close == (13, 1)
    assert state.deal.card_points(0) == 34  # by R9a it would have been 1
    assert deal_outcome(state) == (1, 2, DealEndReason.CLOSER_OPPONENT_WENT_OUT)


def test_r9b_opponent_going_out_first_wins_three_when_trickless_at_the_close():
    state = play(start(E3_THREE_DEAL), *E3_THREE_TO_60, "AH", "JD", "claim")
    assert state.deal.at_close == (0, 0)
    assert state.deal.result.card_points == (15, 73)  # by R9a it would have been 2
    assert deal_outcome(state) == (1, 3, DealEndReason.CLOSER_OPPONENT_WENT_OUT)


# -- R9c false claims ----------------------------------------------------------


def test_r9c_false_claim_gives_opponent_with_a_trick_two():
    state = play(start(OUT_DEAL), "TC", "AC", "TD", "JD", "QS", "AS", "claim")  # 14
    assert deal_outcome(state) == (1, 2, DealEndReason.FALSE_CLAIM)
    assert state.deal.result.claimed_by == 0
    assert state.game_points == (7, 5)


def test_r9c_false_claim_gives_trickless_opponent_three():
    state = play(start(E1_DEAL), "AC", "TC", "claim")  # 21, seat 1 has no trick
    assert deal_outcome(state) == (1, 3, DealEndReason.FALSE_CLAIM)
    assert state.game_points == (7, 4)


def test_r9c_false_claim_just_after_a_first_lead_marriage_gives_three():
    state = play(start(false_claim_deck()), "marry H", "claim")
    assert deal_outcome(state) == (1, 3, DealEndReason.FALSE_CLAIM)
    assert state.deal.result.card_points == (0, 0)


def test_r9c_false_claim_after_the_last_trick():
    state = play(start(BALANCED_DEAL), *BALANCED_MOVES, "claim")  # 60
    assert deal_outcome(state) == (0, 2, DealEndReason.FALSE_CLAIM)


def test_r9c_tracked_has_no_false_claim():
    state = play(start(OUT_DEAL, TRACKED), "TC", "AC", "TD", "JD", "QS", "AS")
    refuse(state, "claim", ErrorCode.CLAIM_NOT_ALLOWED, "R7e")
    assert state.deal.result is None


# -- R9d false claim by the closer's opponent ----------------------------------


def test_r9d_false_claim_by_closers_opponent_gives_closer_two():
    state = play(start(E3_THREE_DEAL), *E3_THREE_TO_60)  # seat 1: 60; the closer has a trick
    state = play(state, "claim")
    assert deal_outcome(state) == (0, 2, DealEndReason.FALSE_CLAIM)
    assert state.deal.result.claimed_by == 1


def test_r9d_false_claim_by_closers_opponent_gives_trickless_closer_three():
    # seat 0 closes on the first lead and leads JC; seat 1 takes it with AC (13) and claims
    state = play(start(CLOSED_DEAL), "close", "JC", "AC", "claim")
    assert deal_outcome(state) == (0, 3, DealEndReason.FALSE_CLAIM)
    assert state.deal.result.claimed_by == 1


def test_r9d_false_claim_by_closers_opponent_after_the_last_trick():
    state = play(start(CLOSED_DEAL), *CLOSED_MOVES, "claim")  # 13 points
    assert deal_outcome(state) == (0, 2, DealEndReason.FALSE_CLAIM)


# -- R10 the game ----------------------------------------------------------


def _three_deal_game():
    """Seat 0 wins 3 game points in each of three deals (first dealer seat 0)."""
    state = seated_game(first_dealer=0)
    states = []
    for deck, moves in [
        (false_claim_deck(), ("marry H", "claim")),  # dealer 0: seat 1 claims falsely
        (E1_DEAL, (*E1_MOVES, "claim")),  # dealer 1: seat 0 goes out
        (false_claim_deck(), ("marry H", "claim")),  # dealer 0: seat 1 claims falsely
    ]:
        state = play(start_deal(state, deck), *moves)
        states.append(state)
    return states


def test_r10a_both_seats_start_at_seven():
    state = new_game()
    assert state.game_points == (7, 7)
    assert state.results == ()
    assert state.winner is None


def test_r10a_deal_winner_subtracts_its_game_points():
    first, second, _ = _three_deal_game()
    assert first.game_points == (4, 7)
    assert second.game_points == (1, 7)
    assert [r.game_points for r in second.results] == [3, 3]
    assert [r.winner for r in second.results] == [0, 0]


def test_r10a_tracked_game_counts_down_the_same_way():
    state = play(start(E1_DEAL, TRACKED), *E1_MOVES)
    assert state.game_points == (4, 7)
    state = play(start_deal(state, E1_DEAL), "AC")
    assert state.deal.dealer == 0 and state.deal.number == 2


def test_r10a_game_points_never_go_below_zero():
    third = _three_deal_game()[-1]
    assert third.results[-1].game_points == 3
    assert third.game_points == (0, 7)


def test_r10b_first_seat_at_zero_wins_and_no_deal_follows():
    third = _three_deal_game()[-1]
    assert third.winner == 0
    assert third.status == "finished"
    assert not third.awaiting_deal
    assert third.to_move is None
    assert legal_actions(third) == []
    with pytest.raises(IllegalActionError) as caught:
        start_deal(third, E1_DEAL)
    assert caught.value.code is ErrorCode.GAME_OVER
    assert str(caught.value).startswith("R10b: ")
    with pytest.raises(IllegalActionError) as caught:
        apply(third, Action.play(Card.AC), 0)
    assert caught.value.code is ErrorCode.GAME_OVER


def test_r10b_game_goes_on_while_nobody_is_at_zero():
    second = _three_deal_game()[1]
    assert second.winner is None
    assert second.status == "active"
    assert second.awaiting_deal


def test_r10c_dealer_alternates_every_deal():
    states = _three_deal_game()
    assert [r.dealer for r in states[-1].results] == [0, 1, 0]
    assert [r.number for r in states[-1].results] == [1, 2, 3]
    for index, state in enumerate(states):
        assert state.deal.dealer == [0, 1, 0][index]
    assert states[0].next_dealer == 1
    assert states[1].next_dealer == 0


def test_r10c_dealer_alternates_from_either_first_dealer():
    state = seated_game(first_dealer=1)
    dealers = []
    for _ in range(4):
        state = start_deal(state, false_claim_deck())
        dealers.append((state.deal.dealer, state.to_move))
        state = play(state, "marry H", "claim")
    assert dealers == [(1, 0), (0, 1), (1, 0), (0, 1)]
    assert state.game_points == (1, 1)  # each dealer won 3 twice


# -- R7 to R9 against an independent reference, on seeded random deals ---------


class _Reference:
    """Card points, tricks and the R9 outcome, kept from the moves alone."""

    def __init__(self, trump):
        self.trump = trump
        self.points = [0, 0]
        self.tricks = [0, 0]
        self.marriages = [0, 0]
        self.closer = None
        self.at_close = None

    def card_points(self, seat):
        return self.points[seat] + (self.marriages[seat] if self.tricks[seat] else 0)

    def close(self, seat):
        self.closer = seat
        self.at_close = (self.card_points(1 - seat), self.tricks[1 - seat])

    def by_opponent(self, points, tricks):
        if tricks == 0:
            return 3
        return 1 if points >= 33 else 2

    def penalty(self):
        return 3 if self.at_close[1] == 0 else 2

    def claim(self, seat):
        """(winner, game points) of a claim (or automatic going out) by ``seat``."""
        other = 1 - seat
        if self.card_points(seat) >= 66:
            if self.closer is None:
                return seat, self.by_opponent(self.card_points(other), self.tricks[other])
            if self.closer == seat:
                return seat, self.by_opponent(*self.at_close)
            return seat, self.penalty()
        if self.closer == seat:
            return other, self.penalty()
        return other, 3 if self.tricks[other] == 0 else 2

    def accept(self, last_winner):
        if self.closer is not None:
            return 1 - self.closer, self.penalty()
        return last_winner, 1


@pytest.mark.parametrize("variant", ["head", "tracked"])
def test_r9a_to_r9d_scoring_matches_a_reference_on_random_deals(variant):
    import random

    from service.engine import DECK, ActionType, Variant

    rng = random.Random(7 if variant == "head" else 8)
    kinds = {}
    for _ in range(300):
        deck = list(DECK)
        rng.shuffle(deck)
        state = start(deck, Variant(variant))
        ref = _Reference(state.deal.trump)
        expected = None
        while state.deal.result is None:
            deal = state.deal
            actions = legal_actions(state)
            by_type = {}
            for act in actions:
                by_type.setdefault(act.type, []).append(act)
            seat = state.to_move
            if deal.lead_card is None and ActionType.CLAIM in by_type and rng.random() < 0.15:
                choice = by_type[ActionType.CLAIM][0]
                expected = ref.claim(seat)
            elif ActionType.ACCEPT_LAST_TRICK in by_type:
                choice = by_type[ActionType.ACCEPT_LAST_TRICK][0]
                expected = ref.accept(deal.tricks[-1].winner)
            elif ActionType.EXCHANGE_TRUMP_JACK in by_type and rng.random() < 0.5:
                choice = by_type[ActionType.EXCHANGE_TRUMP_JACK][0]
            elif ActionType.CLOSE_TALON in by_type and rng.random() < 0.12:
                choice = by_type[ActionType.CLOSE_TALON][0]
                ref.close(seat)
            elif ActionType.DECLARE_MARRIAGE in by_type and rng.random() < 0.7:
                choice = rng.choice(by_type[ActionType.DECLARE_MARRIAGE])
                ref.marriages[seat] += 40 if choice.suit is ref.trump else 20
                if variant == "tracked" and ref.card_points(seat) >= 66:
                    expected = ref.claim(seat)
            else:
                choice = rng.choice(by_type[ActionType.PLAY])
                if deal.lead_card is not None:
                    lead, follow = deal.lead_card, choice.card
                    leader = deal.leader
                    wins = follow.beats(lead, ref.trump)
                    winner = 1 - leader if wins else leader
                    ref.points[winner] += lead.points + follow.points
                    ref.tricks[winner] += 1
                    if variant == "tracked":
                        if ref.card_points(winner) >= 66:
                            expected = ref.claim(winner)
                        elif not deal.hands[leader]:  # that was the last trick
                            expected = ref.accept(winner)
            state = play(state, choice)
            if state.deal.result is None:
                assert expected is None, (expected, choice)
        result = state.deal.result
        assert expected is not None
        assert (result.winner, result.game_points) == expected
        assert result.card_points == (ref.card_points(0), ref.card_points(1))
        kinds[result.reason] = kinds.get(result.reason, 0) + 1
    assert len(kinds) >= (7 if variant == "head" else 5), kinds
