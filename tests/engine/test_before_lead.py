"""R6: exchanging the trump jack, closing, declaring marriages (before leading)."""

from service.engine import (
    Action,
    ActionType,
    Card,
    ErrorCode,
    Marriage,
    Suit,
    legal_actions,
    observe,
)
from service.engine.events import ActionTaken
from service.engine.observation import observe_event
from tests.engine.builders import (
    CLOSED_DEAL,
    CLOSED_MOVES,
    E5_DEAL,
    E5_TO_70,
    EXCHANGE_DEAL,
    EXCHANGE_FOUR_TRICKS,
    FULL_DEAL,
    FULL_DEAL_OPEN,
    OUT_DEAL,
    TRACKED,
    action,
    build_deck,
    cards,
    hand,
    play,
    refuse,
    start,
)

EXCHANGE = Action(ActionType.EXCHANGE_TRUMP_JACK)
CLOSE = Action(ActionType.CLOSE_TALON)
CLAIM = Action(ActionType.CLAIM)

# -- R6a exchange ----------------------------------------------------------


def test_r6a_exchange_on_the_very_first_lead():
    state = start(EXCHANGE_DEAL)
    assert EXCHANGE in legal_actions(state)
    after = play(state, "exchange")
    deal = after.deal
    assert Card.AH in deal.hands[0] and Card.JH not in deal.hands[0]
    assert deal.turn_up is Card.JH
    assert deal.trump_card is Card.JH
    assert deal.trump is Suit.HEARTS
    assert deal.exchanged_by == 0 and deal.exchanged_card is Card.AH
    assert deal.talon == state.deal.talon
    assert deal.lead_card is None and after.to_move == 0  # still before the lead
    assert len(deal.hands[0]) == 5


def test_r6a_exchange_at_most_once():
    state = play(start(EXCHANGE_DEAL), "exchange")
    assert EXCHANGE not in legal_actions(state)
    error = refuse(state, "exchange", ErrorCode.EXCHANGE_NOT_ALLOWED, "R6a")
    assert "JH" in str(error)


def test_r6a_only_the_holder_of_the_trump_jack():
    # trump hearts (AH turned up); seat 1 holds JH, seat 0 is on lead
    state = start(build_deck("AC AD AS TC KD", "JH JC JD JS QC", "AH"))
    assert EXCHANGE not in legal_actions(state)
    error = refuse(state, "exchange", ErrorCode.EXCHANGE_NOT_ALLOWED, "R6a")
    assert str(error) == "R6a: only the holder of the trump jack (JH) may exchange it"
    # the holder cannot do it while following either: only the player on lead
    state = play(state, "AC")
    refuse(state, "exchange", ErrorCode.NOT_ON_LEAD, "R2a")


def test_r6a_exchange_while_one_talon_card_is_left():
    state = play(start(EXCHANGE_DEAL), *EXCHANGE_FOUR_TRICKS)
    assert len(state.deal.talon) == 1 and state.deal.talon_open
    assert EXCHANGE in legal_actions(state)
    after = play(state, "exchange")
    assert after.deal.turn_up is Card.JH
    assert Card.AH in after.deal.hands[0]


def test_r6a_no_exchange_once_closed():
    state = play(start(EXCHANGE_DEAL), "close")
    assert EXCHANGE not in legal_actions(state)
    error = refuse(state, "exchange", ErrorCode.EXCHANGE_NOT_ALLOWED, "R6a")
    assert str(error) == "R6a: cannot exchange the trump jack: the talon is closed"


def test_r6a_no_exchange_once_exhausted():
    # FULL_DEAL: seat 1 draws the turn-up JD, trumps JC with QD and leads holding JD
    state = play(start(FULL_DEAL), *FULL_DEAL_OPEN, "JC", "QD")
    assert state.to_move == 1 and Card.JD in state.deal.hands[1]
    assert EXCHANGE not in legal_actions(state)
    error = refuse(state, "exchange", ErrorCode.EXCHANGE_NOT_ALLOWED, "R6a")
    assert str(error) == "R6a: cannot exchange the trump jack: the talon is exhausted"


