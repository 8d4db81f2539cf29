"""Helpers shared by the risky-flow pages: one-shot flash messages and submission tokens."""

from __future__ import annotations

import re
import secrets

from django.http import HttpRequest

FLASH_KEY = "flash"
_TOKEN = re.compile(r"^[0-9a-f]{32}$")


def flash(request: HttpRequest, text: str, kind: str = "success") -> None:
    """Show ``text`` once on the next page (role=status for success, role=alert for errors)."""
    request.session[FLASH_KEY] = {"text": text, "kind": kind}


def pop_flash(request: HttpRequest) -> dict[str, str] | None:
    return request.session.pop(FLASH_KEY, None)


def new_submission_token() -> str:
    """A fresh one-time token for a consequential form (see ``practice.records``)."""
    return secrets.token_hex(16)


def submission_token(request: HttpRequest) -> str:
    """The posted token if well formed, else a fresh one (so a bare POST still acts once)."""
    token = request.POST.get("submission", "")
    return token if _TOKEN.match(token) else new_submission_token()


def user(request: HttpRequest) -> str:
    return str(request.session["user"])
