"""Long automations in the editor: rows shown closed, one line each, until someone opens them.

A step row shown open is some forty fields (every kind's, the ones of other kinds hidden), about
9 KB of HTML; a 10,000-step automation would be 90 MB that no browser lays out in reasonable
time, and its form would post 370,000 fields. Past `CLOSED_FROM` rows, the editor shows each
saved row as a line (number, kind, what it does) holding its fields packed in one hidden input;
"Edit" swaps the line for the full row (`step_row` view), and a closed row posts two fields.
Rows with errors and rows added or opened in the page are always shown open. The services judge
a packed row exactly as an open one: `editor.unpacked` gives back the same values.
"""

from __future__ import annotations

import re

from django.template.loader import get_template
from django.utils.html import conditional_escape, format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from venus_rpa.dashboard import blocks, editor

CLOSED_FROM = 25  # a definition with more rows than this opens closed
ROW_CONTEXT = {"kinds": editor.STEP_KINDS, "roles": editor.ROLES, **blocks.ROW_CONTEXT}  # what the row template needs
UID = re.compile(r"^[A-Za-z0-9_]{1,32}$")


def summary(row: editor.StepRow) -> str:
    """What a closed row does, in one line: its name, then the field that says most for its kind."""
    values = row.values
    target = next((str(values[f"target_{k}"]) for k in ("text", "name", "label", "placeholder", "css", "resource_id")
                   if values.get(f"target_{k}")), "")
    detail = {"goto": values.get("url"), "fill": f"{target} ← {values.get('value', '')}" if target else None,
              "select": f"{target} ← {values.get('option', '')}" if target else None,
              "extract": f"file {values['from_file']}" if values.get("from_file") else None,
              "upload": f"{target} ← file {values['from_input']}" if values.get("from_input") and target else None,
              "press": values.get("key"), "agent": values.get("goal"), "skip_item": values.get("reason"),
              "wait_for": values.get("text") or values.get("url_contains"),
              "assert": values.get("text") or values.get("url_contains"),
              "call": values.get("automation"), "if": values.get("cond_text") or target, "repeat": values.get("cond_text") or target,
              }.get(row.kind) or target
    parts = [str(p).strip() for p in (values.get("name"), detail) if p and str(p).strip()]
    text = " · ".join(dict.fromkeys(parts))
    return text if len(text) <= 160 else text[:159] + "…"


TOOLS = ('<span class="step-tools"><button type="button" class="btn btn-small" data-step-open aria-label="Edit step: {label}">Edit</button>'
         '<button type="button" class="btn btn-small btn-icon" data-step-move="up" title="Move up" aria-label="Move up">↑</button>'
         '<button type="button" class="btn btn-small btn-icon" data-step-move="down" title="Move down" aria-label="Move down">↓</button>'
         '<button type="button" class="btn btn-small btn-icon btn-danger" data-step-remove title="Remove" aria-label="Remove step">✕</button></span>')


GRIP = mark_safe('<span class="step-grip" draggable="true" title="Drag to move (or use ↑ ↓)" aria-hidden="true">⠿</span>')


def _line(row: editor.StepRow, readonly: bool) -> SafeString:
    text = summary(row)
    return format_html(
        '<li class="step-row step-closed" data-kind="{kind}" data-depth="{depth}" style="--depth: {depth}" id="step-{uid}">'
        '<input type="hidden" name="step" value="{uid}"><input type="hidden" name="s-{uid}-packed" value="{packed}">'
        '<div class="step-head">{grip}<span class="step-no" aria-hidden="true"></span>'
        '<span class="step-kind-name">{kind}</span><span class="step-summary">{summary}</span>{tools}</div></li>',
        kind=row.kind, depth=row.depth, uid=row.uid, packed=editor.packed(row), summary=text or "–",
        tools="" if readonly else format_html(TOOLS, label=text or row.kind), grip="" if readonly else GRIP)


def rows_html(rows: list[editor.StepRow], readonly: bool = False, surface: str = "web") -> SafeString:
    """Every row of the editor: closed rows as lines (without tools for a reader), the others
    through the full row template (`surface`: the automation's; Android rows show a resource id)."""
    full = get_template("dashboard/automations/_step_row.html")
    context = {**ROW_CONTEXT, "surface": surface}
    parts = [_line(row, readonly) if row.closed and not row.errors
             else conditional_escape(full.render({**context, "row": row})) for row in rows]
    return format_html_join("", "{}", ((part,) for part in parts))


def close_long(rows: list[editor.StepRow]) -> None:
    """Shown from a stored definition: past CLOSED_FROM rows, every row opens closed."""
    if len(rows) > CLOSED_FROM:
        for row in rows:
            row.closed = True


def open_row(uid: str, text: str) -> editor.StepRow:
    """The row a closed line asks to open (a fresh uid when the posted one is not one of ours)."""
    if not text:
        return editor.StepRow(uid=editor.new_uid())
    return editor.unpacked(uid if UID.match(uid or "") else editor.new_uid(), text)