# -- R6b close -------------------------------------------------------------


def test_r6b_close_stops_drawing():
    state = play(start(CLOSED_DEAL), "close")
    deal = state.deal
    assert deal.closed_by == 0 and not deal.talon_open and deal.strict
    assert deal.at_close == (0, 0)
    state = play(state, "AH", "KS")
    assert state.deal.talon == CLOSED_DEAL[11:]
    assert len(state.deal.hands[0]) == len(state.deal.hands[1]) == 4


def test_r6b_close_makes_play_strict_from_the_very_next_card():
    deck = build_deck("AH JC JD QC QD", "KS JS AC TC AD", "QS")
    open_follow = play(start(deck), "AH")
    assert len(legal_actions(open_follow)) == 5
    closed_follow = play(start(deck), "close", "AH")
    assert [a.card for a in legal_actions(closed_follow)] == [Card.KS, Card.JS]


def test_r6b_exchange_then_close_before_the_same_lead():
    state = play(start(EXCHANGE_DEAL), "exchange")
    assert CLOSE in legal_actions(state)
    state = play(state, "close")
    assert state.deal.exchanged_by == 0 and state.deal.closed_by == 0
    assert state.to_move == 0 and state.deal.lead_card is None
    assert play(state, "AH").deal.lead_card is Card.AH


def test_r6b_trump_card_stays_out_of_play_after_a_close():
    state = play(start(CLOSED_DEAL), *CLOSED_MOVES)
    deal = state.deal
    assert deal.cards_out
    assert len(deal.tricks) == 5
    assert deal.turn_up_drawn_by is None
    assert deal.talon == CLOSED_DEAL[11:]
    played = {t.lead for t in deal.tricks} | {t.follow for t in deal.tricks}
    assert Card.JH not in played


def test_r6b_close_only_while_open_and_by_the_leader():
    state = play(start(CLOSED_DEAL), "close")
    assert CLOSE not in legal_actions(state)
    error = refuse(state, "close", ErrorCode.CLOSE_NOT_ALLOWED, "R6b")
    assert str(error) == "R6b: cannot close the talon: the talon is closed"
    exhausted = play(start(FULL_DEAL), *FULL_DEAL_OPEN)
    assert CLOSE not in legal_actions(exhausted)
    error = refuse(exhausted, "close", ErrorCode.CLOSE_NOT_ALLOWED, "R6b")
    assert str(error) == "R6b: cannot close the talon: the talon is exhausted"
    following = play(start(FULL_DEAL), "AC")
    refuse(following, "close", ErrorCode.NOT_ON_LEAD, "R2a")


def test_r6b_close_freezes_the_opponents_points_and_tricks():
    state = play(start(OUT_DEAL), "TC", "AC", "TD", "JD", "QS", "AS", "close")
    assert state.deal.closed_by == 0
    assert state.deal.at_close == (33, 2)


def test_r6b_close_on_the_last_open_lead_before_exhaustion():
    state = play(start(FULL_DEAL), *FULL_DEAL_OPEN[:8])
    assert len(state.deal.talon) == 1
    state = play(state, "close", "AH", "QH")
    assert state.deal.turn_up_drawn_by is None
    assert state.deal.talon == (Card.KH,)
    assert len(state.deal.hands[0]) == 4


# -- R6c marriage ----------------------------------------------------------


def test_r6c_marriage_in_trumps_is_worth_40():
    state = play(start(OUT_DEAL), "TC", "AC", "TD", "JD", "QS", "AS", "marry H")
    assert state.deal.marriages == (Marriage(seat=0, suit=Suit.HEARTS, points=40),)
    assert state.deal.declared is Suit.HEARTS
    assert state.deal.card_points(0) == 14 + 40


def test_r6c_marriage_in_another_suit_is_worth_20():
    state = play(start(E5_DEAL), *E5_TO_70[:7], "marry C")
    assert state.deal.trump is Suit.SPADES
    assert state.deal.marriages[-1] == Marriage(seat=0, suit=Suit.CLUBS, points=20)
    assert state.deal.marriages[0] == Marriage(seat=1, suit=Suit.SPADES, points=40)


