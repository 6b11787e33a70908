"""The HTTP status of every refusal: the one place that decides it.

A refusal names what went wrong (its ``ProblemCode``, and for one refusal
its kind); how HTTP says it is decided here alone, for the app's error
handler (``service.web.errors``) and gunicorn's own refusals
(``service.serve.gunicorn_workers``) alike. No Flask here, for that reason.

One code, one status, with one exception of kind: a stale version is a
conflict (409) when the body's ``expected_version`` named it, and a failed
precondition (412) when ``If-Match`` did (RFC 9110 13.1.1): ``StaleIfMatch``.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from service.game.problem_codes import ProblemCode as C
from service.game.problems import Problem, VersionConflict


class StaleIfMatch(VersionConflict):
    """A stale version sent as ``If-Match``: the same refusal as ``VersionConflict``,
    answered as a failed precondition."""

    @classmethod
    def of(cls, conflict: VersionConflict) -> StaleIfMatch:
        extra = conflict.extra
        return cls(extra["expected_version"], extra["current_version"])


#: Every code's status. The rules' refusals: whose turn or which phase it is conflicts
#: with the game's state (409); an action against the rules is unprocessable (422).
STATUS: Mapping[C, int] = MappingProxyType({
    # -- the rules refuse an action (service.engine.errors.ErrorCode) ------
    C.GAME_OVER: 409,
    C.GAME_WAITING: 409,
    C.NO_DEAL_RUNNING: 422,
    C.NOT_YOUR_TURN: 409,
    C.CARD_NOT_IN_HAND: 422,
    C.MUST_FOLLOW_SUIT: 422,
    C.MUST_BEAT: 422,
    C.MUST_TRUMP: 422,
    C.MUST_OVERTRUMP: 422,
    C.MUST_LEAD_MARRIAGE_CARD: 422,
    C.NOT_ON_LEAD: 422,
    C.EXCHANGE_NOT_ALLOWED: 422,
    C.CLOSE_NOT_ALLOWED: 422,
    C.MARRIAGE_NOT_ALLOWED: 422,
    C.CLAIM_NOT_ALLOWED: 422,
    C.ACCEPT_NOT_ALLOWED: 422,
    C.MUST_CLAIM_OR_ACCEPT: 422,
    C.ABORT_NOT_ALLOWED: 409,
    C.NOT_WAITING: 409,
    C.TURN_NOT_TIMED_OUT: 409,
    C.TIMEOUT_CLAIMS_OFF: 409,
    C.INVALID_DECK: 422,
    C.INVALID_EVENT: 422,
    # -- games, seats and tokens -------------------------------------------
    C.GAME_NOT_FOUND: 404,
    C.SEAT_TAKEN: 409,
    C.INVALID_INVITE: 401,
    C.INVALID_TOKEN: 401,
    C.TOKEN_REQUIRED: 401,
    C.INVALID_AUTHORIZATION: 401,
    C.INVALID_ACTION: 422,
    C.UNKNOWN_BOT_LEVEL: 422,
    C.STALE_VERSION: 409,
    C.CONFLICTING_VERSIONS: 400,
    C.INVALID_IF_MATCH: 400,
    C.PRECONDITION_FAILED: 412,
    C.VERSION_OUT_OF_RANGE: 422,
    C.INVALID_LAST_EVENT_ID: 400,
    C.BOT_TURN_NOT_CLAIMABLE: 409,
    C.BUSY: 409,
    C.INVALID_CURSOR: 400,
    # -- rematches ---------------------------------------------------------
    C.GAME_NOT_FINISHED: 409,
    C.REMATCH_NOT_ALLOWED: 409,
    C.OWN_REMATCH_OFFER: 409,
    C.NO_REMATCH_OFFER: 409,
    C.REMATCH_CLOSED: 410,
    # -- idempotency -------------------------------------------------------
    C.INVALID_IDEMPOTENCY_KEY: 400,
    C.IDEMPOTENCY_KEY_REUSED: 422,
    C.IDEMPOTENCY_KEY_TOO_SHORT: 422,
    # -- clients and limits ------------------------------------------------
    C.CLIENT_KEY_REQUIRED: 401,
    C.INVALID_CLIENT_KEY: 401,
    C.CLIENT_KEY_REVOKED: 401,
    C.RATE_LIMITED: 429,
    C.TOO_MANY_GAMES: 429,
    C.TOO_MANY_BOT_MOVES: 429,
    C.TOO_MANY_DECISIONS: 429,
    C.TOO_MANY_JOBS: 429,
    C.QUEUE_FULL: 503,
    C.TOO_MANY_WAITING: 503,
    C.TOO_MANY_WAITING_FROM_CALLER: 429,
    C.TOO_MANY_WAITING_ON_GAME: 503,
    # -- bots, jobs and exports --------------------------------------------
    C.IMPOSSIBLE_POSITION: 422,
    C.JOB_NOT_FOUND: 404,
    C.EXPORT_NOT_FOUND: 404,
    C.NO_LIVE_GAME: 404,
    C.ANALYSIS_NOT_FOUND: 404,
    C.ANALYSIS_NOT_ALLOWED: 403,
    C.DEAL_NOT_FINISHED: 409,
    C.UNKNOWN_DEAL: 404,
    C.ARCHIVE_UNAVAILABLE: 503,
    # -- players, seeks and ratings ----------------------------------------
    C.PLAYER_TOKEN_REQUIRED: 401,
    C.INVALID_PLAYER_TOKEN: 401,
    C.PLAYER_REQUIRED: 403,
    C.RATED_DEALING: 422,
    C.RATED_GAME_NO_HELP: 403,
    C.PLAYER_NOT_FOUND: 404,
    C.GAME_OF_ANOTHER_APP: 403,
    C.TOO_MANY_PLAYERS: 409,
    C.INVALID_NAME: 422,
    C.CHALLENGE_NOT_FOUND: 404,
    C.CHALLENGE_SELF: 409,
    C.CHALLENGE_CLOSED: 409,
    C.TOO_MANY_CHALLENGES: 429,
    C.INVALID_WEBHOOK_URL: 422,
    C.WEBHOOK_ADDRESS_REFUSED: 422,
    C.WEBHOOK_NOT_FOUND: 404,
    C.TOO_MANY_WEBHOOKS: 409,
    C.TOO_MANY_REDELIVERIES: 429,
    C.DELIVERY_NOT_FOUND: 404,
    C.SEEK_NOT_FOUND: 404,
    C.SEEK_EXISTS: 409,
    C.SEEK_PAIRED: 409,
    C.TOO_MANY_SEEKS: 503,
    C.TOURNAMENT_NOT_FOUND: 404,
    C.TOURNAMENT_FINISHED: 409,
    C.TOO_MANY_TOURNAMENTS: 409,
    C.NOT_ENTERED: 409,
    C.TOURNAMENTS_UNAVAILABLE: 503,
    # -- request bodies ----------------------------------------------------
    C.MALFORMED_JSON: 400,
    C.MALFORMED_BODY: 400,
    C.BODY_TIMEOUT: 408,
    C.JSON_TOO_DEEP: 400,
    C.NUMBER_TOO_LARGE: 400,
    C.PAYLOAD_TOO_LARGE: 413,
    C.UNSUPPORTED_MEDIA_TYPE: 415,
    C.INVALID_REQUEST: 422,
    # -- HTTP in general ---------------------------------------------------
    C.BAD_REQUEST: 400,
    C.UNAUTHORIZED: 401,
    C.FORBIDDEN: 403,
    C.NOT_FOUND: 404,
    C.METHOD_NOT_ALLOWED: 405,
    C.NOT_ACCEPTABLE: 406,
    C.CONFLICT: 409,
    C.TOO_MANY_REQUESTS: 429,
    C.TOO_MANY_CONNECTIONS: 429,
    C.URI_TOO_LONG: 414,
    C.HEADERS_TOO_LARGE: 431,
    C.UNSUPPORTED_TRANSFER_CODING: 400,
    C.EXPECTATION_FAILED: 417,
    C.INTERNAL_ERROR: 500,
    C.SERVICE_UNAVAILABLE: 503,
    C.STORE_UNAVAILABLE: 503,
    C.STORE_FULL: 503,
    C.NOT_READY: 503,
    C.PROBLEM_NOT_FOUND: 404,
})  # fmt: skip

#: Kinds whose status is not their code's.
_BY_KIND: tuple[tuple[type[Problem], int], ...] = ((StaleIfMatch, 412),)


def status_of(problem: Problem) -> int:
    """The HTTP status ``problem`` is answered with."""
    for kind, status in _BY_KIND:
        if isinstance(problem, kind):
            return status
    return STATUS[C(problem.code)]


__all__ = ["STATUS", "StaleIfMatch", "status_of"]
