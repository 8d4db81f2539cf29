"""One-time codes from a credential's TOTP secret: computed when typed, masked like a secret."""

from __future__ import annotations

import pyotp
import pytest

from workers import totp
from workers.errors import StepError
from workers.secrets import Credential, SecretBox

SECRET = "JBSWY3DPEHPK3PXP"


def box(secret: str = SECRET) -> SecretBox:
    return SecretBox({"erp": Credential("erp", {"username": "ann", "password": "hunter2-long", "totp": secret},
                                        domains=["erp.example.com"])})


def test_the_placeholder_types_the_code_of_the_moment_not_the_secret():
    secrets = box()
    typed = secrets.reveal("{{credentials.erp.totp}}", url="https://erp.example.com/login/code")
    assert typed != SECRET and len(typed) == 6 and typed.isdigit()
    assert pyotp.TOTP(SECRET).verify(typed, valid_window=1)


def test_a_code_is_refused_off_the_credentials_domains():
    with pytest.raises(StepError, match="may only be typed on erp.example.com"):
        box().reveal("{{credentials.erp.totp}}", url="https://evil.example/")


def test_a_typed_code_and_the_secret_are_masked_but_not_other_numbers():
    secrets = box()
    code = secrets.reveal("{{credentials.erp.totp}}", url="https://erp.example.com/")
    other = f"{(int(code) + 1) % 1_000_000:06d}"
    text = f"code {code}, secret {SECRET}, order {other}, year {code[:4]}"
    scrubbed = secrets.scrub(text)
    assert code not in scrubbed and SECRET not in scrubbed
    assert f"order {other}" in scrubbed and f"year {code[:4]}" in scrubbed  # codes are masked whole only
    assert secrets.holds_secret(f"your code is {code}")  # screenshots mask a code echoed on the page


def test_a_bad_stored_secret_fails_the_step_clearly_without_showing_it():
    with pytest.raises(StepError) as info:
        box("not base32!").reveal("{{credentials.erp.totp}}", url="https://erp.example.com/")
    assert "its totp field is not a usable TOTP secret" in str(info.value)
    assert "not base32!" not in str(info.value)


@pytest.mark.parametrize("given, canonical", [
    ("jbsw y3dp ehpk 3pxp", SECRET), ("JBSW-Y3DP-EHPK-3PXP", SECRET), (SECRET + "====", SECRET),
    ("otpauth://totp/Acme:ann?secret=jbswy3dpehpk3pxp&issuer=Acme&period=30", SECRET),
])
def test_secrets_are_normalised_from_the_forms_sites_show(given, canonical):
    assert totp.normalise_secret(given) == canonical


def test_the_code_matches_the_rfc_6238_reference():
    # RFC 6238 appendix B: the SHA1 secret "12345678901234567890", T = 59 s -> 94287082 (8 digits).
    secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
    assert totp.code(secret, at=59) == "287082"
