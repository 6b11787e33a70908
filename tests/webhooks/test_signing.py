"""The signature on a delivery: the Standard Webhooks library (``standardwebhooks``, what a
receiver verifies with) accepts the headers the service signs, and refuses them when
anything signed changed."""

from __future__ import annotations

import base64
import hashlib
import hmac
import time

import pytest
from standardwebhooks import Webhook, WebhookVerificationError

from service.jobs.webhook_signing import (
    ID_HEADER,
    SECRET_PREFIX,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    InvalidSecret,
    new_secret,
    signature,
    signed_headers,
    signing_key,
)

KEY = bytes(range(32))
SECRET = SECRET_PREFIX + base64.b64encode(KEY).decode()
BODY = b'{"id":"evt_0a1b2c3d","type":"game.turn","data":{"seat":0,"note":"\xc3\xa4"}}'
ID = "evt_0a1b2c3d"


def _now() -> int:
    return int(time.time())


def _refused(secret: str, headers: dict[str, str], body: bytes) -> bool:
    try:
        Webhook(secret).verify(body, headers)
    except WebhookVerificationError:
        return True
    return False


def test_the_signature_is_the_base64_hmac_of_id_timestamp_and_body_under_the_secrets_bytes():
    expected = hmac.new(KEY, b"evt_0a1b2c3d.1760000000." + BODY, hashlib.sha256).digest()
    assert signature(SECRET, ID, 1_760_000_000, BODY) == "v1," + base64.b64encode(expected).decode()


def test_the_library_verifies_a_signed_delivery_and_answers_its_notice():
    headers = signed_headers([SECRET], ID, _now(), BODY)
    assert set(headers) == {ID_HEADER, TIMESTAMP_HEADER, SIGNATURE_HEADER}
    assert headers[ID_HEADER] == ID
    assert Webhook(SECRET).verify(BODY, headers) == {
        "id": ID,
        "type": "game.turn",
        "data": {"seat": 0, "note": "ä"},
    }


def test_the_library_refuses_a_changed_body_id_timestamp_or_secret():
    headers = signed_headers([SECRET], ID, _now(), BODY)
    assert _refused(SECRET, headers, BODY.replace(b"turn", b"over"))
    assert _refused(SECRET, headers, BODY + b" ")
    assert _refused(SECRET, {**headers, ID_HEADER: ID + "0"}, BODY)
    moved = str(int(headers[TIMESTAMP_HEADER]) - 1)
    assert _refused(SECRET, {**headers, TIMESTAMP_HEADER: moved}, BODY)
    assert _refused(new_secret(), headers, BODY)


def test_a_delivery_signed_long_ago_is_refused_by_the_library():
    assert _refused(SECRET, signed_headers([SECRET], ID, _now() - 3600, BODY), BODY)


def test_signed_with_two_secrets_either_one_verifies():
    old = new_secret()
    headers = signed_headers([old, SECRET], ID, _now(), BODY)
    assert len(headers[SIGNATURE_HEADER].split(" ")) == 2
    assert not _refused(SECRET, headers, BODY)
    assert not _refused(old, headers, BODY)
    assert _refused(new_secret(), headers, BODY)


def test_a_secret_made_before_the_standard_signs_with_its_standard_spellings_key():
    """Such a secret is URL-safe base64: a receiver hands the library the same bytes in the
    standard spelling (docs/webhooks.md)."""
    key = bytes([0xFB, 0xFF, 0xBF] * 10 + [0xFE, 0xFF])  # spelled with "-" and "_" only
    spelled = base64.urlsafe_b64encode(key).decode()
    assert "-" in spelled and "_" in spelled
    legacy = SECRET_PREFIX + spelled
    assert signing_key(legacy) == key
    standard = SECRET_PREFIX + spelled.replace("-", "+").replace("_", "/")
    headers = signed_headers([legacy], ID, _now(), BODY)
    assert not _refused(standard, headers, BODY)


def test_a_new_secret_is_256_random_bits_in_standard_base64_behind_its_prefix():
    made = {new_secret() for _ in range(20)}
    assert len(made) == 20
    for secret in made:
        assert secret.startswith(SECRET_PREFIX)
        encoded = secret[len(SECRET_PREFIX) :]
        assert len(base64.b64decode(encoded, validate=True)) == 32
        assert signing_key(secret) == base64.b64decode(encoded)


@pytest.mark.parametrize("secret", ["", "whsec_", "sk_" + "A" * 44, "whsec_not base64!", "whsec_A"])
def test_a_secret_that_encodes_no_key_is_a_typed_error(secret):
    with pytest.raises(InvalidSecret):
        signing_key(secret)


@pytest.mark.parametrize("message_id", ["", "evt_1.2", "."])
def test_an_id_that_is_empty_or_has_a_dot_is_never_signed(message_id):
    """``a.b`` with timestamp ``c`` would sign the same text as ``a`` with timestamp ``b.c``."""
    with pytest.raises(ValueError):
        signed_headers([SECRET], message_id, _now(), BODY)


def test_no_secret_or_a_timestamp_before_1970_is_never_signed():
    with pytest.raises(ValueError):
        signed_headers([], ID, _now(), BODY)
    with pytest.raises(ValueError):
        signed_headers([SECRET], ID, -1, BODY)
