"""Typed refusals of the service, each an RFC 9457 problem with a stable code.

The command layer raises these without knowing about HTTP: a refusal names
what went wrong (its ``ProblemCode``) and never a status. The API's one
error handler (``service.web.errors``) turns any of them into
``application/problem+json``, with the status its one table gives
(``service.web.statuses``).
"""

from __future__ import annotations

from typing import Any

from service.engine.errors import ErrorCode
from service.game.problem_codes import ProblemCode


class Problem(Exception):
    """A refused request: a stable ``code``, a short ``title``, a ``detail``.

    ``title``: None answers the status's own phrase (``Not Found``), as a
    plain ``Problem`` does; the kinds below have titles of their own.
    ``extra`` members are added to the problem body (for example the
    caller's ``legal_actions``); ``headers`` to the response.
    """

    code: ProblemCode = ProblemCode.BAD_REQUEST
    title: str | None = None

    def __init__(
        self,
        detail: str,
        *,
        code: ProblemCode | None = None,
        title: str | None = None,
        extra: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ):
        super().__init__(detail)
        self.detail = detail
        if code is not None:
            self.code = code
        if title is not None:
            self.title = title
        self.extra = extra or {}
        self.headers = headers or {}


class GameNotFound(Problem):
    code, title = ProblemCode.GAME_NOT_FOUND, "No such game"


class Unauthorized(Problem):
    code, title = ProblemCode.INVALID_TOKEN, "Invalid or missing token"

    def __init__(self, detail: str, *, code: ProblemCode = ProblemCode.INVALID_TOKEN):
        super().__init__(
            detail,
            code=code,
            title=code.page.title,  # one title per code: the body's is its page's
            headers={"WWW-Authenticate": f'Bearer realm="schnapsen", error="{code}"'},
        )


class VersionConflict(Problem):
    """The caller acted on an old version (a conflict; a failed precondition when the API
    read the version from ``If-Match``: ``service.web.statuses.StaleIfMatch``)."""

    code, title = ProblemCode.STALE_VERSION, "The game has moved on"

    def __init__(self, expected: int, actual: int):
        super().__init__(
            f"you acted on version {expected}, the game is at version {actual}",
            extra={"expected_version": expected, "current_version": actual},
        )


class IllegalAction(Problem):
    """An action the rules refuse now; lists what the caller may do instead.

    ``error_code`` is the engine's; the API's status table says its status.
    """

    title = "Illegal action"

    def __init__(self, error_code: ErrorCode, detail: str, *, extra: dict[str, Any]):
        super().__init__(detail, code=ProblemCode(error_code.value), extra=extra)
        self.error_code = error_code


class InvalidRequest(Problem):
    code, title = ProblemCode.INVALID_REQUEST, "The request is not valid"


class IdempotencyKeyReused(Problem):
    code, title = ProblemCode.IDEMPOTENCY_KEY_REUSED, "Idempotency key reused"


class Forbidden(Problem):
    code, title = ProblemCode.FORBIDDEN, "Forbidden"


class Conflict(Problem):
    code, title = ProblemCode.CONFLICT, "Conflict"
