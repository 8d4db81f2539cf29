"""A decided review in words: the outcome as the Decided list's filter says it, who decided and
when, the comment, and for "Approved with changes" what the reviewer changed (old → new).

Values are shown as the review page showed them while it was pending: card numbers cut to their
last 4 digits and a code typed into a security-code field masked whole
(`reviews.services.payment_masked`); a credential stays its `{{placeholder}}` (actions hold
placeholders, never secrets). A changed value is found by comparing the real proposed and edited
actions, so a masked value the reviewer left as it was is not reported as a change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from venus_rpa.dashboard.review_edit import LABELS, TARGET_LABELS
from venus_rpa.reviews.models import DECIDED_WORDS, ReviewRequest, ReviewStatus
from venus_rpa.reviews.services import action_masked

# Outcomes a person chose (expiry and cancellation are nobody's decision).
_BY_A_PERSON = {ReviewStatus.APPROVED, ReviewStatus.REJECTED, ReviewStatus.EDITED, ReviewStatus.ANSWERED}
_POINTS = {"point": "Where to click", "start": "Drag from", "end": "Drag to"}
_SHOWN_CHARS = 300


@dataclass(frozen=True)
class Change:
    """One field the reviewer changed: its label in the edit form's words, old and new as shown."""

    label: str
    old: str
    new: str


@dataclass(frozen=True)
class Decided:
    words: str  # "Approved with changes", as the Decided filter says it
    who: str  # the person who decided; "" for an expiry or a cancellation
    when: datetime | None
    comment: str
    changes: list[Change] = field(default_factory=list)
    edited_json: dict[str, Any] | None = None  # the action run instead, masked as the page masks


def _show(value: Any, key: str = "") -> str:
    if value is None:
        return "(none)"
    if isinstance(value, bool):
        return "checked" if value else "not checked"
    if key in _POINTS and isinstance(value, list) and len(value) == 2:
        return f"({value[0]}, {value[1]})"
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "'" + "+".join(value) + "'"
    text = f"'{value}'" if isinstance(value, str) else str(value)
    return text if len(text) <= _SHOWN_CHARS else text[:_SHOWN_CHARS - 1] + "…"




def _parts(target: Any) -> dict[str, Any]:
    """A target's parts; a plain string target is its visible text."""
    return {"text": target} if isinstance(target, str) else target if isinstance(target, dict) else {}


def _label(key: str, sub: str = "") -> str:
    if key == "target":
        return TARGET_LABELS.get(sub or "text", f"Target {sub}")
    return _POINTS.get(key) or LABELS.get(key) or key.replace("_", " ").capitalize()


def changes(review: ReviewRequest) -> list[Change]:
    """What an edit changed in the proposed action, field by field (a target's parts one by one)."""
    proposed, edited = review.proposed_action or {}, review.edited_action or {}
    if review.status != ReviewStatus.EDITED or not edited:
        return []
    old_shown, new_shown = action_masked(review, proposed), action_masked(review, edited)
    out: list[Change] = []
    # Only the editable fields can differ (`edit_validate`); the others are the stored action's
    # defaults filled in ("name": "", "timeout_s": 10), not the reviewer's changes.
    for key in (review.detail or {}).get("editable") or []:
        before, after = proposed.get(key), edited.get(key)
        if key in ("kind", "type") or before == after:
            continue
        if key == "target" and isinstance(before, (dict, str)) and isinstance(after, (dict, str)):
            before, after = _parts(before), _parts(after)
            old_t, new_t = _parts(old_shown.get(key)), _parts(new_shown.get(key))
            out += [Change(_label(key, sub), _show(old_t.get(sub)), _show(new_t.get(sub)))
                    for sub in dict.fromkeys([*before, *after]) if before.get(sub) != after.get(sub)]
            continue
        out.append(Change(_label(key), _show(old_shown.get(key), key), _show(new_shown.get(key), key)))
    return out


def decided_view(review: ReviewRequest) -> Decided | None:
    """The decided review's panel; None while it is pending."""
    if review.status == ReviewStatus.PENDING:
        return None
    who = ""
    if review.status in _BY_A_PERSON:
        who = review.decided_by.username if review.decided_by_id else "a former member"
    edited = action_masked(review, review.edited_action) if review.status == ReviewStatus.EDITED and review.edited_action else None
    return Decided(words=DECIDED_WORDS.get(review.status, review.status.capitalize()), who=who, when=review.decided_at,
                   comment=review.comment, changes=changes(review), edited_json=edited)
