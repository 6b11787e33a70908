"""Idempotency-Key on every POST: the header read, its scope, and ``@idempotent``.

Every POST takes an ``Idempotency-Key``, as payment APIs take it: a retry
with the same key and the same request answers the first answer again
(``Idempotent-Replayed: true``), the same key with another request is 422
``idempotency_key_reused``. Keys belong to the principal that sends them, and
never answer outside that scope:

- a player's token (``spt_...``): that player, within its app;
- a seat's token (actions, resign, abort, claim-timeout, hints, rematches, a
  seat's export or analysis): that token;
- otherwise the caller (``service.web.callers``): its client app, else its
  address. Anonymous callers behind one address (a carrier's NAT) share that
  scope, so there a key must have at least ``MIN_ADDRESS_KEY_LENGTH``
  characters (a UUID): ``1`` or ``create-game`` would hand one phone the
  other's game. Shorter: 422 ``idempotency_key_too_short``.

A key names nothing: no id, token or secret is derived from it. Game commands
record their key in the game's log with the append itself
(``service.game.commands``). Every other POST takes ``@idempotent``, which
keeps its first answer in ``service.store.answers`` for
``SCHNAPSEN_IDEMPOTENCY_SECONDS``; once that answer expired, the same key is
a new request and makes a new thing. An answer naming a player (a
registration, ``answer_names_player``) is deleted when that player is
erased: a retry after the erasure is a new request too.
"""

from __future__ import annotations

import functools
import logging
import re
import time
from collections.abc import Callable
from copy import deepcopy
from typing import Any, TypeVar

import redis
from apispec import BasePlugin
from flask import Response, after_this_request, g, request

from service.game.problem_codes import ProblemCode
from service.game.problems import IdempotencyKeyReused, Problem
from service.store.answers import (
    Claim,
    StoredAnswer,
    StoredAnswers,
    fingerprint,
    player_owner,
)
from service.web.callers import (
    carries_no_declared_credential,
    current_caller,
    current_player,
    seat_token,
    takes_client_key,
    token_print,
)
from service.web.services import services

log = logging.getLogger(__name__)
F = TypeVar("F", bound=Callable[..., Any])

#: The shortest key where the scope is an address (16: a UUID has 36).
MIN_ADDRESS_KEY_LENGTH = 16
_KEY = re.compile(r"^[\x21-\x7e]{1,255}$")
#: The headers a replayed answer carries again, besides its body and status.
_KEPT_HEADERS = ("Content-Type", "Location", "ETag")
#: The mark ``@idempotent`` leaves in a view's documentation for ``KeyedOperations``.
_MARK = "x-idempotency-key"
#: Where a view says which player its answer names (``answer_names_player``).
_OWNER = "idempotent_answer_owner"
#: How much longer than the longest job wait a request may hold its key (seconds).
_CLAIM_MARGIN_SECONDS = 30

IDEMPOTENCY_HEADER: dict[str, Any] = {
    "in": "header",
    "name": "Idempotency-Key",
    "required": False,
    "schema": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[!-~]{1,255}$"},
    "description": "Retry safely: the same key and request answer the first answer again "
    "(`Idempotent-Replayed: true`); the same key with another request: 422 "
    "`idempotency_key_reused`. Keys are remembered a day (`SCHNAPSEN_IDEMPOTENCY_SECONDS`), "
    "per player token, else seat token, else caller (client key, else address); once "
    "forgotten, the same key makes a new request. Send a UUID: without a player token, a "
    f"client key or a seat token a key needs at least {MIN_ADDRESS_KEY_LENGTH} characters (422 "
    "`idempotency_key_too_short`), since callers behind one address share its scope",
}


#: Query parameters that say how the caller waits for its answer, not what it asks for:
#: a retry that waits longer (or not at all) is the same request.
HOW_TO_WAIT = frozenset({"wait"})


def answer_names_player(app: str, player_id: str) -> None:
    """The answer this view sends names the player (its id, name or token): if kept for
    the request's retries, it is deleted with the player's erasure."""
    g.setdefault(_OWNER, player_owner(app, player_id))


def idempotency_key() -> str | None:
    """The request's Idempotency-Key, well formed; ``None`` when absent."""
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return None
    if not _KEY.match(key):
        raise Problem(
            "Idempotency-Key must be 1 to 255 visible ASCII characters",
            code=ProblemCode.INVALID_IDEMPOTENCY_KEY,
        )
    return key


def caller_scope() -> str:
    """The principal a key of a request without a seat token belongs to: the player
    whose token it carries, else its client app, else its address."""
    player = current_player()
    if player is not None:
        return f"player:{player.app}:{player.id}"
    return current_caller().scope


def caller_key() -> str | None:
    """The Idempotency-Key of a request scoped to its caller (create, join, ...).

    Refused when shorter than ``MIN_ADDRESS_KEY_LENGTH`` and the caller is an
    address: other devices behind it share the scope.
    """
    key = idempotency_key()
    if key is not None and current_player() is None and current_caller().client is None:
        _long_enough(key)
    return key


