"""Issue and verify challenges; build the template context of a widget."""

from __future__ import annotations

import random
import secrets
from collections.abc import Mapping
from typing import Any

from practice.captcha.generators import CAPTCHA_TYPES, GENERATORS
from practice.captcha.store import Challenge, challenges
from practice.captcha.wording import wording

RANDOM = "random"
CAPTCHA_FAILED = "The security check failed. Please try again."


def kind_from_param(value: str | None) -> str | None:
    """A CAPTCHA type (or "random") from a ``?captcha=`` value; None when absent or unknown."""
    value = (value or "").strip()
    return value if value in CAPTCHA_TYPES or value == RANDOM else None


def issue(kind: str, variant: str = "", lang: str = "en") -> Challenge:
    """Generate and store a fresh challenge; "random" picks a type at random. `variant`
    ("unreadable": an OCR image no reader is sure of; "ring": a rotation disc in an upright
    ring) draws that variant where the type has one, the ordinary challenge otherwise."""
    rng = random.Random(secrets.randbits(128))  # noqa: S311 -- puzzle layout, seeded from secrets
    if kind == RANDOM:
        kind = rng.choice(CAPTCHA_TYPES)
    generate = getattr(GENERATORS[kind], f"generate_{variant}", None) if variant.isidentifier() else None
    return challenges.add(kind, (generate or GENERATORS[kind].generate)(rng),
                          variant=variant if generate else "", lang=lang)


def reissue(old: Challenge) -> Challenge:
    """The challenge a widget's "new challenge" control gets: the same type, variant and
    wording, as a real site's refresh gives, except where the generator's ``REFRESHED``
    maps a variant to another (OCR's unreadable one is followed by an ordinary one)."""
    variant = getattr(GENERATORS[old.kind], "REFRESHED", {}).get(old.variant, old.variant)
    return issue(old.kind, variant, old.lang)


def verify(data: Mapping[str, Any]) -> tuple[bool, str | None]:
    """Check a posted form (``captcha_challenge``, ``captcha_answer``), consuming the challenge.

    Returns (passed, type of the challenge or None when it was unknown, used or expired).
    """
    challenge = challenges.take(str(data.get("captcha_challenge") or ""))
    if challenge is None:
        return False, None
    answer = str(data.get("captcha_answer") or "")
    try:
        passed = GENERATORS[challenge.kind].verify(challenge.solution, answer)
    except (TypeError, ValueError, OverflowError):
        passed = False
    return passed, challenge.kind


def widget_context(challenge: Challenge) -> dict[str, Any]:
    """What the widget templates render: id, per-type partial, public view data, image URLs,
    and the wording in the challenge's language (practice/captcha/wording.py)."""
    return {
        "id": challenge.id,
        "text": wording(challenge.lang),
        "template": f"practice/captcha/types/{challenge.kind}.html",
        "view": challenge.view,
        "images": {name: f"/captcha/{challenge.id}/{name}.png" for name in challenge.images},
    }


def new_widget(kind: str, *, lang: str = "en", variant: str = "") -> dict[str, Any]:
    """Issue a challenge and return its widget context."""
    return widget_context(issue(kind, variant, lang))


def hook_payload(challenge: Challenge) -> dict[str, Any]:
    """The test hook's answer: type, a passing ``captcha_answer`` and the raw solution."""
    return {
        "type": challenge.kind,
        "answer": GENERATORS[challenge.kind].expected_answer(challenge.solution),
        "solution": challenge.solution,
    }