def test_r6c_after_declaring_only_king_queen_or_claim():
    state = play(start(OUT_DEAL), "TC", "AC", "TD", "JD", "QS", "AS", "marry H")
    assert legal_actions(state) == [Action.play(Card.KH), Action.play(Card.QH), CLAIM]
    error = refuse(state, "AD", ErrorCode.MUST_LEAD_MARRIAGE_CARD, "R6c")
    assert str(error) == (
        "R6c: after declaring the hearts marriage you must lead its King or Queen, not AD"
    )
    assert play(state, "QH").deal.lead_card is Card.QH
    assert play(state, "KH").deal.lead_card is Card.KH


def test_r6c_after_declaring_in_tracked_only_king_or_queen():
    state = play(start(OUT_DEAL, TRACKED), "TC", "AC", "TD", "JD", "QS", "AS", "marry H")
    assert state.deal.result is None  # 54: not out yet
    assert legal_actions(state) == [Action.play(Card.KH), Action.play(Card.QH)]


def test_r6c_one_declaration_per_lead():
    state = start(build_deck("KH QH KC QC AS", "AC TC AD TD JD", "JS"))
    declarations = [a for a in legal_actions(state) if a.type is ActionType.DECLARE_MARRIAGE]
    assert {a.suit for a in declarations} == {Suit.CLUBS, Suit.HEARTS}
    state = play(state, "marry H")
    error = refuse(state, "marry C", ErrorCode.MARRIAGE_NOT_ALLOWED, "R6c")
    assert str(error) == "R6c: one marriage per lead: you already declared hearts"
    refuse(state, "marry H", ErrorCode.MARRIAGE_NOT_ALLOWED, "R6c")


def test_r6c_marriage_needs_king_and_queen_in_hand():
    state = start(build_deck("KH JH KC QD AS", "QH TC AD TD JD", "JS"))
    assert not [a for a in legal_actions(state) if a.type is ActionType.DECLARE_MARRIAGE]
    error = refuse(state, "marry H", ErrorCode.MARRIAGE_NOT_ALLOWED, "R6c")
    assert str(error) == (
        "R6c: a marriage needs the King and Queen of hearts in your hand (you hold KC, QD, KH, JH, AS)"
    )
    refuse(state, "marry S", ErrorCode.MARRIAGE_NOT_ALLOWED, "R6c")


def test_r6c_exchange_and_close_come_before_a_declaration():
    # trump hearts (AH turned up): seat 0 holds the trump jack and KC QC
    state = start(build_deck("JH KC QC AS AD", "JC JD JS TC TD", "AH"))
    state = play(state, "marry C")
    assert EXCHANGE not in legal_actions(state) and CLOSE not in legal_actions(state)
    refuse(state, "exchange", ErrorCode.EXCHANGE_NOT_ALLOWED, "R6c")
    refuse(state, "close", ErrorCode.CLOSE_NOT_ALLOWED, "R6c")
    # the other order is fine: exchange, close, then declare
    state = play(start(build_deck("JH KC QC AS AD", "JC JD JS TC TD", "AH")), "exchange", "close")
    state = play(state, "marry C", "KC")
    assert state.deal.marriages == (Marriage(0, Suit.CLUBS, 20),)


def test_r6c_exchange_can_complete_a_marriage():
    state = play(start(build_deck("JH KH AC AD AS", "JC JD JS TC TD", "QH")), "exchange")
    assert Action.declare_marriage(Suit.HEARTS) in legal_actions(state)
    state = play(state, "marry H")
    assert state.deal.marriages == (Marriage(0, Suit.HEARTS, 40),)


def test_r6c_marriage_allowed_on_the_first_lead():
    state = play(start(OUT_DEAL), "marry H")
    assert state.deal.marriages == (Marriage(0, Suit.HEARTS, 40),)
    assert CLAIM in legal_actions(state)


