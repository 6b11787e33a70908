"""A listing's ``cursor`` query parameter, read the same way by every listing.

Listings page by keyset: each page answers ``next_cursor``, the opaque text of the
last entry shown (``service.game.log.Listed``), and the next request sends it back
as ``cursor``. Text this service did not hand out is a 400 ``invalid_cursor``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.game.log import Listed
from service.game.problem_codes import ProblemCode
from service.game.problems import Problem


def cursor_of(query: Mapping[str, Any]) -> Listed | None:
    """Where a page starts: after the cursor's entry; None (no cursor) is the first page."""
    if "cursor" not in query:
        return None
    try:
        return Listed.decode(query["cursor"])
    except ValueError:
        raise Problem(
            "cursor is not the next_cursor of a page of this listing",
            code=ProblemCode.INVALID_CURSOR,
        ) from None


__all__ = ["cursor_of"]
