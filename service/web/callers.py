"""Who is calling: a registered client app (by its key), or an anonymous address.

"The same caller" is what idempotency records, rate limits and the games cap
are scoped to, the way payment APIs scope them to an account:

- a request with a valid client key (``X-Client-Key: <key>`` on any request, or
  ``Authorization: Bearer <key>`` on ``POST /v1/games``, ``GET /v1/games``,
  ``GET /v1/games/export`` and ``POST /v1/bot/moves``, where no seat token is
  sent) is that client app, wherever it comes from;
- any other request is anonymous and is its client address (the peer address,
  or the address the trusted proxies in front report, see ``SCHNAPSEN_PROXY_HOPS``).
  A made-up bearer token counts as its address, never as a fresh client.

A revoked key answers 401 at once. With ``SCHNAPSEN_ANONYMOUS_CLIENTS=0`` the
key endpoints refuse anonymous callers (401); seats always act with their own
tokens.

The ``Authorization`` header is read once a request, and its token hashed at
most once (``seat_token``, ``token_print``): the rate limits, the idempotency
scope and the views ask for them in turn.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import current_app, g, request

from service.game import auth
from service.game.players import Player
from service.game.problem_codes import ProblemCode
from service.game.problems import Unauthorized
from service.store.clients import ClientApp
from service.store.players import TOKEN_PREFIX as PLAYER_TOKEN_PREFIX
from service.web.services import services

#: The endpoints where a bearer token is a client key rather than a seat's token.
KEY_ENDPOINTS = frozenset(
    {
        ("POST", "/v1/games"),
        ("GET", "/v1/games"),
        ("GET", "/v1/games/export"),
        ("POST", "/v1/bot/moves"),
    }
)
_CLIENT_KEY_HEADER = "X-Client-Key"


@dataclass(frozen=True, slots=True)
class Caller:
    """A request's caller: a client app (itself, or one of its players), or an anonymous
    client address."""

    address: str
    client: ClientApp | None = None
    #: The app's player whose token the request carries (``service.store.players``).
    player: Player | None = None

    @property
    def scope(self) -> str:
        """The caller's name for idempotency records and limits (a player's own, within
        its app: two players' same key are two requests)."""
        if self.player is not None:
            return f"player:{self.player.app}:{self.player.id}"
        return f"client:{self.client.id}" if self.client else f"address:{self.address}"


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
            f"{needs} needs your client key, as 'X-Client-Key: <key>' or "
            "'Authorization: Bearer <key>'",
            code=ProblemCode.CLIENT_KEY_REQUIRED,
        )
    return client


def current_caller() -> Caller:
    """The caller of this request, identified once (at most one Redis call)."""
    caller = g.get("caller")
    if caller is None:
        caller = g.caller = _identify()
    return caller


def _identify() -> Caller:
    address = request.remote_addr or "unknown"
    on_key_endpoint = (request.method, request.path) in KEY_ENDPOINTS
    key = request.headers.get(_CLIENT_KEY_HEADER)
    explicit = key is not None
    if key is None and on_key_endpoint:
        key = seat_token()
        player = current_player() if key else None
        if player is not None:  # a player's request is its app's, for limits and listings
            return Caller(address, services().clients.get(player.app), player)
    if key:
        registry = services().clients
        app = registry.identify(key) if len(key) <= 512 else None
        if app is not None and app.revoked:
            raise Unauthorized("this client key was revoked", code=ProblemCode.CLIENT_KEY_REVOKED)
        if app is not None:
            return Caller(address, app)
        if explicit or not current_app.config["ANONYMOUS_CLIENTS"]:
            raise Unauthorized("this client key is not known", code=ProblemCode.INVALID_CLIENT_KEY)
    if on_key_endpoint and not current_app.config["ANONYMOUS_CLIENTS"]:
        raise Unauthorized(
            "this server serves registered client apps only: send your client key as "
            "'Authorization: Bearer <key>'",
            code=ProblemCode.CLIENT_KEY_REQUIRED,
        )
    return Caller(address)
