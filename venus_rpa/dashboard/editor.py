"""The automation editor's form <-> definition mapping.

The editor posts flat fields; this module turns them into the definition dict that
`automation_create`/`automation_update` validate (the services stay the only judges of what is
valid), and turns stored definitions back into editor rows. Step rows and parameter rows carry
a client-made uid, and `step`/`param` lists give their order, so moving a row in the page is
only a DOM move.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from typing import Any

from django.http import QueryDict

from venus_rpa.dashboard.field_errors import json_object_read
from workers.automation_settings import CaptchaPolicy
from workers.steps import TARGET_ROLES

STEP_KINDS = ("goto", "click", "fill", "select", "check", "upload", "download", "press", "wait_for", "assert", "extract",
              "agent", "call", "skip_item", "if", "else", "repeat", "for_each", "end")  # if … end open, split and close blocks (dashboard.blocks)
# The fields each kind takes besides name and timeout_s ("target?" is an optional target).
KIND_FIELDS: dict[str, tuple[str, ...]] = {
    "goto": ("url",),
    "click": ("target",),
    "fill": ("target", "value"),
    "select": ("target", "option"),
    "check": ("target", "checked"),
    "upload": ("target", "from_input", "filename", "content", "mime_type"),
    "download": ("target", "into"),
    "press": ("key", "target?"),
    "wait_for": ("target?", "text", "url_contains"),
    "assert": ("target?", "text", "url_contains", "absent"),
    "extract": ("target?", "from_file", "into", "attribute", "all", "pattern", "append"),
    "agent": ("goal", "max_actions", "repeat_limit", "into"),
    "call": ("automation", "version", "params"),  # another automation run here (workers.calls)
    "if": ("condition", "target?"),  # the target fields name an element condition's element
    "else": (),
    "repeat": ("condition", "target?", "max_iterations", "on_cap"),
    "for_each": ("stop_on_failure", "lanes"),
    "skip_item": ("reason",),
    "end": (),
}
NOT_STEPS = ("if", "else", "repeat", "for_each", "skip_item", "end", "call")  # rows without a timeout or sign-in mark
SIGN_IN_CHECK_KEYS = ("text_visible", "url_contains", "url_excludes", "timeout_s")
TARGET_KEYS = ("text", "role", "name", "label", "placeholder", "css", "resource_id", "nth", "within", "near")
# The fields under which a step row lists its errors (_step_row.html); an error on any other field
# of the step is listed at the row's head, named by its label (dashboard.field_errors).
ROW_ERROR_SLOTS = frozenset({"", "sign_in", "condition", "max_iterations", "lanes", "reason", "url", "target", "value",
                             "automation", "version", "params", "option", "from_input", "filename", "key", "text",
                             "from_file", "into", "pattern", "goal", "max_actions", "timeout_s"})
BOOL_FIELDS = {"checked", "absent", "all", "append", "stop_on_failure"}
ROW_FLAGS = (*BOOL_FIELDS, "sign_in", "negate")  # a row's checkboxes: True or False, never absent
# Sent even when empty, so the service names the missing value on the right row.
REQUIRED_TEXT = {"url", "value", "option", "key", "goal", "automation"}
ROLES = TARGET_ROLES.__args__
PARAM_TYPES = ("string", "integer", "number", "boolean", "date")
SOLVERS = CaptchaPolicy.model_fields["solvers"].annotation.__args__[0].__args__
# How judge votes combine (workers.judges), in words.
JUDGE_RULES = (("majority", "majority: more pass than fail"), ("unanimous", "unanimous: every judge says pass"),
               ("any_fail", "any fail: one fail is a fail"))


def domain_proposed(start_url: str) -> str:
    """The start URL's host, proposed as the automation's allowed domain ("" when the URL has
    none, or its host is made from a template parameter)."""
    from urllib.parse import urlsplit

    try:
        host = urlsplit(start_url.strip()).hostname or ""
    except ValueError:
        return ""
    return "" if "{" in host or "}" in host else host


def new_uid() -> str:
    return secrets.token_hex(4)


def kinds_for(field_name: str) -> str:
    """Space-separated kinds that show a field (the template hides the others)."""
    if field_name == "timeout_s":  # every step's; no block row's
        return " ".join(k for k in STEP_KINDS if k not in NOT_STEPS)
    return " ".join(k for k, names in KIND_FIELDS.items() if field_name in names or f"{field_name}?" in names)


# -- steps ---------------------------------------------------------------------------------------

@dataclass
class StepRow:
    uid: str
    kind: str = "click"
    values: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, list[str]] = field(default_factory=dict)
    depth: int = 0  # how many blocks hold the row (set when rows are laid out or read back)
    values_here: list[str] = field(default_factory=list)  # step values this step may use
    closed: bool = False  # shown as one line with its fields packed (dashboard.step_lines)

    @property
    def error_list(self) -> list[str]:
        return [f"{k}: {m}" if k else m for k, msgs in self.errors.items() for m in msgs]


def step_row_from_step(step: dict[str, Any]) -> StepRow:
    values = {k: v for k, v in step.items() if k not in ("kind", "target")}
    target = step.get("target")
    if isinstance(target, str):
        target = {"text": target}
    for key, value in (target or {}).items():
        values[f"target_{key}"] = value
    if isinstance(values.get("timeout_s"), float):
        values["timeout_s"] = f"{values['timeout_s']:g}"
    if isinstance(values.get("params"), dict):  # a call's parameters: one "name = value" a line
        values["params"] = "\n".join(f"{k} = {v}" for k, v in values["params"].items())
    return StepRow(uid=new_uid(), kind=step.get("kind", "click"), values=values)


def step_rows_from_post(data: QueryDict) -> list[StepRow]:
    """The posted rows in order: an open row's `s-UID-FIELD` fields, a closed row's packed ones
    (one pass over the fields: a 10,000-step form is read in milliseconds)."""
    fields: dict[str, dict[str, str]] = {}
    for key, value in data.items():
        if key.startswith("s-"):
            uid, _, name = key[2:].partition("-")
            fields.setdefault(uid, {})[name] = value
    rows = []
    for uid in data.getlist("step"):
        values = dict(fields.get(uid, {}))
        if "packed" in values and "kind" not in values:
            rows.append(unpacked(uid, values["packed"]))
            continue
        values.pop("packed", None)
        kind = values.pop("kind", "click")
        for name in ROW_FLAGS:
            values[name] = values.get(name) == "on"
        rows.append(StepRow(uid=uid, kind=kind if kind in STEP_KINDS else "click", values=values))
    return rows


NOT_READ = "This step's fields could not be read back from the page; open it and fill it in again."


def packed(row: StepRow) -> str:
    """The row's kind and non-empty values as compact JSON (what its hidden input holds)."""
    values = {k: v for k, v in row.values.items() if not (v is None or v is False or v == "")}
    return json.dumps({"kind": row.kind, **values}, separators=(",", ":"), ensure_ascii=False)


