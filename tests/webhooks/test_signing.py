"""The signature on a delivery: what a receiver's check accepts and refuses."""

from __future__ import annotations

import pytest

from service.jobs.webhook_signing import (
    SECRET_PREFIX,
    TOLERANCE_SECONDS,
    new_secret,
    sign,
    sign_with_each,
    signature,
    verify,
)

SECRET = "whsec_the-endpoint-secret"
BODY = b'{"type":"your_turn","game":"g1","seat":0}'
NOW = 1_760_000_000


def test_a_signed_body_verifies_under_its_secret():
    header = sign(SECRET, NOW, BODY)
    assert header == f"t={NOW},v1={signature(SECRET, NOW, BODY)}"
    assert verify(SECRET, header, BODY, now=NOW)


def test_a_changed_body_fails():
    header = sign(SECRET, NOW, BODY)
    assert not verify(SECRET, header, BODY.replace(b"0", b"1"), now=NOW)
    assert not verify(SECRET, header, BODY + b" ", now=NOW)


def test_another_secret_fails():
    assert not verify(new_secret(), sign(SECRET, NOW, BODY), BODY, now=NOW)


def test_a_changed_timestamp_fails():
    forged = sign(SECRET, NOW, BODY).replace(f"t={NOW}", f"t={NOW + 1}")
    assert not verify(SECRET, forged, BODY, now=NOW)


def test_a_timestamp_beyond_the_tolerance_fails_either_way():
    old, ahead = sign(SECRET, NOW - 301, BODY), sign(SECRET, NOW + 301, BODY)
    assert not verify(SECRET, old, BODY, now=NOW)
    assert not verify(SECRET, ahead, BODY, now=NOW)
    assert verify(SECRET, sign(SECRET, NOW - TOLERANCE_SECONDS, BODY), BODY, now=NOW)
    assert not verify(SECRET, sign(SECRET, NOW - 60, BODY), BODY, now=NOW, tolerance=30)


def test_two_v1_parts_pass_when_one_is_right():
    rotating = sign_with_each(["whsec_old", SECRET], NOW, BODY)
    assert rotating.count("v1=") == 2
    assert verify(SECRET, rotating, BODY, now=NOW)
    assert verify("whsec_old", rotating, BODY, now=NOW)
    assert not verify("whsec_neither", rotating, BODY, now=NOW)
    wrong_first = f"t={NOW},v1={'0' * 64},v1={signature(SECRET, NOW, BODY)}"
    assert verify(SECRET, wrong_first, BODY, now=NOW)


def test_parts_of_unknown_schemes_are_skipped():
    header = f"v0=whatever,{sign(SECRET, NOW, BODY)},v2=later"
    assert verify(SECRET, header, BODY, now=NOW)


@pytest.mark.parametrize(
    "header",
    [
        "",
        ",",
        "t=",
        f"t={NOW}",
        f"v1={'0' * 64}",
        f"t={NOW},v1=",
        f"t={NOW},v1=zz",
        f"t={NOW},v1={'A' * 64}",
        f"t=-{NOW},v1={'0' * 64}",
        f"t={NOW}.5,v1={'0' * 64}",
        f"t=１２,v1={'0' * 64}",
        f"t={'9' * 40},v1={'0' * 64}",
        f"t={NOW},t={NOW},v1={'0' * 64}",
        f"t={NOW};v1={'0' * 64}",
        f"t={NOW},v1={'é' * 64}",
        "t=\udcff,v1=\udcff",
        "x" * 100_000,
    ],
)
def test_a_malformed_header_is_false_not_an_error(header):
    assert verify(SECRET, header, BODY, now=NOW) is False


def test_the_real_signature_with_a_doubled_timestamp_is_refused():
    header = sign(SECRET, NOW, BODY)
    assert not verify(SECRET, f"t={NOW},{header}", BODY, now=NOW)


def test_a_new_secret_is_256_random_bits_behind_its_prefix():
    secrets = {new_secret() for _ in range(20)}
    assert len(secrets) == 20
    for secret in secrets:
        assert secret.startswith(SECRET_PREFIX)
        assert len(secret) == len(SECRET_PREFIX) + 44  # 32 bytes as URL-safe base64
        assert set(secret[len(SECRET_PREFIX) :]) <= set(
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_="
        )


def test_a_timestamp_before_1970_is_never_signed():
    with pytest.raises(ValueError):
        sign(SECRET, -1, BODY)
