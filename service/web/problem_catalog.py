"""The page of a problem ``code``: what ``GET /problems/<code>`` serves.

Every problem+json answer carries ``"type": "/problems/<code>"`` (RFC 9457:
a URI reference, resolved against the request's). The codes and their pages
are ``service.game.problem_codes.ProblemCode``; this module adds the pages of
the HTTP statuses that have no code of their own (``http_<status>``).
No Flask here: gunicorn's worker class names its refusals' codes from it too.
"""

from __future__ import annotations

import re
from http import HTTPStatus

from service.game.problem_codes import ProblemCode, ProblemPage

#: The error module answers an HTTP status without a name of its own as ``http_<status>``.
_HTTP_CODE = re.compile(r"http_([45][0-9]{2})")


def problem_type(code: str) -> ProblemPage | None:
    """The page of ``code``, or None for a code this service never answers."""
    try:
        return ProblemCode(code).page
    except ValueError:
        pass
    match = _HTTP_CODE.fullmatch(code)
    if match is None:
        return None
    try:
        status = HTTPStatus(int(match.group(1)))
    except ValueError:
        return None
    return ProblemPage(code, status.phrase, status.description or status.phrase)


__all__ = ["ProblemCode", "ProblemPage", "problem_type"]
