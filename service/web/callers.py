"""Who is calling: a registered client app (by its key), one of its players, or an
anonymous address.

"The same caller" is what idempotency records, rate limits and the games cap
are scoped to, the way payment APIs scope them to an account. It is resolved
once a request, from the security the matched operation declares
(``service.web.operations``, ``service.web.schemes``), and from nothing else:
a credential whose scheme the operation does not name is not read (deny by
default; a request that matched no operation reads none).

- ``X-Client-Key: <key>``, where the operation names ``clientKeyHeader``, is
  that client app, wherever it calls from;
- ``Authorization: Bearer spt_...``, where it names ``playerToken``, is that
  player of its app;
- ``Authorization: Bearer <key>``, where it names ``clientKey``, is that
  client app; where it names neither, a bearer token is a seat's, which the
  views read (``seat_token``);
- any other request is anonymous and is its client address (the peer address,
  or the address the trusted proxies in front report, see ``SCHNAPSEN_PROXY_HOPS``).
  A made-up bearer token counts as its address, never as a fresh client (where
  the operation needs a key, that is 401 ``client_key_required``).

A revoked key answers 401 at once. With ``SCHNAPSEN_ANONYMOUS_CLIENTS=0`` the
operations that take a key as a bearer token refuse anonymous callers (401);
seats always act with their own tokens.

The ``Authorization`` header is read once a request, and its token hashed at
most once (``seat_token``, ``token_print``): the rate limits, the idempotency
scope and the views ask for them in turn.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import Flask, current_app, g, request

from service.game import auth
from service.game.players import Player
from service.game.problem_codes import ProblemCode
from service.game.problems import Unauthorized
from service.store.clients import ClientApp
from service.store.players import TOKEN_PREFIX as PLAYER_TOKEN_PREFIX
from service.web.caller import Caller
from service.web.schemes import NOTHING, Accepted, accepted_by
from service.web.services import services

_CLIENT_KEY_HEADER = "X-Client-Key"
#: Where an API operation's path starts: each one must declare its security.
_API_PREFIX = "/v1/"
#: How the refusals say a key is sent.
_HOW_TO_SEND_A_KEY = "as 'X-Client-Key: <key>' or 'Authorization: Bearer <key>'"


@dataclass(frozen=True, slots=True)
class Bearer:
    """The request's ``Authorization`` header as a bearer token: absent, a token, or
    malformed (``token`` None while ``present``)."""

    present: bool
    token: str | None = None

    @classmethod
    def read(cls, header: str | None) -> Bearer:
        if header is None:
            return cls(False)
        scheme, _, token = header.partition(" ")
        return cls(True, token.strip() or None if scheme.lower() == "bearer" else None)


def bearer() -> Bearer:
    """This request's bearer token, read once."""
    here = g._get_current_object()
    read = here.get("bearer")
    if read is None:
        read = here.bearer = Bearer.read(request.headers.get("Authorization"))
    return read


def seat_token(*, query_token: str | None = None) -> str | None:
    """The token of ``Authorization: Bearer <token>``; ``query_token`` when the header is
    absent (``None``: a spectator); 401 when the header is no bearer token."""
    sent = bearer()
    if not sent.present:
        return query_token
    if sent.token is None:
        raise Unauthorized(
            "use 'Authorization: Bearer <token>'", code=ProblemCode.INVALID_AUTHORIZATION
        )
    return sent.token


def token_print() -> str | None:
    """The SHA-256 of the request's bearer token (``auth.fingerprint``), hashed once; None
    without a well-formed bearer token."""
    here = g._get_current_object()
    if "token_print" not in here:
        token = bearer().token
        here.token_print = None if token is None else auth.fingerprint(token)
    return here.token_print


def current_player(*, required: bool = False) -> Player | None:
    """The player whose token (``spt_...``) is the request's bearer token, identified once;
    None for any other bearer (or none) unless ``required`` (then 401). An unknown or
    replaced player token answers 401, and so does one whose app's key was revoked."""
    here = g._get_current_object()
    if "player" not in here:
        token = bearer().token
        player = None
        if token is not None and token.startswith(PLAYER_TOKEN_PREFIX):
            player = services().players.identify(token)
            if player is None:
                raise Unauthorized(
                    "this player token is not known (or a newer one replaced it)",
                    code=ProblemCode.INVALID_PLAYER_TOKEN,
                )
            app = services().clients.get(player.app)
            if app is None or app.revoked:
                raise Unauthorized(
                    "the key of this player's app was revoked", code=ProblemCode.CLIENT_KEY_REVOKED
                )
        here.player = player
    if here.player is None and required:
        raise Unauthorized(
            "send the player's token as 'Authorization: Bearer <token>'",
            code=ProblemCode.PLAYER_TOKEN_REQUIRED,
        )
    return here.player


