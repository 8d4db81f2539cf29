"""A readable diff between two automation versions: unified diff of pretty JSON, per field."""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from typing import Any

from venus_rpa.automations.governance import safety_lowerings
from venus_rpa.automations.models import AutomationVersion


@dataclass
class FieldDiff:
    field: str
    lines: list[tuple[str, str]]  # (css class: add/del/hunk/ctx, text)


def _lines(value: Any) -> list[str]:
    if isinstance(value, str):
        return value.splitlines() or [""]
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False).splitlines()


def version_diff(old: AutomationVersion, new: AutomationVersion) -> list[FieldDiff]:
    """The definition fields that differ between two versions, each as unified diff lines."""
    out = []
    for name in AutomationVersion.DEFINITION_FIELDS:
        before, after = getattr(old, name), getattr(new, name)
        if before == after:
            continue
        raw = difflib.unified_diff(_lines(before), _lines(after), f"v{old.number}", f"v{new.number}", lineterm="", n=3)
        lines = []
        for line in list(raw)[2:]:  # drop the ---/+++ header: the page says which versions
            css = {"+": "add", "-": "del", "@": "hunk"}.get(line[:1], "ctx")
            lines.append((css, line))
        out.append(FieldDiff(name, lines))
    return out


def version_lowerings(old: AutomationVersion, new: AutomationVersion) -> list[str]:
    """What `new` lets through without review that `old` held, in words (the page's callout)."""
    return safety_lowerings(old.safety, new.safety)
