"""The review queue's side of the safety gate, without Django: what a reviewer is asked and what
comes back, the action in words, the screenshot with the target marked, the step's risk record.

Contract with the recorder (`RunRecorder.open_review` / `wait_review` / `note_review`):
- `open_review(question)` files a `risky_action` review, puts the run in `awaiting_review` and
  returns the review's reference.
- `wait_review(ref, timeout_s=...)` returns the `ReviewDecision` as soon as one is made, an
  "expired" decision once the review's own expiry has passed, or None when `timeout_s` ran out
  first (the review stays pending). Cancelling the wait cancels the review.
- `note_review(ref, facts)` adds facts for the reviewer (e.g. the browser session was released).
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Any, Literal

from PIL import Image, ImageDraw

from workers.gates.context import Probe
from workers.gates.safety import Verdict

DecisionKind = Literal["approve", "reject", "edit", "expired", "cancelled"]
MARK = (220, 38, 38)


@dataclass
class ReviewQuestion:
    """One consequential action waiting for a person.

    `action` is the proposed action as data: an explicit step (`kind`, `target`, `value`...) or a
    UI-Venus action (`type`, `point`...). `editable` names the fields a reviewer may change.
    `form` is the form the action submits, each field's label and value (secrets and card numbers
    masked), `amounts` the page's lines that show an amount or total, `full_page` whether the
    screenshot is the whole page (web) rather than the screen.
    """

    action: dict[str, Any]
    description: str
    verdict: dict[str, Any]
    fingerprint: str
    url: str
    screenshot: bytes | None = None
    target: dict[str, Any] | None = None
    step: dict[str, Any] = field(default_factory=dict)
    editable: list[str] = field(default_factory=list)
    timeout_s: float = 3600.0
    form: list[dict[str, str]] = field(default_factory=list)
    amounts: list[str] = field(default_factory=list)
    full_page: bool = False
    approval_key: str = ""  # what an approval covers in this run (`workers.gates.guard.approval_key`)

    def detail(self) -> dict[str, Any]:
        """The JSON a review request keeps (everything but the screenshot)."""
        return {"action": self.action, "description": self.description, "verdict": self.verdict,
                "fingerprint": self.fingerprint, "url": self.url, "target": self.target, "step": self.step,
                "editable": self.editable, "form": self.form, "amounts": self.amounts, "full_page": self.full_page}


@dataclass
class ReviewDecision:
    """A reviewer's decision. `action` is the edited action (edit only), complete and validated
    against the proposed one by the service that took the decision."""

    decision: DecisionKind
    comment: str = ""
    action: dict[str, Any] | None = None
    decided_by: str = ""


def verdict_record(verdict: Verdict, probe: Probe | None) -> dict[str, Any]:
    """The step record's `risk`: what the dashboard shows (category, level, reason) and why."""
    return {
        "category": verdict.category, "level": verdict.level, "decision": verdict.decision, "reason": verdict.reason,
        "modifiers": list(verdict.modifiers),
        "evidence": [e.model_dump() for e in verdict.evidence[:4]],
        "target": probe.describe_target() if probe is not None else "",
    }


_VERBS = {
    "click": "Click", "double_click": "Double-click", "long_press": "Long-press", "drag": "Drag",
    "right_click": "Right-click",
}


def describe_action(fields: dict[str, Any], probe: Probe | None) -> str:
    """The proposed action in words, e.g. "Click the button 'Place order'", "Upload 'r.txt' to
    the file field 'Receipt'"."""
    kind = fields.get("action_type", "")
    target = f"the {probe.target_words()}" if probe is not None and probe.target else ""
    if kind in _VERBS:
        return f"{_VERBS[kind]} {target or 'the page'}"
    if kind == "type":
        return f"Type {fields.get('typed_text', '')[:120]!r}" + (f" into {target}" if target else "")
    if kind == "select":
        return f"Choose {fields.get('option', '')!r}" + (f" in {target}" if target else "")
    if kind == "check":
        return f"{'Check' if fields.get('checked', True) else 'Uncheck'} {target or 'the box'}"
    if kind == "upload":
        return f"Upload {fields.get('file_name', '')!r}" + (f" to {target}" if target else "")
    if kind in ("press_key", "hotkey"):
        return f"Press {fields.get('key', '')}" + (f" in {target}" if target else "")
    if kind == "navigate":
        return f"Open {fields.get('destination_url', '')}"
    return f"{kind.replace('_', ' ').capitalize()} {target}".strip()


def mark_screenshot(jpeg: bytes, *, box: dict[str, float] | None = None,
                    point: tuple[float, float] | None = None) -> bytes:
    """The screenshot with the target framed (a box) or pinned (a point), for the reviewer."""
    if box is None and point is None:
        return jpeg
    with Image.open(io.BytesIO(jpeg)) as image:
        image = image.convert("RGB")
        draw = ImageDraw.Draw(image)
        k = max(1, round(max(image.size) / 1000))  # a phone's 2400 px screen is shown smaller: thicker marks
        if box is not None:
            pad = 4 * k
            x0, y0 = box["x"] - pad, box["y"] - pad
            x1, y1 = box["x"] + box["width"] + pad, box["y"] + box["height"] + pad
            draw.rectangle([x0, y0, x1, y1], outline=MARK, width=4 * k)
        if point is not None:
            x, y = point
            draw.ellipse([x - 14 * k, y - 14 * k, x + 14 * k, y + 14 * k], outline=MARK, width=4 * k)
            draw.line([x - 22 * k, y, x + 22 * k, y], fill=MARK, width=2 * k)
            draw.line([x, y - 22 * k, x, y + 22 * k], fill=MARK, width=2 * k)
        out = io.BytesIO()
        image.save(out, "JPEG", quality=85)
        return out.getvalue()
