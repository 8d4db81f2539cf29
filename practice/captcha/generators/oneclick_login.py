"""One-click checkbox ("I am human"): the page fetches a token and posts it back.

Unlike real risk-scored widgets there is no behavioural scoring: the token comes from
``POST /captcha/<id>/check``, which the widget calls after a short "Verifying…" pause.
"""

from __future__ import annotations

import hmac
import random
import secrets
from typing import Any

from practice.captcha.generators.base import Generated


def generate(rng: random.Random) -> Generated:
    """No image: just a secret token, handed out by the check endpoint."""
    return Generated(solution={"token": secrets.token_urlsafe(24)}, images={}, view={})


def verify(solution: dict[str, Any], answer: str) -> bool:
    """The token fetched from the check endpoint for this challenge."""
    given = (answer or "").strip().encode()
    return bool(given) and hmac.compare_digest(given, solution["token"].encode())


def expected_answer(solution: dict[str, Any]) -> str:
    """The token."""
    return str(solution["token"])
