"""Accounts created through /register, kept in memory (the demo account lives in settings)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from dataclasses import dataclass

_ITERATIONS = 100_000


@dataclass(frozen=True)
class Account:
    """A registered user; only a salted PBKDF2 hash of the password is kept."""

    username: str
    email: str
    salt: bytes
    password_hash: bytes


def _hash(password: str, salt: bytes) -> bytes:
    return hashlib.pbkdf2_hmac("sha256", password.encode(), salt, _ITERATIONS)


class AccountStore:
    """Thread-safe username -> account map; usernames are unique ignoring case."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._accounts: dict[str, Account] = {}

    def create(self, username: str, email: str, password: str) -> Account | None:
        """Add an account; None when the username is taken."""
        salt = secrets.token_bytes(16)
        account = Account(username, email, salt, _hash(password, salt))
        with self._lock:
            if username.lower() in self._accounts:
                return None
            self._accounts[username.lower()] = account
            return account

    def exists(self, username: str) -> bool:
        """Whether an account with this username (any case) exists."""
        with self._lock:
            return username.lower() in self._accounts

    def authenticate(self, username: str, password: str) -> Account | None:
        """The account when the password matches, else None."""
        with self._lock:
            account = self._accounts.get(username.lower())
        if account is None:
            _hash(password, b"0" * 16)  # same work either way, so timing does not tell
            return None
        if hmac.compare_digest(_hash(password, account.salt), account.password_hash):
            return account
        return None

    def reset(self) -> None:
        """Forget every registered account."""
        with self._lock:
            self._accounts.clear()


accounts = AccountStore()
