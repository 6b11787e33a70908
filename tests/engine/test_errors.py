"""Refused actions: IllegalActionError with a stable code, a rule-first message, no change."""

import copy

import pytest

from service.engine import (
    EngineError,
    ErrorCode,
    IllegalActionError,
    InvalidDeckError,
    InvalidEventError,
    apply,
    new_game,
    start_deal,
    take_seat,
)
from tests.engine.builders import (
    CLOSED_DEAL,
    E1_DEAL,
    E1_MOVES,
    EXCHANGE_DEAL,
    FULL_DEAL,
    FULL_DEAL_OPEN,
    FULL_DEAL_STRICT,
    OUT_DEAL,
    TRACKED,
    action,
    build_deck,
    play,
    refuse,
    start,
)

#: The contract's codes: clients switch on these strings, so they never change.
STABLE_CODES = {
    "GAME_OVER": "game_over",
    "GAME_WAITING": "game_waiting",
    "NO_DEAL": "no_deal_running",
    "NOT_YOUR_TURN": "not_your_turn",
    "CARD_NOT_IN_HAND": "card_not_in_hand",
    "MUST_FOLLOW_SUIT": "must_follow_suit",
    "MUST_BEAT": "must_beat",
    "MUST_TRUMP": "must_trump",
    "MUST_OVERTRUMP": "must_overtrump",
    "MUST_LEAD_MARRIAGE_CARD": "must_lead_marriage_card",
    "NOT_ON_LEAD": "not_on_lead",
    "EXCHANGE_NOT_ALLOWED": "exchange_not_allowed",
    "CLOSE_NOT_ALLOWED": "close_not_allowed",
    "MARRIAGE_NOT_ALLOWED": "marriage_not_allowed",
    "CLAIM_NOT_ALLOWED": "claim_not_allowed",
    "ACCEPT_NOT_ALLOWED": "accept_not_allowed",
    "MUST_CLAIM_OR_ACCEPT": "must_claim_or_accept",
    # Ending a game (docs/rules.md, RX2, RX3).
    "ABORT_NOT_ALLOWED": "abort_not_allowed",
    "NOT_WAITING": "not_waiting",
    "TURN_NOT_TIMED_OUT": "turn_not_timed_out",
    "INVALID_DECK": "invalid_deck",
    "INVALID_EVENT": "invalid_event",
}


def test_error_codes_are_stable():
    assert {code.name: code.value for code in ErrorCode} == STABLE_CODES
    assert str(ErrorCode.MUST_BEAT) == "must_beat"


def test_engine_errors_are_value_errors():
    for kind in (IllegalActionError, InvalidDeckError, InvalidEventError):
        assert issubclass(kind, EngineError)
        assert issubclass(kind, ValueError)
    assert InvalidDeckError("x").code is ErrorCode.INVALID_DECK
    assert InvalidEventError("x").code is ErrorCode.INVALID_EVENT


def _closed_lead():
    return play(start(build_deck("KH JC JD QC QD", "AH TH QH KC KS", "QS")), "close", "KH")


def _void_closed_lead():
    return play(start(build_deck("KH JC JD QC QD", "AS TS AC TC AD", "QS")), "close", "KH")


def _trump_closed_lead():
    return play(start(build_deck("QS JC JD QC QD", "KS JS AH AC AD", "TS")), "close", "QS")


def _cards_out():
    return play(start(FULL_DEAL), *FULL_DEAL_OPEN, *FULL_DEAL_STRICT)


REFUSALS = [
    # (scenario, move, seat or None for the seat to move, code, rule)
    (lambda: start(FULL_DEAL), "AC", 1, ErrorCode.NOT_YOUR_TURN, "R2c"),
    (lambda: play(start(FULL_DEAL), "AC"), "TC", 0, ErrorCode.NOT_YOUR_TURN, "R2a"),
    (lambda: start(FULL_DEAL), "KH", None, ErrorCode.CARD_NOT_IN_HAND, "R2a"),
    (lambda: play(start(FULL_DEAL), "AC"), "close", None, ErrorCode.NOT_ON_LEAD, "R2a"),
    (_closed_lead, "QH", None, ErrorCode.MUST_BEAT, "R5a"),
    (_closed_lead, "KS", None, ErrorCode.MUST_BEAT, "R5a"),
    (_void_closed_lead, "AC", None, ErrorCode.MUST_TRUMP, "R5a"),
    (_trump_closed_lead, "JS", None, ErrorCode.MUST_OVERTRUMP, "R5b"),
    (lambda: play(start(OUT_DEAL), "marry H"), "TC", None, ErrorCode.MUST_LEAD_MARRIAGE_CARD, "R6c"),
    (lambda: start(FULL_DEAL), "exchange", None, ErrorCode.EXCHANGE_NOT_ALLOWED, "R6a"),
    (lambda: play(start(EXCHANGE_DEAL), "close"), "exchange", None, ErrorCode.EXCHANGE_NOT_ALLOWED, "R6a"),
    (lambda: play(start(CLOSED_DEAL), "close"), "close", None, ErrorCode.CLOSE_NOT_ALLOWED, "R6b"),
    (lambda: play(start(OUT_DEAL), "marry H"), "close", None, ErrorCode.CLOSE_NOT_ALLOWED, "R6c"),
    (lambda: start(FULL_DEAL), "marry S", None, ErrorCode.MARRIAGE_NOT_ALLOWED, "R6c"),
    (lambda: start(FULL_DEAL), "claim", None, ErrorCode.CLAIM_NOT_ALLOWED, "R7b"),
    (lambda: play(start(FULL_DEAL, TRACKED), "AC", "QC"), "claim", None, ErrorCode.CLAIM_NOT_ALLOWED, "R7e"),
    (lambda: start(FULL_DEAL), "accept", None, ErrorCode.ACCEPT_NOT_ALLOWED, "R8a"),
    (lambda: start(FULL_DEAL, TRACKED), "accept", None, ErrorCode.ACCEPT_NOT_ALLOWED, "R8b"),
    (_cards_out, "close", None, ErrorCode.MUST_CLAIM_OR_ACCEPT, "R8a"),
]  # fmt: skip


@pytest.mark.parametrize("scenario, move, seat, code, rule", REFUSALS)
def test_refusal_has_a_stable_code_a_rule_first_message_and_changes_nothing(
    scenario, move, seat, code, rule
):
    state = scenario()
    error = refuse(state, move, code, rule, seat=seat)
    assert isinstance(error, ValueError)
    assert len(str(error)) > len(rule) + 10  # the message says something after the rule


def test_refusal_between_deals_and_after_the_game():
    over = play(start(E1_DEAL), *E1_MOVES, "claim")
    before = copy.deepcopy(over)
    with pytest.raises(IllegalActionError) as caught:
        apply(over, action("KC"), 0)
    assert caught.value.code is ErrorCode.NO_DEAL
    assert str(caught.value).startswith(f"{caught.value.rule}: ")
    assert over == before


def test_refusal_while_waiting_for_a_player():
    state = start_deal(take_seat(new_game(), 1), E1_DEAL)
    before = copy.deepcopy(state)
    with pytest.raises(IllegalActionError) as caught:
        apply(state, action("AC"), 0)
    assert caught.value.code is ErrorCode.GAME_WAITING
    assert str(caught.value).startswith("R10a: ")
    assert state == before
