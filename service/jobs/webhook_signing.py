"""The signature on every webhook delivery, so a receiver can tell our POSTs from forgeries.

A delivery carries ``Schnapsen-Signature: t=<timestamp>,v1=<hex>``: an
HMAC-SHA256 under the endpoint's secret over the Unix timestamp, a dot and the
raw body. The timestamp is inside the MAC, so a receiver that refuses old
timestamps refuses a replayed delivery too; the body is signed as sent, bytes
and not parsed JSON, so no re-encoding on either side can change what is
checked. A header may hold several ``v1=`` parts: while a secret is rotated a
delivery is signed with the old and the new one, and a receiver that knows
either accepts it.

Standard library only: receivers copy this logic (docs/webhooks.md shows it
in Python and TypeScript), and the workers sign without importing more.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from collections.abc import Sequence

#: The request header that carries the signature.
SIGNATURE_HEADER = "Schnapsen-Signature"
#: How far a delivery's timestamp may be from the receiver's clock, either way.
TOLERANCE_SECONDS = 300
#: What every secret starts with, so one found in a log or a config file is recognised.
SECRET_PREFIX = "whsec_"
#: The one signature scheme: HMAC-SHA256, lower-case hex.
SCHEME = "v1"

#: A timestamp is whole seconds, at most 12 digits (the year 33658), never negative.
_TIMESTAMP = re.compile(r"[0-9]{1,12}")
#: A ``v1`` signature as ``sign`` writes it.
_SIGNATURE = re.compile(r"[0-9a-f]{64}")
#: Longer than any header ``sign`` writes with a few secrets: refused before it is parsed.
_MAX_HEADER_CHARS = 1024


def new_secret() -> str:
    """A fresh endpoint secret: 256 random bits, URL-safe so it pastes into any config."""
    return SECRET_PREFIX + base64.urlsafe_b64encode(secrets.token_bytes(32)).decode("ascii")


def signature(secret: str, timestamp: int, body: bytes) -> str:
    """The hex HMAC-SHA256 of ``"<timestamp>." + body`` under ``secret`` (as UTF-8)."""
    signed = f"{timestamp}.".encode("ascii") + body
    return hmac.new(secret.encode("utf-8"), signed, hashlib.sha256).hexdigest()


def sign(secret: str, timestamp: int, body: bytes) -> str:
    """The ``Schnapsen-Signature`` value of a delivery of ``body`` sent at ``timestamp``."""
    return sign_with_each([secret], timestamp, body)


def sign_with_each(endpoint_secrets: Sequence[str], timestamp: int, body: bytes) -> str:
    """One header with a ``v1`` part per secret: while an endpoint's secret is rotated, a
    receiver that still knows the old one and one that already knows the new one both
    accept the delivery."""
    if not endpoint_secrets:
        raise ValueError("a delivery is signed with at least one secret")
    if timestamp < 0:
        raise ValueError("a delivery's timestamp is never before 1970")
    parts = [f"{SCHEME}={signature(secret, timestamp, body)}" for secret in endpoint_secrets]
    return ",".join([f"t={timestamp}", *parts])


def parse_header(header: str) -> tuple[int, list[str]] | None:
    """The timestamp and the ``v1`` signatures of a header, or None when it is malformed.

    Parts other than ``t`` and ``v1`` are skipped, so a later scheme can be
    added beside ``v1`` without breaking today's receivers; a ``v1`` that is
    not 64 lower-case hex digits is skipped the same way. Two timestamps are
    malformed: which one was signed could not be told.
    """
    if not isinstance(header, str) or len(header) > _MAX_HEADER_CHARS:
        return None
    timestamp: int | None = None
    found: list[str] = []
    for part in header.split(","):
        key, equals, value = part.strip().partition("=")
        if not equals:
            return None
        if key == "t":
            if timestamp is not None or not _TIMESTAMP.fullmatch(value):
                return None
            timestamp = int(value)
        elif key == SCHEME and _SIGNATURE.fullmatch(value):
            found.append(value)
    if timestamp is None or not found:
        return None
    return timestamp, found


def verify(
    secret: str, header: str, body: bytes, *, now: float, tolerance: int = TOLERANCE_SECONDS
) -> bool:
    """Whether ``header`` signs ``body`` under ``secret`` at a time within ``tolerance`` of ``now``.

    Every ``v1`` part is compared, each in constant time, so how far a forged
    signature matched is not measurable. A malformed header is False, never an
    exception: it comes from whoever sent the request.
    """
    parsed = parse_header(header)
    if parsed is None:
        return False
    timestamp, candidates = parsed
    if abs(now - timestamp) > tolerance:
        return False
    expected = signature(secret, timestamp, body).encode("ascii")
    matched = False
    for candidate in candidates:
        matched |= hmac.compare_digest(expected, candidate.encode("ascii"))
    return matched
