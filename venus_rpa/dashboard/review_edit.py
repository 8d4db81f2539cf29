"""A reviewer's edit as a form: the fields of the proposed action a reviewer may change
(`detail.editable`, set by the worker's gate), each as an input in words, prefilled with what the
reviewer was shown (secrets masked). The services still judge the edit (`reviews.services.
edit_validate`): only editable fields, the same kind of action, no new placeholders. The whole
action as JSON stays available for what the form does not cover.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.http import QueryDict

LABELS = {"value": "Value to type", "option": "Option to choose", "checked": "Checked", "filename": "File name",
          "content": "Text", "key": "Key", "url": "URL", "index": "Option number", "keys": "Keys"}
TARGET_LABELS = {"text": "Target (visible text)", "role": "Target role", "name": "Target name", "label": "Target label",
                 "placeholder": "Target placeholder", "css": "Target CSS", "within": "Within", "near": "Near"}


class EditInvalid(ValueError):
    """A form value that cannot be read (a coordinate that is not a number)."""


@dataclass(frozen=True)
class EditInput:
    name: str  # the POST field
    label: str
    kind: str  # text | textarea | checkbox | number
    value: Any


def _point(field: str, label: str, value: Any) -> list[EditInput] | None:
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, (int, float)) for v in value):
        return [EditInput(f"edit-{field}-x", f"{label}: x (pixels from the left)", "number", value[0]),
                EditInput(f"edit-{field}-y", f"{label}: y (pixels from the top)", "number", value[1])]
    return None


def _inputs(field: str, value: Any) -> list[EditInput] | None:
    """The inputs of one editable field, or None when only JSON can say it."""
    label = LABELS.get(field, field.replace("_", " ").capitalize())
    if field == "target":
        if isinstance(value, str):
            return [EditInput("edit-target-text", TARGET_LABELS["text"], "text", value)]
        if isinstance(value, dict) and value and all(isinstance(v, str) for v in value.values()):
            return [EditInput(f"edit-target-{k}", TARGET_LABELS.get(k, f"Target {k}"), "text", v)
                    for k, v in value.items() if k in TARGET_LABELS]
        return None
    if field in ("point", "start", "end"):
        return _point(field, {"point": "Where to click", "start": "Drag from", "end": "Drag to"}[field], value)
    if isinstance(value, bool):
        return [EditInput(f"edit-{field}", label, "checkbox", value)]
    if isinstance(value, int):
        return [EditInput(f"edit-{field}", label, "number", value)]
    if isinstance(value, str):
        return [EditInput(f"edit-{field}", label, "textarea" if field == "content" else "text", value)]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return [EditInput(f"edit-{field}", f"{label} (separated by +)", "text", "+".join(value))]
    return None


def edit_inputs(detail: dict[str, Any]) -> list[EditInput]:
    """Every input of the edit form, in the order the gate listed the editable fields."""
    shown = detail.get("action") or {}
    found: list[EditInput] = []
    for field in detail.get("editable") or []:
        if field in shown:
            found += _inputs(field, shown[field]) or []
    return found


def _number(raw: str, what: str) -> float | int:
    try:
        number = float(raw.strip())
    except ValueError:
        raise EditInvalid(f"{what} must be a number.") from None
    return int(number) if number.is_integer() else number


def edited_from_form(detail: dict[str, Any], data: QueryDict) -> dict[str, Any]:
    """The edited fields the form gives (the services merge them into the proposed action)."""
    shown = detail.get("action") or {}
    edited: dict[str, Any] = {}
    for field in detail.get("editable") or []:
        value = shown.get(field)
        inputs = _inputs(field, value) if field in shown else None
        if not inputs:
            continue
        if field == "target":
            parts = {i.name.removeprefix("edit-target-"): data.get(i.name, "").strip() for i in inputs}
            edited[field] = parts["text"] if isinstance(value, str) else {**value, **parts}
        elif field in ("point", "start", "end"):
            edited[field] = [_number(data.get(i.name, ""), i.label) for i in inputs]
        elif isinstance(value, bool):
            edited[field] = data.get(inputs[0].name) == "on"
        elif isinstance(value, int):
            edited[field] = int(_number(data.get(inputs[0].name, ""), inputs[0].label))
        elif isinstance(value, list):
            edited[field] = [k.strip() for k in data.get(inputs[0].name, "").split("+") if k.strip()]
        else:
            edited[field] = data.get(inputs[0].name, "")
    return edited


def json_changed(detail: dict[str, Any], text: str) -> bool:
    """Whether the reviewer changed the whole-action JSON box (browsers send CRLF line ends)."""
    shown = json.dumps(detail.get("action") or {}, indent=2, sort_keys=True, ensure_ascii=False)
    return text.replace("\r\n", "\n").strip() not in ("", shown.strip())