def _long_enough(key: str) -> None:
    if len(key) < MIN_ADDRESS_KEY_LENGTH:
        raise Problem(
            f"without a client key an Idempotency-Key needs at least {MIN_ADDRESS_KEY_LENGTH} "
            "characters, since callers behind one address share its keys: send a UUID",
            code=ProblemCode.IDEMPOTENCY_KEY_TOO_SHORT,
            title="Idempotency-Key too short",
        )


def _scope(key: str) -> str:
    """Where a request's key is remembered: the player whose token it carries, else its
    seat token, else its caller (client app, else address)."""
    if current_player() is not None:
        return caller_scope()
    if not takes_client_key() and seat_token() is not None:
        return f"seat:{token_print()[:16]}"
    caller = current_caller()
    if caller.client is None:
        _long_enough(key)
    return caller.scope


def idempotent(view: F) -> F:
    """Give a POST the Idempotency-Key: its first answer, kept for its retries
    (``SCHNAPSEN_IDEMPOTENCY_SECONDS``, a day by default; an answer may carry a token).

    Put it right above the view function (below ``@operation``): it sees the
    request once the body was parsed and checked, and keeps the answer as it
    was sent. It also documents the header in openapi.yaml.
    """

    @functools.wraps(view)
    def keyed(*args: Any, **kwargs: Any) -> Any:
        key = idempotency_key()
        # Without the credentials it needs the view refuses (401) and does nothing: no key
        # is judged (its length) or claimed first, so the caller learns what is missing.
        if key is None or carries_no_declared_credential():
            return view(*args, **kwargs)
        scope = _scope(key)
        answers = services().answers
        request_print = fingerprint(
            {
                "method": request.method,
                "path": request.path,
                "query": sorted(
                    item for item in request.args.items(multi=True) if item[0] not in HOW_TO_WAIT
                ),
                "body": request.get_json(silent=True),
            }
        )
        held = _claim(answers, scope, key, request_print)
        if isinstance(held, StoredAnswer):
            return _replayed(held)

        # Runs for the answer that is sent, a problem from an error handler too.
        @after_this_request
        def keep(response: Response) -> Response:
            try:
                if 200 <= response.status_code < 300:
                    answers.keep(held, _stored(response), request_print, owner=g.get(_OWNER))
                else:
                    answers.give_back(held)
            except redis.exceptions.RedisError as error:
                # The answer stands; a retry finds the key held until the claim expires.
                log.warning("the answer to a keyed request was not kept: %s", error)
            return response

        return view(*args, **kwargs)

    # flask-smorest's manual parameters replace the generated ones (the query's
    # ``wait``), so the header is added by ``KeyedOperations`` from this mark.
    documented: Any = keyed
    apidoc = deepcopy(getattr(view, "_apidoc", {}))
    apidoc.setdefault("manual_doc", {})[_MARK] = True
    documented._apidoc = apidoc
    return documented  # type: ignore[no-any-return]


class KeyedOperations(BasePlugin):
    """The apispec plugin that documents Idempotency-Key on the operations ``@idempotent``
    marked, beside the parameters flask-smorest generated for them."""

    def operation_helper(
        self, path: str | None = None, operations: dict[str, Any] | None = None, **kwargs: Any
    ) -> None:
        for operation in (operations or {}).values():
            if operation.pop(_MARK, False):
                parameters = operation.setdefault("parameters", [])
                if not any(p.get("name") == IDEMPOTENCY_HEADER["name"] for p in parameters):
                    parameters.append(deepcopy(IDEMPOTENCY_HEADER))


def _claim(
    answers: StoredAnswers, scope: str, key: str, request_print: str
) -> Claim | StoredAnswer:
    """This request's claim on its key, or the first answer to replay.

    A retry that finds its original still running waits for its answer (as an
    action's retry does, there is no "in progress" answer); if the original is
    refused or fails, the key is free again and the retry runs itself. A
    claim lives as long as a request may run, so a dead process frees it.
    """
    pending = int(services().settings.job_wait_max_seconds) + _CLAIM_MARGIN_SECONDS
    deadline = time.monotonic() + pending
    pause = 0.02
    while True:
        held = answers.claim(scope, key, request_print, pending_seconds=pending)
        if isinstance(held, Claim):
            return held
        if not held.same_request:
            raise IdempotencyKeyReused("this Idempotency-Key was used with a different request")
        if held.answer is not None:
            return held.answer
        if time.monotonic() > deadline:  # not reached: the claim expired by then
            raise Problem(
                "the first request with this Idempotency-Key did not finish; retry",
                code=ProblemCode.SERVICE_UNAVAILABLE,
                headers={"Retry-After": "1"},
            )
        time.sleep(pause)  # a greenlet's sleep under gunicorn's gevent workers
        pause = min(pause * 2, 0.25)


def _stored(response: Response) -> StoredAnswer:
    kept = {name: response.headers[name] for name in _KEPT_HEADERS if name in response.headers}
    return StoredAnswer(response.status_code, response.get_data(as_text=True), kept)


def _replayed(answer: StoredAnswer) -> Response:
    response = Response(answer.body, status=answer.status, headers=answer.headers)
    response.headers["Idempotent-Replayed"] = "true"
    return response
