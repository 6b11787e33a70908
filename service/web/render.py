"""Response bodies built from the engine's observations, plus request headers read.

Views stay thin: they parse, call a command, and hand the result to one of
these functions. Hidden information is decided in the engine's observation
module, never here. Idempotency-Key is read in ``service.web.idempotency``.
What a body needs from the game service (the invite) is passed in: a
renderer builds, it does not look anything up.
"""

from __future__ import annotations

import functools
import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from flask import Flask, Request, Response, current_app, jsonify
from flask.json.provider import DefaultJSONProvider

from service.engine import Event
from service.engine.observation import observe
from service.engine.replays import replay_record
from service.game.clock import ClockReading
from service.game.commands import Current, Seated
from service.game.pools import pool_of
from service.game.problem_codes import ProblemCode
from service.game.problems import Problem, Unauthorized
from service.game.rematch_service import Rematch

_ETAG = re.compile(r'^(?:W/)?"?(\d{1,18})"?$')
_STRONG_ETAG = re.compile(r'"([0-9]{1,18})"')


def game_view(
    current: Current,
    seat: int | None,
    *,
    invite: str | None,
    rematch: Rematch | None = None,
    clock: ClockReading | None = None,
) -> dict[str, Any]:
    """The contract's view of a game for ``seat`` (``None``: a spectator); ``invite``: what
    ``GameService.invite_for`` gives this seat (seat 0's, while seat 1 is empty);
    ``rematch``: what ``RematchService.shown`` finds of a finished game's offer;
    ``clock``: ``GameService.clock_reading`` of a clocked game (a game without a clock
    has no ``clock`` field, as before clocks)."""
    body = observe(current.state, seat)
    body["game_id"] = current.game_id
    body["version"] = current.version
    body["players"] = current.players
    body["invite"] = invite
    body["rematch"] = None if rematch is None else rematch_body(rematch)
    body["rematch_of"] = current.seats.rematch_of
    body["rated"] = current.seats.rated
    body["pool"] = pool_of(current.state.variant, current.seats.clock).name
    if clock is not None:
        body["clock"] = clock.to_dict()
    return body


def rematch_body(rematch: Rematch) -> dict[str, Any] | None:
    """A game's rematch offer as its view shows it (``RematchSchema``); None: no offer."""
    offer = rematch.offer
    if offer is None:
        return None
    return {
        "offered_by": offer.offered_by,
        "status": offer.status.value,
        "game_id": rematch.rematch_id,
    }


def rematch_status_body(rematch: Rematch) -> dict[str, Any]:
    """A seat's look at its game's rematch (``RematchLookSchema``)."""
    offer = rematch.offer
    seated = rematch.seated
    return {
        "seat": rematch.seat,
        "offered_by": None if offer is None else offer.offered_by,
        "status": "none" if offer is None else offer.status.value,
        "game_id": rematch.rematch_id,
        "token": None if seated is None else seated.token,
    }


def rematch_seated_body(rematch: Rematch) -> dict[str, Any]:
    """An accepted rematch: the new game as the caller takes its seat there."""
    assert rematch.seated is not None
    return {**seated_body(rematch.seated, invite=None), "rematch": rematch_body(rematch)}


def replay_body(
    game_id: str,
    events: Sequence[Event],
    players: list[dict[str, Any]],
    seat: int | None,
    *,
    at: int | None = None,
) -> dict[str, Any]:
    """The replay of a game's ``events`` (or their first ``at``) as ``seat`` may see it.

    One builder for every answer that holds a replay (``GET .../replay``, a
    client's export of its archived games), so a game's replay reads the same
    wherever the game is read from; ``players``: ``Current.players``, or
    ``Seats.players`` of an archived game's seats record.
    """
    record = replay_record(events, seat, at=at)
    record["state"].update(game_id=game_id, version=record["version"], players=players)
    return {"game_id": game_id, **record}


def utc_time(ms: int) -> str:
    """A time in ms since the epoch as the answers write it: UTC, ISO 8601, ms, ``Z``."""
    whole = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000))
    return f"{whole}.{ms % 1000:03d}Z"


def view_answer(view: dict[str, Any]) -> Response:
    """A game view as the answer's JSON, without a schema's dump: ``GameViewSchema``'s dump
    is the identity on every view the engine observes (tests/service/test_feed_schema.py),
    and it cost a fifth of the server's CPU for an action or a view."""
    text = view_text(view)
    return jsonify(view) if text is None else json_answer(text)


def view_text(view: dict[str, Any]) -> str | None:
    """The text ``jsonify(view)`` answers, byte for byte (``view_encoder``'s); None in debug
    mode, or with a layout set on the app's provider, where ``jsonify`` is to answer itself."""
    encode = view_encoder(current_app._get_current_object())  # type: ignore[attr-defined]
    return None if encode is None else encode(view)


