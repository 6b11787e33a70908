"""The credentials an operation declares, and what the server reads because of them.

Why: one declaration answers both questions, "what does openapi.yaml promise?"
and "which header is whose credential on this request?". An operation's
``security`` (``service.web.operations``) is a list of alternatives, each
naming the schemes it needs together; ``{}`` is the caller without any. The
server reads a credential on a request only when the matched operation names
its scheme (deny by default): a client key sent as a bearer token counts
where ``clientKey`` is named, and nowhere else, so the same ``Authorization``
header is a seat's token on a seat's operation and the app's key on the app's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: A seat's token, ``Authorization: Bearer <token>`` (the create or join answer's).
SEAT_TOKEN = "bearerAuth"
#: A player's token, ``Authorization: Bearer spt_...`` (``registerPlayer``'s answer).
PLAYER_TOKEN = "playerToken"
#: A client app's key as a bearer token, ``Authorization: Bearer sck_...``.
CLIENT_KEY_BEARER = "clientKey"
#: A client app's key in its own header, ``X-Client-Key: sck_...``.
CLIENT_KEY_HEADER = "clientKeyHeader"

#: What openapi.yaml says of each scheme (``components.securitySchemes``).
SCHEME_DOCS: dict[str, dict[str, str]] = {
    SEAT_TOKEN: {"type": "http", "scheme": "bearer", "description": "A seat's token"},
    PLAYER_TOKEN: {
        "type": "http",
        "scheme": "bearer",
        "description": "A player's token (`spt_...`, which registerPlayer answers): the "
        "request is that player's, a player of its client app",
    },
    CLIENT_KEY_BEARER: {
        "type": "http",
        "scheme": "bearer",
        "description": "A client app's key (schnapsen-admin clients create), as "
        "'Authorization: Bearer <key>', on every operation that names this scheme",
    },
    CLIENT_KEY_HEADER: {
        "type": "apiKey",
        "in": "header",
        "name": "X-Client-Key",
        "description": "A client app's key as 'X-Client-Key: <key>', on every operation "
        "that names this scheme (also beside a seat's token)",
    },
}

Security = list[dict[str, list[str]]]
#: The schemes read from ``Authorization: Bearer``.
_BEARERS = frozenset({SEAT_TOKEN, PLAYER_TOKEN, CLIENT_KEY_BEARER})
#: Where ``operation`` leaves a view's ``Accepted`` (functools.wraps carries it to the
#: wrappers flask-smorest registers).
_ATTRIBUTE = "accepted_credentials"


@dataclass(frozen=True, slots=True)
class Accepted:
    """The credentials an operation reads, from its declared ``security``."""

    seat_token: bool = False
    player_token: bool = False
    key_as_bearer: bool = False
    key_header: bool = False
    #: Whether a caller without any credential is served (an alternative ``{}``).
    anonymous: bool = False
    #: Whether every alternative needs an ``Authorization: Bearer`` token (a seat's, a
    #: player's or a key): without one no alternative is met, whatever else is sent.
    bearer_required: bool = False

    @classmethod
    def of(cls, security: Security) -> Accepted:
        named = {scheme for requirement in security for scheme in requirement}
        unknown = named - set(SCHEME_DOCS)
        if unknown:
            raise ValueError(f"no security scheme {sorted(unknown)}")
        return cls(
            seat_token=SEAT_TOKEN in named,
            player_token=PLAYER_TOKEN in named,
            key_as_bearer=CLIENT_KEY_BEARER in named,
            key_header=CLIENT_KEY_HEADER in named,
            anonymous={} in security,
            bearer_required=bool(security)
            and all(_BEARERS & set(requirement) for requirement in security),
        )


#: What a request reads that reached no declared operation (an unknown path, a page):
#: no credential at all.
NOTHING = Accepted(anonymous=True)


def declare(view: Callable[..., Any], security: Security) -> None:
    """Remember on ``view`` what its ``security`` lets the server read."""
    setattr(view, _ATTRIBUTE, Accepted.of(security))


def accepted_by(view: Callable[..., Any] | None) -> Accepted | None:
    """What ``view`` declared; None for a view that declared nothing."""
    return getattr(view, _ATTRIBUTE, None)
