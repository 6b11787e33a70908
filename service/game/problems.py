"""Typed refusals of the service, each an RFC 9457 problem with a stable code.

The command layer raises these without knowing about HTTP frameworks; the
API's one error handler (``service.web.errors``) turns any of them into
``application/problem+json``, and alone chooses the status of an engine's
refusal, the 412 of a stale ``If-Match`` and the ``Retry-After`` of a
request still being processed.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from service.engine.errors import ErrorCode
from service.game.problem_codes import ProblemCode


class Problem(Exception):
    """A refused request: HTTP ``status``, stable ``code``, short ``title``, a ``detail``.

    ``extra`` members are added to the problem body (for example the
    caller's ``legal_actions``); ``headers`` to the response.
    """

    status = 400
    code: ProblemCode = ProblemCode.BAD_REQUEST
    title = "Bad request"

    def __init__(
        self,
        detail: str,
        *,
        status: int | None = None,
        code: ProblemCode | None = None,
        title: str | None = None,
        extra: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ):
        super().__init__(detail)
        self.detail = detail
        if status is not None:
            self.status = status
            if title is None and type(self).title == Problem.title:
                title = HTTPStatus(status).phrase
        if code is not None:
            self.code = code
        if title is not None:
            self.title = title
        self.extra = extra or {}
        self.headers = headers or {}


class GameNotFound(Problem):
    status, code, title = 404, ProblemCode.GAME_NOT_FOUND, "No such game"


class Unauthorized(Problem):
    status, code, title = 401, ProblemCode.INVALID_TOKEN, "Invalid or missing token"

    def __init__(self, detail: str, *, code: ProblemCode = ProblemCode.INVALID_TOKEN):
        super().__init__(
            detail,
            code=code,
            headers={"WWW-Authenticate": f'Bearer realm="schnapsen", error="{code}"'},
        )


class VersionConflict(Problem):
    """The caller acted on an old version (409; the API answers 412 for ``If-Match``)."""

    status, code, title = 409, ProblemCode.STALE_VERSION, "The game has moved on"

    def __init__(self, expected: int, actual: int):
        super().__init__(
            f"you acted on version {expected}, the game is at version {actual}",
            extra={"expected_version": expected, "current_version": actual},
        )


class IllegalAction(Problem):
    """An action the rules refuse now; lists what the caller may do instead.

    ``error_code`` is the engine's; the API maps it to a status.
    """

    title = "Illegal action"

    def __init__(self, error_code: ErrorCode, detail: str, *, extra: dict[str, Any]):
        super().__init__(detail, code=ProblemCode(error_code.value), extra=extra)
        self.error_code = error_code


class InvalidRequest(Problem):
    status, code, title = 422, ProblemCode.INVALID_REQUEST, "The request is not valid"


class IdempotencyKeyReused(Problem):
    status, code, title = 422, ProblemCode.IDEMPOTENCY_KEY_REUSED, "Idempotency key reused"


class Conflict(Problem):
    status, code, title = 409, ProblemCode.CONFLICT, "Conflict"
