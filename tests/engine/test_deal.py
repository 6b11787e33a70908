"""R1 the deal, R2 tricks, R3 drawing, R4 open play."""

import copy

import pytest

from service.engine import (
    Card,
    ErrorCode,
    IllegalActionError,
    InvalidDeckError,
    Suit,
    apply,
    legal_actions,
    new_game,
    start_deal,
    take_seat,
)
from service.engine.actions import Action
from tests.engine.builders import (
    E1_DEAL,
    EXCHANGE_DEAL,
    EXCHANGE_FOUR_TRICKS,
    FULL_DEAL,
    FULL_DEAL_OPEN,
    OUT_DEAL,
    build_deck,
    cards,
    codes,
    false_claim_deck,
    hand,
    play,
    refuse,
    seated_game,
    start,
)

# -- R1 deal ---------------------------------------------------------------


def test_r1a_deal_keeps_its_deck_order():
    state = start(FULL_DEAL)
    assert state.deal.deck == FULL_DEAL
    assert state.deal.number == 1
    # the recorded order survives the whole deal
    assert play(state, *FULL_DEAL_OPEN).deal.deck == FULL_DEAL


@pytest.mark.parametrize(
    "deck",
    [
        FULL_DEAL[:19],
        FULL_DEAL + (FULL_DEAL[0],),
        FULL_DEAL[:19] + (FULL_DEAL[0],),
        (),
    ],
    ids=["19 cards", "21 cards", "a card twice", "empty"],
)
def test_r1a_deck_must_hold_each_card_once(deck):
    state = seated_game()
    before = copy.deepcopy(state)
    with pytest.raises(InvalidDeckError) as caught:
        start_deal(state, deck)
    assert caught.value.code is ErrorCode.INVALID_DECK
    assert str(caught.value).startswith("R1a: ")
    assert state == before


def test_r1a_no_second_deal_while_one_runs():
    state = start(FULL_DEAL)
    with pytest.raises(IllegalActionError) as caught:
        start_deal(state, E1_DEAL)
    assert caught.value.code is ErrorCode.NO_DEAL


def test_r1a_no_action_before_a_deal_is_dealt():
    state = seated_game()
    with pytest.raises(IllegalActionError) as caught:
        apply(state, Action.play(Card.AC), 0)
    assert caught.value.code is ErrorCode.NO_DEAL
    assert legal_actions(state) == []


def test_r1a_game_waits_for_both_seats():
    state = take_seat(new_game(), 0)
    assert state.status == "waiting"
    state = start_deal(state, FULL_DEAL)
    with pytest.raises(IllegalActionError) as caught:
        apply(state, Action.play(Card.AC))
    assert caught.value.code is ErrorCode.GAME_WAITING
    assert legal_actions(state) == []
    assert take_seat(state, 1).status == "active"


def test_r1b_five_cards_each_trump_card_and_talon():
    deck = FULL_DEAL
    deal = start(deck).deal  # seat 1 deals: seat 0 holds positions 0-4
    assert set(deal.hands[0]) == set(deck[0:5])
    assert set(deal.hands[1]) == set(deck[5:10])
    assert len(deal.hands[0]) == len(deal.hands[1]) == 5
    assert deal.turn_up is deck[10] is Card.JD
    assert deal.trump is Suit.DIAMONDS
    assert deal.trump_card is Card.JD
    assert deal.talon == deck[11:20]
    assert len(deal.talon) == 9
    assert not deal.exhausted
    assert deal.talon_open
    assert deal.closed_by is None


def test_r1b_dealer_holds_positions_5_to_9():
    deck = FULL_DEAL
    deal = start(deck, first_dealer=0).deal
    assert deal.dealer == 0
    assert set(deal.hands[1]) == set(deck[0:5])
    assert set(deal.hands[0]) == set(deck[5:10])


def test_r1c_non_dealer_leads_the_first_trick():
    for dealer in (0, 1):
        state = start(FULL_DEAL, first_dealer=dealer)
        assert state.deal.dealer == dealer
        assert state.to_move == 1 - dealer
        assert state.deal.leader == 1 - dealer
        refuse(state, "AC", ErrorCode.NOT_YOUR_TURN, "R2c", seat=dealer)


def test_r1c_dealer_alternates_every_deal():
    state = play(start(false_claim_deck()), "marry H", "claim")  # deal 1, dealer 1
    assert state.awaiting_deal and state.next_dealer == 0
    state = start_deal(state, false_claim_deck())
    assert state.deal.number == 2
    assert state.deal.dealer == 0
    assert state.to_move == 1
    assert set(state.deal.hands[1]) == set(false_claim_deck()[:5])


