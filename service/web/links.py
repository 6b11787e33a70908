"""OpenAPI ``links``: from an operation that makes something to the operations that take it.

Why: a client generator and a stateful tester (schemathesis) read a create's
``links`` to know that ``createGame``'s ``game_id`` is the path parameter of
``getGame``, ``takeAction`` and the rest; without them each operation stands
alone and a tester can only guess ids. The table names, per operation and
status, the id the answer carries (a JSON pointer into its body) and the
operations that take it as a path parameter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from apispec import BasePlugin


@dataclass(frozen=True)
class Made:
    """What an answer of ``status`` makes: the id at ``pointer``, taken as ``parameter``."""

    status: int
    parameter: str
    pointer: str
    operations: tuple[str, ...]


_GAME = ("getGame", "listEvents", "streamEvents", "getReplay", "takeAction", "resignGame",
         "abortGame", "claimTimeout", "requestHint", "requestExport", "requestAnalysis",
         "getAnalysis", "offerRematch", "getRematch")  # fmt: skip
_JOB = ("getJob",)

#: Per operation id, what its answers make.
LINKS: dict[str, tuple[Made, ...]] = {
    "createGame": (Made(201, "game_id", "/game_id", ("joinGame", *_GAME)),),
    "joinGame": (Made(201, "game_id", "/game_id", _GAME),),
    "acceptRematch": (Made(201, "game_id", "/game_id", _GAME),),
    "offerRematch": (Made(201, "game_id", "/game_id", _GAME),),
    "acceptChallenge": (Made(201, "game_id", "/game_id", _GAME),),
    "requestBotMove": (Made(202, "job_id", "/id", _JOB),),
    "requestHint": (Made(202, "job_id", "/id", _JOB),),
    "requestExport": (Made(202, "job_id", "/id", _JOB),),
    "requestAnalysis": (Made(202, "job_id", "/id", _JOB),),
    "registerPlayer": (
        Made(201, "player_id", "/player/player_id", ("getPlayer", "getRatingHistory")),
    ),
    "createSeek": (Made(201, "seek_id", "/seek_id", ("getSeek", "cancelSeek")),),
    "createChallenge": (
        Made(
            201,
            "challenge_id",
            "/challenge_id",
            ("getChallenge", "acceptChallenge", "declineChallenge", "cancelChallenge"),
        ),
    ),  # fmt: skip
    "createWebhook": (
        Made(
            201,
            "webhook_id",
            "/webhook_id",
            (
                "getWebhook",
                "updateWebhook",
                "deleteWebhook",
                "rotateWebhookSecret",
                "listDeliveries",
            ),
        ),
    ),  # fmt: skip
}


def links_of(operation_id: str, status: int) -> dict[str, Any]:
    """The ``links`` of ``operation_id``'s answer with ``status`` (empty: none)."""
    found: dict[str, Any] = {}
    for made in LINKS.get(operation_id, ()):
        if made.status != status:
            continue
        for target in made.operations:
            found[target[0].upper() + target[1:]] = {
                "operationId": target,
                "parameters": {made.parameter: f"$response.body#{made.pointer}"},
                "description": f"The `{made.parameter}` of this answer, for `{target}`",
            }
    return found


class CreateLinks(BasePlugin):
    """The apispec plugin that adds ``links`` to the answers ``LINKS`` names."""

    def operation_helper(
        self, path: str | None = None, operations: dict[str, Any] | None = None, **kwargs: Any
    ) -> None:
        for operation in (operations or {}).values():
            operation_id = operation.get("operationId")
            if operation_id not in LINKS:
                continue
            for status, response in operation.get("responses", {}).items():
                links = links_of(operation_id, int(status)) if str(status).isdigit() else {}
                if links and isinstance(response, dict):
                    response["links"] = links
