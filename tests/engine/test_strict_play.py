"""R5 strict play: once the talon is closed or exhausted the follower must follow, beat, trump."""

from service.engine import Action, ErrorCode, legal_actions
from tests.engine.builders import (
    CLOSED_DEAL,
    E2_DEAL,
    E2_TO_CLOSE,
    E5_DEAL,
    E5_TO_70,
    FULL_DEAL,
    FULL_DEAL_OPEN,
    build_deck,
    cards,
    play,
    refuse,
    start,
)


def _legal_cards(state):
    return [a.card.value for a in legal_actions(state) if a.card is not None]


def _closed_lead(leader_hand: str, follower_hand: str, trump_card: str, lead: str):
    """Seat 0 closes on the first lead and leads ``lead``; seat 1 is to follow."""
    state = start(build_deck(leader_hand, follower_hand, trump_card))
    return play(state, "close", lead)


# -- R5a: a non-trump lead ----------------------------------------------------


def test_r5a_follower_must_beat_when_strict():
    # trump spades; hearts led; seat 1 holds AH TH (higher) and QH (lower)
    state = _closed_lead("KH JC JD QC QD", "AH TH QH KC AC", "QS", "KH")
    assert _legal_cards(state) == ["AH", "TH"]
    error = refuse(state, "QH", ErrorCode.MUST_BEAT, "R5a")
    assert str(error) == "R5a: you must follow hearts with a higher heart (you hold AH, TH)"
    refuse(state, "KC", ErrorCode.MUST_BEAT, "R5a")
    after = play(state, "TH")
    assert after.deal.tricks[-1].winner == 1


def test_r5a_follower_must_beat_in_every_suit_message():
    state = _closed_lead("QD JC KH QC JH", "AD TD JD KC AC", "QS", "QD")
    error = refuse(state, "JD", ErrorCode.MUST_BEAT, "R5a")
    assert str(error) == "R5a: you must follow diamonds with a higher diamond (you hold AD, TD)"


def test_r5a_follower_must_follow_suit_without_a_higher_card():
    # AH led; seat 1 holds TH QH (lower hearts) and a trump KS: following suit comes first
    state = _closed_lead("AH JC JD QC QD", "TH QH KS KC AC", "QS", "AH")
    assert _legal_cards(state) == ["TH", "QH"]
    error = refuse(state, "KS", ErrorCode.MUST_FOLLOW_SUIT, "R5a")
    assert str(error) == "R5a: you must follow hearts (you hold TH, QH)"
    refuse(state, "AC", ErrorCode.MUST_FOLLOW_SUIT, "R5a")
    assert play(state, "QH").deal.tricks[-1].winner == 0


def test_r5a_follower_without_the_suit_must_trump():
    state = _closed_lead("AH JC JD QC QD", "KS JS AC TC AD", "QS", "AH")
    assert _legal_cards(state) == ["KS", "JS"]
    error = refuse(state, "AC", ErrorCode.MUST_TRUMP, "R5a")
    assert str(error) == "R5a: you hold no hearts, so you must play a trump (you hold KS, JS)"
    after = play(state, "JS")
    assert after.deal.tricks[-1].winner == 1  # the lowest trump takes the ace
    assert after.deal.trick_points == (0, 13)


def test_r5a_follower_without_suit_or_trump_plays_any_card():
    state = _closed_lead("AH JC JD QC QD", "AC TC AD TD KC", "QS", "AH")
    assert sorted(_legal_cards(state)) == sorted(["AC", "TC", "AD", "TD", "KC"])
    assert play(state, "AC").deal.tricks[-1].winner == 0


def test_r5a_strict_once_the_talon_is_exhausted():
    # E5 line: after the fifth trick seat 0 leads TC; seat 1 holds no club
    state = play(start(E5_DEAL), *E5_TO_70)
    assert state.deal.exhausted and state.deal.closed_by is None
    state = play(state, "TC")
    assert _legal_cards(state) == ["AS", "KS", "JS"]
    refuse(state, "QD", ErrorCode.MUST_TRUMP, "R5a")
    refuse(state, "KH", ErrorCode.MUST_TRUMP, "R5a")


def test_r5a_strict_binds_the_closers_opponent_too():
    # E2: after the close seat 0 leads TC and seat 1 must take it with AC
    state = play(start(E2_DEAL), *E2_TO_CLOSE, "marry H", "QH", "JC", "TC")
    assert _legal_cards(state) == ["AC"]
    refuse(state, "QC", ErrorCode.MUST_BEAT, "R5a")
    refuse(state, "QD", ErrorCode.MUST_BEAT, "R5a")


def test_r5a_open_talon_has_no_such_duty():
    # same cards as the must-beat case, talon open: every card goes
    state = play(start(build_deck("KH JC JD QC QD", "AH TH QH KC AC", "QS")), "KH")
    assert sorted(_legal_cards(state)) == sorted(["AH", "TH", "QH", "KC", "AC"])
    assert play(state, "QH").deal.tricks[-1].winner == 0


# -- R5b: a trump lead --------------------------------------------------------