def required_player() -> Player:
    """The player of the request's token; 401 ``player_token_required`` without one."""
    player = current_player(required=True)
    assert player is not None  # current_player raised otherwise
    return player


def player_or_client(needs: str) -> tuple[str, Player | None]:
    """The client app of the caller, by a player token or the app's own key, and the
    player when it is one; 401 for anybody else. ``needs`` words what the request does."""
    player = current_player()
    if player is not None:
        return player.app, player
    return client_app(needs).id, None


def client_app(needs: str) -> ClientApp:
    """The caller's client app, for the requests that read a client's own games;
    401 ``client_key_required`` for an anonymous caller. ``needs``: what the
    request does, as the refusal words it ("listing your games")."""
    client = current_caller().client
    if client is None:
        raise Unauthorized(
            f"{needs} needs your client key, {_HOW_TO_SEND_A_KEY}",
            code=ProblemCode.CLIENT_KEY_REQUIRED,
        )
    return client


def current_caller() -> Caller:
    """The caller of this request, identified once (at most one Redis call)."""
    caller = g.get("caller")
    if caller is None:
        caller = g.caller = _identify()
    return caller


def accepted() -> Accepted:
    """What the operation this request was routed to declared it reads (nothing for a
    request that matched no operation)."""
    endpoint = request.endpoint
    view = current_app.view_functions.get(endpoint) if endpoint else None
    return accepted_by(view) or NOTHING


def carries_no_declared_credential() -> bool:
    """Whether this request's operation serves no anonymous caller and the request carries
    none of the credentials it reads: its view answers 401, whatever else it sent."""
    accepts = accepted()
    if accepts.anonymous or bearer().token is not None:
        return False
    return accepts.bearer_required or not (
        accepts.key_header and request.headers.get(_CLIENT_KEY_HEADER) is not None
    )


def takes_client_key() -> bool:
    """Whether this request's bearer token is read as a client key (its operation names
    ``clientKey``), rather than a seat's or a player's token."""
    return accepted().key_as_bearer


def check_declared(app: Flask) -> None:
    """Refuse to build an app with an API route that declares no security: on such a
    route the server would read no credential at all, so a forgotten declaration would
    silently turn every caller anonymous."""
    for rule in app.url_map.iter_rules():
        view = app.view_functions.get(rule.endpoint)
        if rule.rule.startswith(_API_PREFIX) and accepted_by(view) is None:
            raise TypeError(f"{rule.rule} ({rule.endpoint}) declares no security: use @operation")


def _identify() -> Caller:
    accepts = accepted()
    key = request.headers.get(_CLIENT_KEY_HEADER) if accepts.key_header else None
    return identify(request.remote_addr or "unknown", accepts, key)


def identify(address: str, accepts: Accepted, key: str | None) -> Caller:
    """The caller of a request from ``address`` to an operation that reads what ``accepts``
    says, with ``key`` in its ``X-Client-Key`` (None: absent, or not read). A request
    that sends neither a key nor a player's token nor a key as its bearer token is its
    address, and no credential of its request is read."""
    if accepts.key_header and key is not None:
        app = _client_of(key)
        if app is None:
            raise Unauthorized("this client key is not known", code=ProblemCode.INVALID_CLIENT_KEY)
        return Caller(address, app)
    if accepts.player_token or accepts.key_as_bearer:
        token = seat_token()  # the bearer token; 401 for an Authorization of another kind
        if token and accepts.player_token and token.startswith(PLAYER_TOKEN_PREFIX):
            player = current_player()
            assert player is not None  # current_player raised otherwise
            # A player's request is its app's, for limits and listings.
            return Caller(address, services().clients.get(player.app), player)
        if token and accepts.key_as_bearer:
            app = _client_of(token)
            if app is not None:
                return Caller(address, app)
            if not services().settings.anonymous_clients:
                raise Unauthorized(
                    "this client key is not known", code=ProblemCode.INVALID_CLIENT_KEY
                )
    if accepts.key_as_bearer and accepts.anonymous and not services().settings.anonymous_clients:
        raise Unauthorized(
            "this server serves registered client apps only: send your client key "
            + _HOW_TO_SEND_A_KEY,
            code=ProblemCode.CLIENT_KEY_REQUIRED,
        )
    return Caller(address)


def _client_of(key: str) -> ClientApp | None:
    """The client app whose key this is; None for an unknown key; 401 for a revoked one."""
    app = services().clients.identify(key) if len(key) <= 512 else None
    if app is not None and app.revoked:
        raise Unauthorized("this client key was revoked", code=ProblemCode.CLIENT_KEY_REVOKED)
    return app