def test_r1c_first_dealer_must_be_a_seat():
    with pytest.raises(ValueError):
        new_game(first_dealer=2)
    with pytest.raises(ValueError):
        take_seat(new_game(), 2)


# -- R2 tricks -------------------------------------------------------------


def test_r2a_leader_plays_then_follower():
    state = start(FULL_DEAL)
    assert state.to_move == 0
    state = play(state, "AC")
    assert state.deal.lead_card is Card.AC
    assert state.to_move == 1
    assert Card.AC not in state.deal.hands[0]
    assert legal_actions(state) == [Action.play(card) for card in state.deal.hands[1]]
    state = play(state, "QC")
    assert state.deal.lead_card is None
    trick = state.deal.tricks[-1]
    assert (trick.leader, trick.lead, trick.follow, trick.winner) == (0, Card.AC, Card.QC, 0)


@pytest.mark.parametrize("move", ["close", "exchange", "marry S", "claim", "accept"])
def test_r2a_follower_may_only_play_a_card(move):
    state = play(start(FULL_DEAL), "AC")  # seat 1 (holding KS QS) must follow
    refuse(state, move, ErrorCode.NOT_ON_LEAD, "R2a")


def test_r2a_card_must_be_in_hand():
    state = start(FULL_DEAL)
    error = refuse(state, "QC", ErrorCode.CARD_NOT_IN_HAND, "R2a")
    assert str(error) == "R2a: QC is not in your hand (you hold AC, TC, AH, AS, TS)"
    assert error.seat == 0
    state = play(state, "AC")
    error = refuse(state, "JC", ErrorCode.CARD_NOT_IN_HAND, "R2a")
    assert error.seat == 1


def test_r2a_only_the_seat_to_move_acts():
    state = start(FULL_DEAL)
    error = refuse(state, "QC", ErrorCode.NOT_YOUR_TURN, "R2c", seat=1)
    assert error.seat == 1
    state = play(state, "AC")
    refuse(state, "TC", ErrorCode.NOT_YOUR_TURN, "R2a", seat=0)


@pytest.mark.parametrize(
    "lead, follow, winner",
    [
        ("AC", "QC", 0),  # lower card of the suit led
        ("QC", "KC", 1),  # higher card of the suit led
        ("KC", "TC", 1),  # ten beats king
        ("JC", "AH", 0),  # another non-trump suit never wins, even an ace
        ("AC", "JD", 1),  # any trump beats a non-trump lead
        ("JD", "AC", 0),  # a non-trump never beats a trump lead
        ("QD", "KD", 1),  # the higher trump wins
        ("AD", "TD", 0),
    ],
)
def test_r2b_trick_goes_to_higher_card_of_suit_led_or_trump(lead, follow, winner):
    deck = _with_trump(lead, follow, Suit.DIAMONDS)  # seat 0 leads, diamonds are trumps
    state = play(start(deck), lead, follow)
    assert state.deal.trump is Suit.DIAMONDS
    assert state.deal.tricks[0].winner == winner
    assert state.deal.leader == winner


def _with_trump(lead: str, follow: str, trump: Suit) -> list[Card]:
    """A deck where seat 0 holds ``lead``, seat 1 holds ``follow``, and ``trump`` is trumps."""
    used = {lead, follow}
    turn_up = next(c for c in codes(Card) if c[1] == trump.value and c not in used)
    used.add(turn_up)
    rest = [c for c in codes(Card) if c not in used]
    return build_deck([lead] + rest[:4], [follow] + rest[4:8], turn_up)


def test_r2c_winner_scores_both_cards_and_leads():
    state = start(OUT_DEAL)
    state = play(state, "TC", "AC")  # seat 1 wins 10 + 11
    assert state.deal.trick_points == (0, 21)
    assert state.deal.leader == 1 and state.to_move == 1
    state = play(state, "TD", "JD")  # seat 1 leads and wins again: 10 + 2
    assert state.deal.trick_points == (0, 33)
    state = play(state, "QS", "AS")  # seat 0 wins 3 + 11
    assert state.deal.trick_points == (14, 33)
    assert state.deal.leader == 0
    assert [t.winner for t in state.deal.tricks] == [1, 1, 0]
    assert state.deal.tricks_won(0) == 1 and state.deal.tricks_won(1) == 2