def unpacked(uid: str, text: str) -> StepRow:
    """A row from its packed fields; a row that does not read back carries an error and stays
    in its place (so nothing else moves and the save is refused with the reason)."""
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if not isinstance(data, dict) or not isinstance(data.get("kind", "click"), str):
        return StepRow(uid=uid, errors={"": [NOT_READ]})
    kind = data.pop("kind", "click")
    values = {str(k): v for k, v in data.items()}
    for name in ROW_FLAGS:
        values[name] = values.get(name) is True
    return StepRow(uid=uid, kind=kind if kind in STEP_KINDS else "click", values=values, closed=True)


def step_from_row(row: StepRow) -> dict[str, Any]:
    """The step dict the service validates; only the fields of the row's kind are kept."""
    values = row.values
    step: dict[str, Any] = {"kind": row.kind}
    if str(values.get("name", "")).strip():
        step["name"] = str(values["name"]).strip()
    if str(values.get("timeout_s", "")).strip() and row.kind not in NOT_STEPS:
        step["timeout_s"] = str(values["timeout_s"]).strip()
    if values.get("sign_in") and row.kind not in NOT_STEPS:
        step["sign_in"] = True
    for name in KIND_FIELDS[row.kind]:
        optional = name.endswith("?")
        name = name.rstrip("?")
        if name == "target":
            target = {k: str(values.get(f"target_{k}", "")).strip() for k in TARGET_KEYS}
            target = {k: v for k, v in target.items() if v}
            if target or not optional:
                step["target"] = target
        elif name in BOOL_FIELDS:
            step[name] = bool(values.get(name))
        elif name == "params":
            step[name] = call_params(str(values.get(name) or ""))
        elif str(values.get(name, "")) != "" or name in REQUIRED_TEXT:
            step[name] = values.get(name, "")
    return step


def call_params(text: str) -> dict[str, str]:
    """A call's "name = value" lines as a mapping; a line without "=" is kept whole as a name, so
    the service says it is not a parameter name on the right row."""
    params: dict[str, str] = {}
    for line in text.splitlines():
        if line.strip():
            name, sep, value = line.partition("=")
            params[name.strip()] = value.strip() if sep else ""
    return params