def test_r6c_marriage_allowed_when_closed():
    state = play(start(CLOSED_DEAL), "close", "AH", "KS")
    assert Action.declare_marriage(Suit.HEARTS) in legal_actions(state)
    state = play(state, "marry H", "KH")
    assert state.deal.marriages == (Marriage(0, Suit.HEARTS, 40),)


def test_r6c_marriage_allowed_when_exhausted():
    # FULL_DEAL: seat 1 ends with AD TD KD QD JD, trumps JC with JD and leads
    state = play(start(FULL_DEAL), *FULL_DEAL_OPEN, "JC", "JD")
    assert state.deal.exhausted and state.to_move == 1
    assert Action.declare_marriage(Suit.DIAMONDS) in legal_actions(state)
    state = play(state, "marry D")
    assert state.deal.marriages == (Marriage(1, Suit.DIAMONDS, 40),)
    assert state.deal.card_points(1) == 4 + 40
    assert play(state, "KD").deal.lead_card is Card.KD


def test_r6c_follower_cannot_declare():
    state = play(start(FULL_DEAL), "AC")  # seat 1 holds KS QS
    refuse(state, "marry S", ErrorCode.NOT_ON_LEAD, "R2a")


# -- R6d marriages count once a trick is won ---------------------------------


def test_r6d_marriage_counts_only_after_a_trick():
    state = play(start(OUT_DEAL), "marry H")
    assert state.deal.card_points(0) == 0
    assert state.deal.marriage_points(0) == 40
    state = play(state, "KH", "TD")  # seat 0 wins KH + TD = 14
    assert state.deal.card_points(0) == 14 + 40


def test_r6d_marriage_counts_at_once_for_a_player_with_a_trick():
    state = play(start(E5_DEAL), "JD", "KD")  # seat 1 wins 6
    state = play(state, "marry S")
    assert state.deal.card_points(1) == 6 + 40


def test_r6d_declarer_without_a_trick_ends_with_zero_points():
    # seat 0 declares 40 and leads KH; seat 1 takes it with TH (14) and claims falsely
    state = play(start(OUT_DEAL), "marry H", "KH", "TH", "claim")
    result = state.results[-1]
    assert result.card_points == (0, 14)
    assert result.tricks_won == (0, 1)
    assert result.winner == 0 and result.game_points == 3  # R9c: seat 0 had no trick


def test_r6d_tracked_view_shows_zero_before_the_first_trick():
    state = play(start(OUT_DEAL, TRACKED), "marry H")
    assert observe(state, 1)["deal"]["card_points"] == [0, 0]
    state = play(state, "KH", "TD")
    assert observe(state, 1)["deal"]["card_points"] == [54, 0]


# -- R6e marriages are public ----------------------------------------------


def test_r6e_declared_marriage_is_shown_to_the_opponent():
    before = play(start(OUT_DEAL), "TC", "AC", "TD", "JD", "QS", "AS")
    state = play(before, "marry H")
    for viewer in (1, None):
        view = observe(state, viewer)["deal"]
        assert view["marriages"] == [{"seat": 0, "suit": "H", "points": 40}]
        assert view["declared_marriage"] == "H"
        assert view["revealed_cards"][0] == ["KH", "QH"]
    state = play(state, "KH")
    view = observe(state, 1)["deal"]
    assert view["revealed_cards"][0] == ["QH"]
    assert view["current_trick"] == [{"seat": 0, "card": "KH"}]
    assert view["declared_marriage"] is None
    event = observe_event(ActionTaken(0, action("marry H")), before, play(before, "marry H"), 1)
    assert event["action"] == {"type": "declare_marriage", "suit": "H"}


def test_r6e_partner_card_stays_public_until_played():
    state = play(start(OUT_DEAL), "TC", "AC", "TD", "JD", "QS", "AS", "marry H", "KH", "TS")
    assert set(hand(state, 0)) >= {"QH"}
    assert observe(state, 1)["deal"]["revealed_cards"][0] == ["QH"]
    assert cards("QH")[0] in state.deal.public_cards_in_hand(0)