def view_encoder(app: Flask) -> Callable[[dict[str, Any]], str] | None:
    """What ``jsonify`` answers for a view of ``app``, as a function of the view, from an
    encoder made once per app's JSON settings (``jsonify`` makes one per answer, after
    sorting out its arguments); None in debug mode, or with a layout set on the app's
    provider."""
    provider = app.json
    if app.debug or provider.compact is not None or type(provider) is not DefaultJSONProvider:
        return None
    return _with_newline(provider.default, provider.ensure_ascii, provider.sort_keys)


def json_answer(text: str) -> Response:
    """An answer of JSON ``text`` (``view_text``'s), as ``jsonify`` makes it."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    return app.response_class(text, mimetype=app.json.mimetype)


@functools.cache
def _with_newline(
    default: Callable[[Any], Any], ensure_ascii: bool, sort_keys: bool
) -> Callable[[Any], str]:
    """A provider's ``dumps`` with ``jsonify``'s compact separators and its last newline."""
    encode = json.JSONEncoder(
        default=default, ensure_ascii=ensure_ascii, sort_keys=sort_keys, separators=(",", ":")
    ).encode
    return lambda view: encode(view) + "\n"


def seated_body(
    seated: Seated, *, invite: str | None, clock: ClockReading | None = None
) -> dict[str, Any]:
    """A created or joined seat; ``invite`` and ``clock``: as for ``game_view``."""
    return {
        "game_id": seated.current.game_id,
        "seat": seated.seat,
        "token": seated.token,
        "invite": seated.invite,
        "version": seated.current.version,
        "dealing": seated.current.state.dealing.value,
        "game": game_view(seated.current, seated.seat, invite=invite, clock=clock),
    }


def etag(version: int) -> str:
    return f'"{version}"'


def bearer_token(request: Request, *, query_token: str | None = None) -> str | None:
    """The token of ``Authorization: Bearer <token>``; ``None`` when absent (a spectator)."""
    header = request.headers.get("Authorization")
    if header is None:
        return query_token
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized(
            "use 'Authorization: Bearer <token>'", code=ProblemCode.INVALID_AUTHORIZATION
        )
    return token.strip()


@dataclass(frozen=True, slots=True)
class IfMatch:
    """``If-Match`` as read: the version it names (``None``: absent or ``*``), or the
    refusal it earns (``refusal``), which the caller raises only once the request is known
    to be the seat's: RFC 9110 13.2.1 evaluates a precondition only for a request that
    would otherwise succeed, so a missing or wrong token is 401 whatever If-Match says."""

    version: int | None
    refusal: Problem | None = None


def if_match(request: Request) -> IfMatch:
    """``If-Match: "<version>"`` read, never raised.

    If-Match takes the strong comparison (RFC 9110 13.1.1): only a strong tag
    ``"<version>"`` can match. A weak tag (``W/"5"``) or a broken one (``"5``)
    never matches, whatever the version: 412, nothing appended. A value that
    is no entity-tag at all (``yesterday``, ``5``) is a malformed header: 400.
    """
    header = request.headers.get("If-Match")
    if header is None or header.strip() == "*":
        return IfMatch(None)
    versions = set()
    for tag in header.split(","):
        tag = tag.strip()
        match = _STRONG_ETAG.fullmatch(tag)
        if match:
            versions.add(int(match.group(1)))
        elif '"' not in tag:
            return IfMatch(None, Problem(
                'If-Match must be the ETag of a game view, e.g. "12"',
                code=ProblemCode.INVALID_IF_MATCH,
            ))  # fmt: skip
    if not versions:
        return IfMatch(None, Problem(
            f"If-Match {header.strip()[:40]!r} never matches: it takes the strong ETag of a "
            'game view, e.g. "12" (a weak W/ tag compares weakly only, RFC 9110 13.1.1)',
            code=ProblemCode.PRECONDITION_FAILED,
        ))  # fmt: skip
    if len(versions) > 1:
        return IfMatch(None, Problem(
            "If-Match names one version of the game, not several",
            code=ProblemCode.INVALID_IF_MATCH,
        ))  # fmt: skip
    return IfMatch(versions.pop())


def not_modified(request: Request, version: int) -> bool:
    """``If-None-Match`` names this version (or ``*``): answer 304 (RFC 9110 13.1.2)."""
    header = request.headers.get("If-None-Match")
    if header is None:
        return False
    for tag in header.split(","):
        tag = tag.strip()
        match = _ETAG.match(tag)
        if tag == "*" or (match and int(match.group(1)) == version):
            return True
    return False
