"""Provably fair deals: a commitment to each deck before play, the proof after.

When a deal starts the server publishes ``commitment = SHA-256(nonce || deck)``
where ``nonce`` is 32 random bytes and ``deck`` the deck order as its 40
ASCII characters (card codes one after the other, position 0 first, e.g.
``"QCJSQDTS..."``). The nonce and the deck stay on the server until the game
is over; then the replay shows both, and anyone can recompute the hash: the
server could not have changed a deck after dealing it without the hash
failing to match. The nonce keeps the commitment from being guessed by
trying decks (a deck alone has only 20! possibilities to try).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence

from .cards import Card

NONCE_BYTES = 32


def commitment(nonce_hex: str, deck: Sequence[Card]) -> str:
    """The published SHA-256 (hex) of the nonce followed by the deck's card codes."""
    nonce = bytes.fromhex(nonce_hex)
    if len(nonce) != NONCE_BYTES:
        raise ValueError(f"a nonce has {NONCE_BYTES} bytes ({2 * NONCE_BYTES} hex digits)")
    order = "".join(card.value for card in deck).encode("ascii")
    return hashlib.sha256(nonce + order).hexdigest()


def verify(published: str, nonce_hex: str, deck: Sequence[Card]) -> bool:
    """Whether a revealed nonce and deck match the commitment published at the deal."""
    try:
        return hmac.compare_digest(commitment(nonce_hex, deck), published)
    except ValueError:
        return False
