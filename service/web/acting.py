"""Taking an action for a seat: the one rule ``POST /v1/games/{id}/actions`` answers by,
whichever path serves the request (the games' view, ``service.web.views.games``, or the
plain route below Flask, ``service.web.plain_routes``).

Each path reads the request its own way and hands over what this needs: the body as
parsed, ``If-Match`` as read, and the seat's token, the Idempotency-Key and the rate
limits' counting, which are asked for in the order the rules say (a missing token is
401 whatever If-Match says; the limits are counted whatever the command answers).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from service.engine import Action
from service.game.commands import Acted, GameService
from service.game.log import RateCounts
from service.game.problem_codes import ProblemCode
from service.game.problems import InvalidRequest, Problem, VersionConflict
from service.web.render import IfMatch, etag
from service.web.statuses import StaleIfMatch

#: A version no game is at (versions start at 1): asked for, it fails after the seat is known.
_NO_VERSION = -1


def take_action(
    service: GameService,
    game_id: str,
    body: dict[str, Any],
    condition: IfMatch,
    *,
    seat_token: Callable[[], str | None],
    idempotency_key: Callable[[], str | None],
    counting: AbstractContextManager[RateCounts | None],
) -> Acted:
    """Take the action of ``body`` (a plain action, ``ActionSchema``'s load) for the seat of
    ``seat_token()``, its rate limits counted by ``counting``.

    A stale ``expected_version`` is 409, a stale ``If-Match`` 412, the two disagreeing
    400; a refused precondition waits until the seat is known (401 and 404 come first).
    """
    expected = body.pop("expected_version", None)
    refusal = condition.refusal
    header_version = condition.version
    if expected is not None and header_version is not None and expected != header_version:
        refusal = Problem(
            f"expected_version {expected} and If-Match {header_version} disagree",
            code=ProblemCode.CONFLICTING_VERSIONS,
        )
    try:
        action = Action.from_dict(body)
    except ValueError as error:
        raise InvalidRequest(str(error), code=ProblemCode.INVALID_ACTION) from None
    # The command is asked for a version no game has, and its conflict becomes the refusal.
    if refusal is not None:
        version: int | None = _NO_VERSION
    else:
        version = expected if expected is not None else header_version
    try:
        with counting as counts:
            return service.act(
                game_id,
                seat_token(),
                action,
                expected_version=version,
                idempotency_key=idempotency_key(),
                counts=counts,
            )
    except VersionConflict as conflict:
        if refusal is not None:
            raise refusal from None
        if expected is None and header_version is not None:
            raise StaleIfMatch.of(conflict) from None
        raise


def acted_headers(acted: Acted) -> dict[str, str]:
    """The headers of an action's answer besides its body's and the service's own."""
    headers = {"ETag": etag(acted.current.version)}
    if acted.replayed:
        headers["Idempotent-Replayed"] = "true"
    return headers


__all__ = ["acted_headers", "take_action"]
