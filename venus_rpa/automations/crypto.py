"""Credential encryption at rest (Fernet: AES-128-CBC + HMAC-SHA256, from `cryptography`)."""

from __future__ import annotations

import json

from cryptography.fernet import Fernet, InvalidToken
from django.conf import settings


def _fernet() -> Fernet:
    return Fernet(settings.CREDENTIAL_KEY.encode())


def encrypt_fields(fields: dict[str, str]) -> str:
    return _fernet().encrypt(json.dumps(fields).encode()).decode()


def decrypt_fields(ciphertext: str) -> dict[str, str]:
    try:
        return json.loads(_fernet().decrypt(ciphertext.encode()))
    except InvalidToken as exc:
        raise ValueError("credential cannot be decrypted: VENUS_CREDENTIAL_KEY differs from the key it was stored with") from exc