def sign_in_from_post(data: QueryDict, steps: list[StepRow]) -> dict[str, Any]:
    """The `sign_in` section from the editor's Sign-in box ({} when no step is marked and the box
    is empty). The service judges it (a marked step without a check is an error there)."""
    check = {key: data.get(f"sign_in_{key}", "").strip() for key in SIGN_IN_CHECK_KEYS}
    check = {k: v for k, v in check.items() if v}
    section = {key: data.get(f"sign_in_{key}", "").strip() for key in ("credential", "domain")}
    section = {k: v for k, v in section.items() if v}
    if not check and not section and not any(row.values.get("sign_in") for row in steps):
        return {}
    return {**section, "check": check}


# -- parameter schema ----------------------------------------------------------------------------

@dataclass
class ParamRow:
    uid: str
    name: str = ""
    type: str = "string"
    required: bool = False
    default: str = ""
    enum: str = ""
    description: str = ""
    extra: str = ""  # other JSON Schema keywords (pattern, minLength...), kept as they were


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def param_rows_from_schema(schema: dict[str, Any]) -> list[ParamRow] | None:
    """Table rows for a schema, or None when the schema needs the raw JSON editor."""
    if not isinstance(schema, dict) or (schema and schema.get("type", "object") != "object"):
        return None
    rows = []
    required = set(schema.get("required") or [])
    for name, prop in (schema.get("properties") or {}).items():
        if not isinstance(prop, dict):
            return None
        kind = prop.get("type", "string")
        extra = {k: v for k, v in prop.items() if k not in ("type", "default", "enum", "description")}
        if kind == "string" and prop.get("format") == "date":
            kind = "date"
            extra.pop("format")
        if kind not in PARAM_TYPES:
            return None
        rows.append(ParamRow(
            uid=new_uid(), name=name, type=kind, required=name in required, default=_text(prop.get("default")),
            enum=", ".join(_text(v) for v in prop.get("enum") or []), description=prop.get("description", ""),
            extra=json.dumps(extra) if extra else "",
        ))
    return rows


def schema_extra(schema: dict[str, Any]) -> str:
    """Top-level keywords the table does not edit (additionalProperties...), as JSON."""
    extra = {k: v for k, v in (schema or {}).items() if k not in ("type", "properties", "required")}
    return json.dumps(extra) if extra else ""


def param_rows_from_post(data: QueryDict) -> list[ParamRow]:
    rows = []
    for uid in data.getlist("param"):
        get = lambda name: data.get(f"p-{uid}-{name}", "")  # noqa: E731
        rows.append(ParamRow(uid=uid, name=get("name").strip(), type=get("type") or "string",
                             required=get("required") == "on", default=get("default"), enum=get("enum"),
                             description=get("description").strip(), extra=get("extra")))
    return rows


_TYPE_WORDS = {"integer": "a whole number (integer)", "number": "a number", "boolean": "true or false"}


def _typed(value: str, kind: str) -> Any:
    value = value.strip()
    if kind == "integer":
        return int(value)
    if kind == "number":
        return float(value) if any(c in value for c in ".eE") else int(value)
    if kind == "boolean":
        if value.lower() not in ("true", "false"):
            raise ValueError("use true or false")
        return value.lower() == "true"
    return value


def schema_from_param_rows(rows: list[ParamRow], extra: str) -> tuple[dict[str, Any], list[str]]:
    """The JSON Schema for table rows, and messages for values that do not fit their type."""
    errors: list[str] = []
    properties: dict[str, Any] = {}
    required = []
    for row in rows:
        if not row.name:
            if row.default or row.enum:
                errors.append("A parameter row has no name.")
            continue
        prop: dict[str, Any] = json_object_read(row.extra, f"{row.name}: extra keywords", errors)
        prop["type"] = "string" if row.type == "date" else row.type
        if row.type == "date":
            prop["format"] = "date"
        if row.description:
            prop["description"] = row.description
        try:
            if row.enum.strip():
                prop["enum"] = [_typed(v, row.type) for v in row.enum.split(",") if v.strip()]
            if row.default.strip() or (row.type in ("string", "date") and row.default):
                prop["default"] = _typed(row.default, row.type)
        except ValueError:
            errors.append(f"{row.name}: the default or a choice is not {_TYPE_WORDS.get(row.type, row.type)}.")
        properties[row.name] = prop
        if row.required:
            required.append(row.name)
    top = json_object_read(extra, "schema keywords", errors)
    if not properties and not top:
        return {}, errors
    schema = {"type": "object", "properties": properties, **top}
    if required:
        schema["required"] = required
    return schema, errors


def pretty(value: Any) -> str:
    # Key order is kept: it is the order of parameters in the launcher form.
    return json.dumps(value, indent=2, ensure_ascii=False) if value not in ({}, None) else ""
