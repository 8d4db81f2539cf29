"""Time-based one-time codes (RFC 6238) for credentials that hold a TOTP secret.

A credential's `totp` field holds the base32 secret its site showed when 2FA was set up. The
placeholder `{{credentials.NAME.totp}}` never types that secret: `SecretBox.reveal` asks `code`
for the code of the current 30-second window at the moment of typing. The code is never stored;
while a run lasts it is masked like every other vault value (see `workers.secrets`).
"""

from __future__ import annotations

import base64
import binascii
import re
from urllib.parse import parse_qs, urlsplit

import pyotp

TOTP_FIELD = "totp"
MIN_SECRET_CHARS = 16  # 80 bits, the shortest secret common sites hand out
DIGITS, PERIOD, ALGORITHM = 6, 30, "SHA1"


class TotpSecretError(ValueError):
    """The value cannot be a TOTP secret; the message says why, without repeating the value."""


def normalise_secret(value: str) -> str:
    """The canonical base32 secret from what a person pastes: the secret with or without spaces,
    dashes or padding, in any case, or the whole `otpauth://totp/...` address of the QR code."""
    value = (value or "").strip()
    if value.lower().startswith("otpauth://"):
        value = _secret_from_uri(value)
    secret = re.sub(r"[\s=-]", "", value).upper()
    if not secret:
        raise TotpSecretError("The TOTP secret is empty.")
    if not re.fullmatch(r"[A-Z2-7]+", secret):
        raise TotpSecretError("A TOTP secret is base32: letters A-Z and digits 2-7 only "
                              "(paste the setup key your site shows, or its otpauth:// address).")
    if len(secret) < MIN_SECRET_CHARS:
        raise TotpSecretError(f"A TOTP secret has at least {MIN_SECRET_CHARS} base32 characters; this one has "
                              f"{len(secret)}.")
    try:
        base64.b32decode(secret + "=" * (-len(secret) % 8))
    except binascii.Error:
        raise TotpSecretError("The TOTP secret is not valid base32 (its length does not decode).") from None
    return secret


def _secret_from_uri(uri: str) -> str:
    parts = urlsplit(uri)
    if parts.netloc.lower() != "totp":
        raise TotpSecretError("Only time-based codes (otpauth://totp/...) are supported, not counter-based ones.")
    query = {k.lower(): v[-1] for k, v in parse_qs(parts.query).items()}
    if int(query.get("digits", DIGITS)) != DIGITS or int(query.get("period", PERIOD)) != PERIOD \
            or query.get("algorithm", ALGORITHM).upper() != ALGORITHM:
        raise TotpSecretError(f"Only {DIGITS}-digit codes every {PERIOD} seconds with {ALGORITHM} are supported.")
    if "secret" not in query:
        raise TotpSecretError("The otpauth:// address has no secret.")
    return query["secret"]


def code(secret: str, *, at: float | None = None) -> str:
    """The code for the current (or `at`) time window."""
    return pyotp.TOTP(normalise_secret(secret), digits=DIGITS, interval=PERIOD).at(at) if at is not None \
        else pyotp.TOTP(normalise_secret(secret), digits=DIGITS, interval=PERIOD).now()
