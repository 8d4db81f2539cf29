"""The one signature scheme: sign and verify, both directions."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from venus_rpa.triggers.signing import SignatureError, sign, signed_headers, verify

SECRET = "whsec_test-secret"
BODY = b'{"order": {"id": "42"}}'
NOW = 1_800_000_000


def test_it_signs_timestamp_dot_body_with_hmac_sha256():
    expected = hmac.new(SECRET.encode(), f"{NOW}.".encode() + BODY, hashlib.sha256).hexdigest()
    assert sign(SECRET, NOW, BODY) == f"sha256={expected}"


def test_it_verifies_its_own_headers():
    headers = signed_headers(SECRET, BODY, timestamp=NOW)
    assert verify(SECRET, headers["X-Venus-Timestamp"], BODY, headers["X-Venus-Signature"], now=NOW + 10) == NOW


@pytest.mark.parametrize(("secret", "timestamp", "body", "signature", "reason"), [
    ("other-secret", str(NOW), BODY, None, "does not match"),
    (SECRET, str(NOW), BODY + b" ", None, "does not match"),
    (SECRET, str(NOW + 1), BODY, None, "does not match"),
    (SECRET, None, BODY, None, "Missing X-Venus-Timestamp"),
    (SECRET, str(NOW), BODY, "", "Missing X-Venus-Signature"),
    (SECRET, "12.5", BODY, None, "whole seconds"),
    (SECRET, str(NOW), BODY, "md5=abc", "sha256=<hex digest>"),
    (SECRET, str(NOW - 301), BODY, None, "more than 300 seconds"),
    (SECRET, str(NOW + 301), BODY, None, "more than 300 seconds"),
], ids=["wrong-secret", "other-body", "other-timestamp", "no-timestamp", "no-signature", "fractional-timestamp",
        "other-scheme", "too-old", "too-far-ahead"])
def test_it_rejects_what_does_not_verify(secret, timestamp, body, signature, reason):
    if signature is None:  # signed correctly for the original message, checked against another
        signature = sign(SECRET, NOW, BODY) if timestamp in (str(NOW), str(NOW + 1)) else sign(SECRET, timestamp, body)
    with pytest.raises(SignatureError, match=reason):
        verify(secret, timestamp, body, signature, now=NOW)
