"""The one signature scheme, used for inbound webhooks and outbound callbacks alike.

    X-Venus-Timestamp: <unix seconds>
    X-Venus-Signature: sha256=<hex HMAC-SHA256(secret, f"{timestamp}." + raw body)>

The timestamp is inside the signed message, so an old request cannot be re-dated; the receiver
refuses timestamps more than `tolerance` seconds from its clock (and, for webhooks, signatures
it has seen before). See docs/webhooks.md.
"""

from __future__ import annotations

import hashlib
import hmac
import time

from django.views.decorators.debug import sensitive_variables

TIMESTAMP_HEADER = "X-Venus-Timestamp"
SIGNATURE_HEADER = "X-Venus-Signature"
SCHEME = "sha256"
DEFAULT_TOLERANCE_SECONDS = 300
# Unix seconds have 10 digits until the year 2286; anything much longer is not a timestamp, and a
# few thousand digits would make int() itself fail.
TIMESTAMP_MAX_DIGITS = 12


class SignatureError(Exception):
    """A signature that does not verify. `reason` says why, for the 401 message."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@sensitive_variables("secret")
def sign(secret: str, timestamp: int | str, body: bytes) -> str:
    """`sha256=<hex>` over `f"{timestamp}."` followed by the raw body bytes."""
    message = f"{timestamp}.".encode() + body
    return f"{SCHEME}=" + hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


@sensitive_variables("secret")
def signed_headers(secret: str, body: bytes, *, timestamp: int | None = None) -> dict[str, str]:
    """The two headers a sender adds to a request with this body."""
    ts = int(time.time()) if timestamp is None else timestamp
    return {TIMESTAMP_HEADER: str(ts), SIGNATURE_HEADER: sign(secret, ts, body)}


@sensitive_variables("secret", "signature")
def verify(secret: str, timestamp: str | None, body: bytes, signature: str | None, *,
           tolerance: float = DEFAULT_TOLERANCE_SECONDS, now: float | None = None) -> int:
    """Check a request's timestamp and signature headers; return the timestamp as an int.

    Raises SignatureError when a header is missing or malformed, the timestamp is further than
    `tolerance` seconds from `now` (either way), or the HMAC differs (compared in constant time).
    """
    if not timestamp:
        raise SignatureError(f"Missing {TIMESTAMP_HEADER} header.")
    if not signature:
        raise SignatureError(f"Missing {SIGNATURE_HEADER} header.")
    if len(timestamp) > TIMESTAMP_MAX_DIGITS or not timestamp.isascii() or not timestamp.isdigit():
        raise SignatureError(f"{TIMESTAMP_HEADER} must be a unix time in whole seconds.")
    ts = int(timestamp)
    current = time.time() if now is None else now
    if abs(current - ts) > tolerance:
        raise SignatureError(f"{TIMESTAMP_HEADER} is more than {tolerance:g} seconds away from the server's clock.")
    if not signature.startswith(f"{SCHEME}="):
        raise SignatureError(f"{SIGNATURE_HEADER} must look like '{SCHEME}=<hex digest>'.")
    if not hmac.compare_digest(sign(secret, timestamp, body).encode(), signature.strip().encode()):
        raise SignatureError("The signature does not match the body and timestamp.")
    return ts