def test_r5b_trump_lead_must_be_overtrumped():
    # trump spades (TS turned up); QS led; seat 1 holds KS (higher) and JS (lower)
    state = _closed_lead("QS JC JD QC QD", "KS JS AH AC AD", "TS", "QS")
    assert _legal_cards(state) == ["KS"]
    error = refuse(state, "JS", ErrorCode.MUST_OVERTRUMP, "R5b")
    assert str(error) == "R5b: you must overtrump QS with a higher trump (you hold KS)"
    refuse(state, "AH", ErrorCode.MUST_OVERTRUMP, "R5b")
    assert play(state, "KS").deal.tricks[-1].winner == 1


def test_r5b_trump_lead_any_trump_when_no_higher_one():
    state = _closed_lead("KS JC JD QC QD", "QS JS AH AC AD", "TS", "KS")
    assert _legal_cards(state) == ["QS", "JS"]
    error = refuse(state, "AH", ErrorCode.MUST_FOLLOW_SUIT, "R5b")
    assert str(error) == "R5b: you must follow spades (you hold QS, JS)"
    assert play(state, "JS").deal.tricks[-1].winner == 0


def test_r5b_trump_lead_any_card_without_trumps():
    state = _closed_lead("KS JC JD QC QD", "AH TH AC TC AD", "TS", "KS")
    assert sorted(_legal_cards(state)) == sorted(["AH", "TH", "AC", "TC", "AD"])
    assert play(state, "AH").deal.tricks[-1].winner == 0


def test_r5b_overtrump_when_exhausted():
    # E5 line after the fifth trick: seat 0 leads TS (trump spades); seat 1 holds AS KS JS
    state = play(start(E5_DEAL), *E5_TO_70, "TS")
    assert _legal_cards(state) == ["AS"]
    refuse(state, "KS", ErrorCode.MUST_OVERTRUMP, "R5b")
    refuse(state, "QD", ErrorCode.MUST_OVERTRUMP, "R5b")


def test_r5b_trump_lead_when_exhausted_without_trumps_any_card():
    # FULL_DEAL after the fifth trick: seat 1 holds AD TD KD QD JD (trumps), seat 0 none
    state = play(start(FULL_DEAL), *FULL_DEAL_OPEN, "JC", "QD")  # seat 1 trumps, leads next
    state = play(state, "KD")
    assert sorted(_legal_cards(state)) == sorted(["JS", "JH", "TH", "KH"])


# -- R5c: the leader ----------------------------------------------------------


def test_r5c_leader_is_never_restricted_when_closed():
    state = play(start(CLOSED_DEAL), "close")
    assert _legal_cards(state) == [c.value for c in state.deal.hands[0]]
    state = play(state, "AH", "KS")
    assert set(_legal_cards(state)) == {"KH", "QH", "AS", "JC"}
    for card in ["JC", "AS", "QH"]:
        assert play(state, card).deal.lead_card.value == card


def test_r5c_leader_is_never_restricted_when_exhausted():
    state = play(start(FULL_DEAL), *FULL_DEAL_OPEN)
    assert set(_legal_cards(state)) == {"JC", "JS", "JH", "TH", "KH"}
    state = play(state, "JC", "JD")  # seat 1 trumps and leads
    assert set(_legal_cards(state)) == {"AD", "TD", "KD", "QD"}


def test_r5c_leader_restricted_after_a_marriage_declaration():
    state = play(start(CLOSED_DEAL), *["close", "AH", "KS"], "marry H")
    assert _legal_cards(state) == ["KH", "QH"]
    error = refuse(state, "AS", ErrorCode.MUST_LEAD_MARRIAGE_CARD, "R6c")
    assert str(error).startswith("R6c: after declaring the hearts marriage you must lead")
    assert Action.play(cards("KH")[0]) in legal_actions(state)


# -- R4a / R5a / R5b against an independent reference, on seeded random deals --


def _reference_follow(hand, lead, trump, strict):
    """The cards R4a / R5a / R5b allow the follower, written out from docs/rules.md."""
    if not strict:
        return set(hand)
    order = "ATKQJ"
    same = [c for c in hand if c.suit is lead.suit]
    higher = [c for c in same if order.index(c.rank.value) < order.index(lead.rank.value)]
    if higher:
        return set(higher)
    if same:
        return set(same)
    trumps = [c for c in hand if c.suit is trump]
    return set(trumps) if trumps else set(hand)


def test_r5a_follow_duties_match_the_reference_on_random_deals():
    import random

    from service.engine import DECK, ActionType

    rng = random.Random(20240601)
    checked = {True: 0, False: 0}
    for _ in range(150):
        deck = list(DECK)
        rng.shuffle(deck)
        state = start(deck)
        close_at = rng.choice([None, 0, 1, 2, 3])
        while state.deal.result is None:
            actions = legal_actions(state)
            deal = state.deal
            if deal.lead_card is not None:
                hand = deal.hands[1 - deal.leader]
                expected = _reference_follow(hand, deal.lead_card, deal.trump, deal.strict)
                assert {a.card for a in actions} == expected
                assert all(a.type is ActionType.PLAY for a in actions)
                checked[deal.strict] += 1
                choice = rng.choice(actions)
            elif not deal.hands[deal.leader]:
                choice = Action(ActionType.ACCEPT_LAST_TRICK)
            elif close_at == len(deal.tricks) and Action(ActionType.CLOSE_TALON) in actions:
                choice = Action(ActionType.CLOSE_TALON)
            else:
                choice = rng.choice([a for a in actions if a.type is ActionType.PLAY])
            state = play(state, choice)
    assert checked[True] > 300 and checked[False] > 300
