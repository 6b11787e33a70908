"""The signature on every webhook delivery, in the form of the Standard Webhooks
specification, so a receiver tells our POSTs from forgeries with a maintained library
(``standardwebhooks`` on PyPI and on npm) instead of code copied from our docs.

A delivery carries three headers:

- ``webhook-id``: the notice's id (``evt_...``), the same on every attempt and every
  redelivery of the notice, so a receiver deduplicates by it;
- ``webhook-timestamp``: the Unix time the attempt was signed, whole seconds;
- ``webhook-signature``: ``v1,<base64 HMAC-SHA256>`` of ``<id>.<timestamp>.<body>``
  under the endpoint's key; several such, space-separated, when a delivery is signed
  with several secrets (a receiver accepts the delivery when any one matches).

The id and the timestamp are inside the MAC: a receiver that refuses old timestamps
refuses a replayed delivery too, and an id changed to slip past deduplication fails.
The body is signed as sent, bytes and not parsed JSON, so no re-encoding on either side
changes what is checked.

A secret is ``whsec_`` and the base64 of 32 random bytes; the key is those bytes, not
the text (the specification's rule). Secrets made before the specification was adopted
are the URL-safe spelling of base64 (``-`` and ``_`` where the standard one has ``+``
and ``/``): they are read in either spelling, so they sign with the same key as their
standard spelling, which is what a receiver hands the library (docs/webhooks.md).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
from collections.abc import Sequence

#: The request header that carries the notice's stable id.
ID_HEADER = "webhook-id"
#: The request header that carries the Unix time the attempt was signed.
TIMESTAMP_HEADER = "webhook-timestamp"
#: The request header that carries the signatures.
SIGNATURE_HEADER = "webhook-signature"
#: How far a receiver's library lets a delivery's timestamp be from its clock, either way.
TOLERANCE_SECONDS = 300
#: What every secret starts with, so one found in a log or a config file is recognised.
SECRET_PREFIX = "whsec_"
#: The scheme of a symmetric signature: HMAC-SHA256, base64.
SCHEME = "v1"
#: Random bytes in a new secret: the specification asks for 24 to 64.
SECRET_BYTES = 32

#: The URL-safe letters of base64, as the standard spelling writes them.
_STANDARD_SPELLING = str.maketrans("-_", "+/")


class InvalidSecret(ValueError):
    """A secret that encodes no key: not ``whsec_`` and base64 of at least one byte."""


def new_secret() -> str:
    """A fresh endpoint secret: ``whsec_`` and 256 random bits in standard base64."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode("ascii")


def signing_key(secret: str) -> bytes:
    """The key ``secret`` encodes: the bytes of the base64 after ``whsec_``, in the
    standard spelling or the URL-safe one of secrets made before it was adopted."""
    if not secret.startswith(SECRET_PREFIX):
        raise InvalidSecret(f"a secret starts with {SECRET_PREFIX!r}")
    encoded = secret[len(SECRET_PREFIX) :].translate(_STANDARD_SPELLING)
    try:
        key = base64.b64decode(encoded + "=" * (-len(encoded) % 4), validate=True)
    except (binascii.Error, ValueError):
        raise InvalidSecret("a secret's key is base64") from None
    if not key:
        raise InvalidSecret("a secret's key is at least one byte")
    return key


def signature(secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    """``v1,`` and the base64 HMAC-SHA256 of ``<message_id>.<timestamp>.`` + ``body``."""
    if not message_id or "." in message_id:
        # a dot in the id would let one signed text be read as another id and timestamp
        raise ValueError("a delivery's id is not empty and has no '.'")
    if timestamp < 0:
        raise ValueError("a delivery's timestamp is never before 1970")
    signed = f"{message_id}.{timestamp}.".encode() + body
    digest = hmac.new(signing_key(secret), signed, hashlib.sha256).digest()
    return f"{SCHEME},{base64.b64encode(digest).decode('ascii')}"


def signed_headers(
    endpoint_secrets: Sequence[str], message_id: str, timestamp: int, body: bytes
) -> dict[str, str]:
    """The three ``webhook-*`` headers of a delivery of ``body``, the notice ``message_id``,
    signed at ``timestamp`` with each of ``endpoint_secrets``: a receiver that knows any
    one of them accepts it."""
    if not endpoint_secrets:
        raise ValueError("a delivery is signed with at least one secret")
    signatures = [signature(secret, message_id, timestamp, body) for secret in endpoint_secrets]
    return {
        ID_HEADER: message_id,
        TIMESTAMP_HEADER: str(timestamp),
        SIGNATURE_HEADER: " ".join(signatures),
    }
