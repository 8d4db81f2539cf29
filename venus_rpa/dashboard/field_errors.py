"""Errors in the user's words, under the inputs they are about: the one way every dashboard form
places a service's field errors.

Services answer with field errors keyed as in the API (`params.title`, `param_schema`,
`steps.2.url`, `param_mapping.order_id`). `errors_place` puts each under the form input it is
about and returns the rest for the form's summary, each named by its label (never an internal
key). `json_object_read` reads a JSON object typed into a box, with "line L, column C: what is
wrong" as its message.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from venus_rpa.core.parsers import json_error_text, json_loads_bounded

LABELS = {
    "param_schema": "Parameters", "params": "Parameters", "output_schema": "Output schema", "start_url": "Start URL",
    "allowed_domains": "Allowed domains", "success_criteria": "Success criteria", "credentials": "Credentials",
    "param_mapping": "Parameter mapping", "sign_in": "Sign-in", "captcha": "CAPTCHA", "limits": "Limits",
    "safety": "Safety policy", "goal": "Goal", "steps": "Steps", "slug": "Slug", "name": "Name", "surface": "Surface",
    "cron": "Schedule", "timezone": "Time zone", "automation": "Automation", "url": "URL", "domains": "Domains",
    "fields": "Fields", "body": "Body", "definition": "Definition", "model_grounding": "Model grounding",
    "max_steps": "Maximum steps", "max_seconds": "Maximum seconds", "non_field_errors": "",
}


def _words(part: str) -> str:
    return f"item {int(part) + 1}" if part.isdigit() else part.replace("_", " ")


def field_label(key: str) -> str:
    """`param_schema` → "Parameters", `steps.2.url` → "Step 3 › url", `params.due_date` → "Due date"."""
    parts = [p for p in key.split(".") if p]
    if not parts:
        return ""
    if parts[0] == "steps" and len(parts) > 1 and parts[1].isdigit():
        head, rest = f"Step {int(parts[1]) + 1}", parts[2:]
    elif parts[0] == "params" and len(parts) > 1:
        head, rest = _words(parts[1]).capitalize(), parts[2:]
    else:
        head, rest = LABELS.get(parts[0], _words(parts[0]).capitalize()), parts[1:]
    return " › ".join([head, *(_words(p) for p in rest)]) if head else " › ".join(_words(p) for p in rest)


def errors_place(fields: dict[str, list[str]], inputs: Iterable[str]) -> tuple[dict[str, list[str]], list[str]]:
    """(errors by input name, the rest as "Label: message" lines for the form's summary).

    A key goes under the input of its own name; `params.<name>` under the input `<name>` when the
    form has one (the launcher), else under the input `params` as "Name: message" (a JSON box);
    `param_mapping.order_id` under `param_mapping` as "order id: message". Nothing is dropped.
    """
    names = set(inputs)
    placed: dict[str, list[str]] = {}
    rest: list[str] = []
    for key, messages in fields.items():
        head, _, tail = key.partition(".")
        first = tail.split(".")[0]
        if key in names:
            placed.setdefault(key, []).extend(messages)
        elif head == "params" and first in names:
            placed.setdefault(first, []).extend(messages)
        elif head in names:
            label = field_label(key) if head == "params" else field_label(tail)
            placed.setdefault(head, []).extend(f"{label}: {m}" for m in messages)
        else:
            label = field_label(key)
            rest.extend(f"{label}: {m}" if label else m for m in messages)
    return placed, rest


def json_object_read(text: str, label: str, errors: list[str]) -> dict[str, Any]:
    """A JSON object typed into a box (empty: {}); a problem is appended to `errors` as
    "<label>: line L, column C: what is wrong" and {} returned."""
    if not text.strip():
        return {}
    try:
        value = json_loads_bounded(text)
    except ValueError as exc:
        text = json_error_text(exc)
        errors.append(f"{label}: {text}" if label else text[:1].upper() + text[1:])
        return {}
    if not isinstance(value, dict):
        errors.append(f"{label}: must be a JSON object, in {{ }}." if label else "Must be a JSON object, in { }.")
        return {}
    return value


def json_field(text: str, name: str, errors: dict[str, list[str]]) -> dict[str, Any]:
    """`json_object_read` for a form's JSON box: a problem goes under the input `name`."""
    problems: list[str] = []
    value = json_object_read(text, "", problems)
    if problems:
        errors.setdefault(name, []).extend(problems)
    return value
