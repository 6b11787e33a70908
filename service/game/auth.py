"""Seat tokens and invites: random, derived, stored only as hashes.

A seat's token is ``HMAC(server secret, game, seat, nonce)`` with a fresh
random 128-bit nonce per seat: 256 bits a guesser cannot predict. Redis keeps
the nonce and the SHA-256 of the token, never the token; a retried create or
join with the same ``Idempotency-Key`` answers the very same token again from
the seat's nonce. Nothing here is derived from what a caller sends.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets


def new_nonce() -> str:
    return secrets.token_hex(16)


def derive_secret(server_secret: bytes, game_id: str, purpose: str, nonce: str) -> str:
    """A URL-safe secret for ``purpose`` ("seat:0", "invite") of one game."""
    digest = hmac.new(server_secret, f"{game_id}|{purpose}|{nonce}".encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode()


def seat_token(server_secret: bytes, game_id: str, seat: int, nonce: str) -> str:
    """The token of ``seat`` of a game, from the nonce its seats record keeps."""
    return derive_secret(server_secret, game_id, f"seat:{seat}", nonce)


def derive_rematch_id(server_secret: bytes, game_id: str) -> str:
    """The id of the rematch of ``game_id``: one per game, known before it exists, so
    the rematch's first append (onto an empty log) is the whole claim, and two accepts
    make one game. Nobody without the server's secret can derive it."""
    return hmac.new(server_secret, f"rematch|{game_id}".encode(), hashlib.sha256).hexdigest()[:16]


def fingerprint(secret: str) -> str:
    """What is stored in place of a token or invite."""
    return hashlib.sha256(secret.encode()).hexdigest()


def matches(secret: str, stored_fingerprint: str | None) -> bool:
    """Constant-time check of a presented secret against its stored hash."""
    return fingerprint_matches(fingerprint(secret), stored_fingerprint)


def fingerprint_matches(presented: str, stored_fingerprint: str | None) -> bool:
    """Constant-time check of a presented secret's fingerprint against a stored one."""
    if not stored_fingerprint:
        return False
    return hmac.compare_digest(presented, stored_fingerprint)