# -- R3 drawing ------------------------------------------------------------


def test_r3a_winner_draws_top_card_then_loser():
    state = play(start(FULL_DEAL), "AC", "QC")  # seat 0 wins
    assert Card.JC in state.deal.hands[0]  # talon position 11
    assert Card.AD in state.deal.hands[1]  # talon position 12
    assert state.deal.talon == FULL_DEAL[13:]
    assert len(state.deal.hands[0]) == len(state.deal.hands[1]) == 5


def test_r3a_follower_who_wins_draws_first():
    state = play(start(OUT_DEAL), "TC", "AC")  # seat 1 wins
    top, second = OUT_DEAL[11], OUT_DEAL[12]
    assert top in state.deal.hands[1]
    assert second in state.deal.hands[0]
    assert state.deal.talon == OUT_DEAL[13:]


def test_r3a_each_open_trick_draws_two_cards():
    state = start(FULL_DEAL)
    for index in range(4):
        state = play(state, *FULL_DEAL_OPEN[2 * index : 2 * index + 2])
        assert len(state.deal.talon) == 9 - 2 * (index + 1)
        assert not state.deal.exhausted
        assert state.deal.trump_card is Card.JD
    assert set(hand(state, 0)) == {"AH", "JC", "JS", "JH", "TH"}
    assert set(hand(state, 1)) == {"AD", "TD", "KD", "QD", "QH"}


def test_r3b_trump_card_goes_to_loser_of_fifth_trick():
    """R3b: the trump card is drawn last, by the loser of that trick; the talon is then
    exhausted, five tricks after an unclosed start."""
    state = play(start(FULL_DEAL), *FULL_DEAL_OPEN)  # seat 0 wins the fifth trick
    deal = state.deal
    assert deal.talon == ()
    assert deal.turn_up_drawn_by == 1
    assert deal.exhausted and not deal.talon_open and deal.strict
    assert deal.trump_card is None
    assert Card.KH in deal.hands[0]  # the last face-down card, to the winner
    assert Card.JD in deal.hands[1]  # the trump card, to the loser
    assert set(deal.hands[0]) == set(cards("JC JS JH TH KH"))
    assert set(deal.hands[1]) == set(cards("AD TD KD QD JD"))
    assert len(deal.tricks) == 5


def test_r3b_trump_card_goes_to_leader_who_loses_fifth_trick():
    state = play(start(FULL_DEAL), *FULL_DEAL_OPEN[:8], "AH", "AD")  # seat 1 trumps
    deal = state.deal
    assert deal.tricks[-1].winner == 1
    assert deal.turn_up_drawn_by == 0
    assert Card.KH in deal.hands[1]
    assert Card.JD in deal.hands[0]
    assert deal.exhausted


def test_r3b_exchanged_jack_is_the_last_card_drawn():
    state = play(start(EXCHANGE_DEAL), *EXCHANGE_FOUR_TRICKS)
    assert state.deal.talon == (Card.QS,)
    state = play(state, "exchange")
    assert state.deal.turn_up is Card.JH
    state = play(state, "AH", "KS")  # seat 1 throws KS: the trump ace wins
    deal = state.deal
    assert deal.tricks[-1].winner == 0
    assert Card.QS in deal.hands[0]
    assert Card.JH in deal.hands[1]
    assert deal.turn_up_drawn_by == 1
    assert deal.exhausted


# -- R4 open play ----------------------------------------------------------


def test_r4a_open_talon_follower_may_play_any_card():
    state = play(start(FULL_DEAL), "AC")
    # seat 1 holds QC KC (clubs), QS KS QH: every card is legal
    assert legal_actions(state) == [Action.play(card) for card in state.deal.hands[1]]
    assert len(legal_actions(state)) == 5
    after = play(state, "QS")  # neither follows suit nor trumps
    assert after.deal.tricks[0].winner == 0


def test_r4a_no_duty_to_beat_or_trump_while_open():
    # trump spades; seat 1 holds a higher heart and trumps but may throw anything
    deck = build_deck("KH JC JD QC QD", "AH TH AS KS AC", "JS")
    state = play(start(deck), "KH")
    assert {a.card for a in legal_actions(state)} == set(cards("AH TH AS KS AC"))
    for throw, winner in [("AC", 0), ("TH", 1), ("AS", 1), ("AH", 1)]:
        assert play(state, throw).deal.tricks[0].winner == winner
