"""A readable diff between two automation versions, per definition field.

Steps are compared as the editor shows them: one row per step, and per block a row that opens
it, its steps' rows, an `else` row and an `end` row, numbered from 1 (the numbers a run's reason
uses, docs/workflows.md). A changed step is one line, "Step 3 (Fill 'Amount'): value
'{{amount}}' → '{{total}}'"; an added one "Step 4 added: …", a removed one "v2's step 5 removed:
…". Any other field is shown as the lines of its pretty JSON (or text) that changed, with three
lines of context around each change and a gap line between changes, never a "@@ -114,7" header.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from typing import Any

from venus_rpa.automations.governance import safety_lowerings
from venus_rpa.automations.models import AutomationVersion

BLOCK_KINDS = ("if", "repeat", "for_each")  # kinds whose steps are rows of their own, closed by an `end` row
MAX_STEP_LINES = 200  # a diff of a long automation says how many more changed past this
VALUE_CHARS = 120
FIELD_WORDS = {"start_url": "Start URL", "allowed_domains": "Allowed domains", "param_schema": "Parameters",
               "success_criteria": "Success criteria", "output_schema": "Output schema", "captcha": "CAPTCHA policy",
               "safety": "Safety policy", "model_grounding": "Model grounding", "sign_in": "Sign-in"}
_VERBS = {"goto": "Open", "click": "Click", "fill": "Fill", "select": "Choose in", "check": "Check", "upload": "Upload to",
          "download": "Download with", "press": "Press", "wait_for": "Wait for", "assert": "Check that",
          "extract": "Extract", "agent": "Agent:", "call": "Call", "if": "If", "repeat": "Repeat", "for_each": "For each item",
          "skip_item": "Skip the item", "else": "Else", "end": "End of block"}


@dataclass(frozen=True)
class Change:
    """One changed value of a step: its field (dotted into a target or condition), old and new."""

    key: str
    old: str
    new: str


@dataclass(frozen=True)
class StepLine:
    """A step added (css "add"), removed ("del") or changed ("change"), as one line."""

    css: str
    head: str  # "Step 3 (Fill 'Amount')", "Step 4 added", "v2's step 5 removed"
    what: str = ""  # an added or removed step in words
    changes: list[Change] = field(default_factory=list)


@dataclass
class FieldDiff:
    field: str
    lines: list[tuple[str, str]] = field(default_factory=list)  # (css class: add/del/gap/ctx, text)
    steps: list[StepLine] = field(default_factory=list)
    more: int = 0  # step lines left out past MAX_STEP_LINES

    @property
    def label(self) -> str:
        return FIELD_WORDS.get(self.field, self.field.replace("_", " ").capitalize())


@dataclass(frozen=True)
class _Row:
    number: int
    kind: str
    values: dict[str, Any]  # the step's own fields (its nested steps left out), dotted into objects

    @property
    def key(self) -> str:
        return json.dumps(self.values, sort_keys=True, ensure_ascii=False)


def _lines(value: Any) -> list[str]:
    if isinstance(value, str):
        return value.splitlines() or [""]
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False).splitlines()


def _flat(values: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in values.items():
        if isinstance(value, dict) and value:
            out.update(_flat(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def _rows(steps: list[Any], out: list[_Row], number: int = 1) -> int:
    """Lay `steps` out as the editor's rows from `number`; the number after them. Raises
    ValueError for anything that is not a step object."""
    for step in steps:
        if not isinstance(step, dict) or not isinstance(step.get("steps", []), list) \
                or not isinstance(step.get("else", []), list):
            raise ValueError("not a step")
        kind = str(step.get("kind", ""))
        out.append(_Row(number, kind, _flat({k: v for k, v in step.items() if k not in ("steps", "else")})))
        number += 1
        if kind in BLOCK_KINDS:
            number = _rows(step.get("steps") or [], out, number)
            if step.get("else"):
                out.append(_Row(number, "else", {"kind": "else"}))
                number = _rows(step["else"], out, number + 1)
            out.append(_Row(number, "end", {"kind": "end"}))
            number += 1
    return number


def _show(value: Any) -> str:
    text = "(none)" if value is None else f"'{value}'" if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= VALUE_CHARS else text[:VALUE_CHARS - 1] + "…"


def _what(row: _Row) -> str:
    """What a row does, in a few words: "Fill 'Amount'", "Open 'https://…'"."""
    v = row.values
    target = next((v[k] for k in ("target", "target.name", "target.label", "target.text", "target.placeholder",
                                  "target.css", "target.resource_id") if v.get(k)), None)
    detail = target or v.get("url") or v.get("key") or v.get("goal") or v.get("automation")
    words = f"{_VERBS.get(row.kind, row.kind.replace('_', ' ').capitalize())} {_show(detail) if detail else ''}".strip()
    return words if len(words) <= 80 else words[:79] + "…"


def _title(row: _Row) -> str:
    return str(row.values.get("name") or "").strip() or _what(row)


def _changed(old: _Row, new: _Row) -> StepLine:
    changes = [Change(key, _show(old.values.get(key)), _show(new.values.get(key)))
               for key in dict.fromkeys([*old.values, *new.values]) if old.values.get(key) != new.values.get(key)]
    return StepLine("change", f"Step {new.number} ({_title(new)})", changes=changes)


def _pairs(old: list[_Row], new: list[_Row], old_number: int) -> list[StepLine]:
    """Rows replaced by rows: a row of the same kind, in order, is the same step changed; the
    others were removed or added."""
    out: list[StepLine] = []
    j = 0
    for row in old:
        match = next((k for k in range(j, len(new)) if new[k].kind == row.kind), None)
        if match is None:
            out.append(StepLine("del", f"v{old_number}'s step {row.number} removed", _title(row)))
            continue
        out += [StepLine("add", f"Step {n.number} added", _title(n)) for n in new[j:match]]
        out.append(_changed(row, new[match]))
        j = match + 1
    return out + [StepLine("add", f"Step {n.number} added", _title(n)) for n in new[j:]]


def steps_diff(before: list[Any], after: list[Any], old_number: int) -> list[StepLine]:
    """What changed between two step lists, one line per step added, removed or changed."""
    old_rows: list[_Row] = []
    new_rows: list[_Row] = []
    _rows(before, old_rows)
    _rows(after, new_rows)
    matcher = difflib.SequenceMatcher(None, [r.key for r in old_rows], [r.key for r in new_rows], autojunk=False)
    out: list[StepLine] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            out += _pairs(old_rows[i1:i2], new_rows[j1:j2], old_number)
    return out


def _hunks(before: Any, after: Any) -> list[tuple[str, str]]:
    lines: list[tuple[str, str]] = []
    for line in list(difflib.unified_diff(_lines(before), _lines(after), lineterm="", n=3))[2:]:  # no ---/+++ header
        if line.startswith("@@"):
            if lines:
                lines.append(("gap", "⋯"))  # where one change's context ends and the next begins
            continue
        lines.append(({"+": "add", "-": "del"}.get(line[:1], "ctx"), line))
    return lines


def version_diff(old: AutomationVersion, new: AutomationVersion) -> list[FieldDiff]:
    """The definition fields that differ between two versions: steps step by step, the others as
    changed lines."""
    out = []
    for name in AutomationVersion.DEFINITION_FIELDS:
        before, after = getattr(old, name), getattr(new, name)
        if before == after:
            continue
        if name == "steps" and isinstance(before, list) and isinstance(after, list):
            try:
                lines = steps_diff(before, after, old.number)
            except ValueError:  # not a list of steps (a definition saved before validation): lines, then
                pass
            else:
                out.append(FieldDiff(name, steps=lines[:MAX_STEP_LINES], more=max(0, len(lines) - MAX_STEP_LINES)))
                continue
        out.append(FieldDiff(name, lines=_hunks(before, after)))
    return out


def version_lowerings(old: AutomationVersion, new: AutomationVersion) -> list[str]:
    """What `new` lets through without review that `old` held, in words (the page's callout)."""
    return safety_lowerings(old.safety, new.safety)
