"""Typed errors of the rules engine.

Every refusal carries a stable machine-readable ``code`` (clients switch on
it; the HTTP layer copies it into its problem+json answers), the ``rule`` of
docs/rules.md it enforces, and a message a person can read that starts with that
rule, for example ``R5a: you must follow hearts with a higher heart (you hold
AH, TH)``.
"""

from __future__ import annotations

from .words import Word


class ErrorCode(Word):
    """Stable codes for refused actions and bad inputs. Never rename a value."""

    GAME_OVER = "game_over"
    GAME_WAITING = "game_waiting"
    NO_DEAL = "no_deal_running"
    NOT_YOUR_TURN = "not_your_turn"
    CARD_NOT_IN_HAND = "card_not_in_hand"
    MUST_FOLLOW_SUIT = "must_follow_suit"
    MUST_BEAT = "must_beat"
    MUST_TRUMP = "must_trump"
    MUST_OVERTRUMP = "must_overtrump"
    MUST_LEAD_MARRIAGE_CARD = "must_lead_marriage_card"
    NOT_ON_LEAD = "not_on_lead"
    EXCHANGE_NOT_ALLOWED = "exchange_not_allowed"
    CLOSE_NOT_ALLOWED = "close_not_allowed"
    MARRIAGE_NOT_ALLOWED = "marriage_not_allowed"
    CLAIM_NOT_ALLOWED = "claim_not_allowed"
    ACCEPT_NOT_ALLOWED = "accept_not_allowed"
    MUST_CLAIM_OR_ACCEPT = "must_claim_or_accept"
    ABORT_NOT_ALLOWED = "abort_not_allowed"
    NOT_WAITING = "not_waiting"
    TURN_NOT_TIMED_OUT = "turn_not_timed_out"
    INVALID_DECK = "invalid_deck"
    INVALID_EVENT = "invalid_event"


class EngineError(ValueError):
    """Base of every error the engine raises on purpose."""

    code: ErrorCode = ErrorCode.INVALID_EVENT
    rule: str | None = None

    def __init__(self, message: str, *, code: ErrorCode | None = None, rule: str | None = None):
        if code is not None:
            self.code = code
        if rule is not None:
            self.rule = rule
        self.message = f"{self.rule}: {message}" if self.rule else message
        super().__init__(self.message)


class IllegalActionError(EngineError):
    """A player action the rules do not allow now. The state is unchanged.

    ``seat`` is the seat that tried it (when known).
    """

    def __init__(self, message: str, *, code: ErrorCode, rule: str | None, seat: int | None = None):
        self.seat = seat
        super().__init__(message, code=code, rule=rule)


class InvalidDeckError(EngineError):
    """A deck that is not the 20 cards exactly once each (R1a)."""

    code = ErrorCode.INVALID_DECK


class InvalidEventError(EngineError):
    """An event that cannot be applied to the state it follows (a corrupt log)."""

    code = ErrorCode.INVALID_EVENT
