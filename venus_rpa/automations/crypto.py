"""Encryption at rest for credentials and saved sign-in sessions (Fernet: AES-128-CBC +
HMAC-SHA256, from `cryptography`), under VENUS_CREDENTIAL_KEY."""

from __future__ import annotations

import json
from typing import Any

from cryptography.fernet import Fernet, InvalidToken
from django.conf import settings


def _fernet() -> Fernet:
    return Fernet(settings.CREDENTIAL_KEY.encode())


def encrypt_fields(fields: dict[str, str]) -> str:
    return encrypt_json(fields)


def decrypt_fields(ciphertext: str) -> dict[str, str]:
    return decrypt_json(ciphertext, what="credential")


def encrypt_json(value: Any) -> str:
    return _fernet().encrypt(json.dumps(value).encode()).decode()


def decrypt_json(ciphertext: str, *, what: str = "value") -> Any:
    try:
        return json.loads(_fernet().decrypt(ciphertext.encode()))
    except InvalidToken as exc:
        raise ValueError(f"{what} cannot be decrypted: VENUS_CREDENTIAL_KEY differs from the key it was stored with") from exc
