"""The run launcher: a form made from the automation's parameter schema.

Inputs follow the JSON Schema (enum -> select, format date -> date picker, integer/number ->
number, boolean -> checkbox, array/object -> JSON textarea). Typed values go to `run_start`,
whose `params_validate` is the one judge; its field errors come back under each input.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from django.http import QueryDict

from venus_rpa.core.errors import InvalidInput
from venus_rpa.core.parsers import json_error_text, json_loads_bounded
from venus_rpa.dashboard.field_errors import errors_place
from venus_rpa.runs import items as run_items
from venus_rpa.runs import run_files
from venus_rpa.runs.items import ItemsInput
from venus_rpa.runs.run_files import GivenFile


@dataclass
class ParamField:
    name: str
    input: str  # text, date, number, checkbox, select, json
    required: bool
    value: Any
    choices: list[str] = field(default_factory=list)
    step: str = ""
    help: str = ""
    errors: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return self.name.replace("_", " ").capitalize()


def _input_for(prop: dict[str, Any]) -> tuple[str, str]:
    kind = prop.get("type", "string")
    if "enum" in prop:
        return "select", ""
    if kind == "boolean":
        return "checkbox", ""
    if kind == "integer":
        return "number", "1"
    if kind == "number":
        return "number", "any"
    if kind in ("array", "object"):
        return "json", ""
    if prop.get("format") == "date":
        return "date", ""
    return "text", ""


def launcher_fields(schema: dict[str, Any], values: dict[str, Any] | None = None) -> list[ParamField]:
    required = set((schema or {}).get("required") or [])
    fields = []
    for name, prop in ((schema or {}).get("properties") or {}).items():
        prop = prop if isinstance(prop, dict) else {}
        kind, step = _input_for(prop)
        value = (values or {}).get(name, prop.get("default", ""))
        if kind == "json" and not isinstance(value, str):
            value = json.dumps(value)
        fields.append(ParamField(name=name, input=kind, required=name in required, value=value, step=step,
                                 choices=[str(c) for c in prop.get("enum") or []],
                                 help=prop.get("description") or prop.get("title") or ""))
    return fields


def _convert(raw: str, prop: dict[str, Any]) -> Any:
    """Typed value for the schema; a value that does not convert is passed on as typed, so the
    validator's message names the problem."""
    kind = prop.get("type", "string")
    try:
        if "enum" in prop and kind != "string":
            return next((c for c in prop["enum"] if str(c) == raw), raw)
        if kind == "integer":
            return int(raw)
        if kind == "number":
            return float(raw) if any(c in raw for c in ".eE") else int(raw)
        if kind in ("array", "object"):
            return json_loads_bounded(raw)
    except ValueError:
        return raw
    return raw


def launcher_params(schema: dict[str, Any], data: QueryDict) -> dict[str, Any]:
    """Parameters from a posted launcher form. An empty optional input is left out (its default
    applies); an empty required input is passed on as empty text, which `params_validate` refuses
    (never silently its default) with the same message as for the API, schedules and webhooks."""
    params: dict[str, Any] = {}
    required = set((schema or {}).get("required") or [])
    for name, prop in ((schema or {}).get("properties") or {}).items():
        prop = prop if isinstance(prop, dict) else {}
        if prop.get("type") == "boolean" and "enum" not in prop:
            params[name] = data.get(f"param_{name}") == "on"
            continue
        raw = data.get(f"param_{name}", "")
        if raw.strip() == "":
            if name in required:
                params[name] = ""
            continue
        params[name] = _convert(raw if prop.get("type", "string") == "string" else raw.strip(), prop)
    return params


def attach_errors(fields: list[ParamField], errors: dict[str, list[str]]) -> list[str]:
    """Put `params.<name>` errors under their inputs (`errors_place`); return the rest, labelled,
    for the top of the form."""
    placed, rest = errors_place(errors, [f.name for f in fields])
    for param in fields:
        param.errors.extend(placed.get(param.name, []))
    return rest


def launcher_items(request) -> ItemsInput | None:
    """The items of a launch form: the uploaded sheet (CSV/XLSX), else the JSON array typed in
    (runs.items checks them; a problem is an error on the form and no run starts)."""
    upload = request.FILES.get("items_file")
    if upload is not None:
        limit = run_items.limits().file_bytes
        return ItemsInput(file=upload.read(limit + 1), field="items_file")  # past the limit: refused by size
    text = request.POST.get("items_json", "").strip()
    if not text:
        return None
    try:
        return ItemsInput(array=json_loads_bounded(text), field="items_json")
    except ValueError as exc:
        raise InvalidInput("The items are not valid JSON.", fields={"items_json": [json_error_text(exc)]}) from None


def items_limits() -> dict[str, int]:
    limits = run_items.limits()
    return {"rows": limits.rows, "kib": limits.file_bytes // 1024}


@dataclass
class FileField:
    """An input file the automation's upload steps take (`from_input`): a file field of the launcher."""

    name: str
    errors: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return self.name.replace("_", " ").capitalize()


def launcher_files(request) -> dict[str, GivenFile]:
    """The input files of a launch form (fields `file_NAME`), read up to the limit plus one byte
    (a larger file is refused by its size; runs.run_files checks them all)."""
    limit = run_files.max_bytes()
    return {key[len("file_"):]: GivenFile(upload.name, upload.read(limit + 1))
            for key, upload in request.FILES.items() if key.startswith("file_")}


def files_errors(files: list[FileField], errors: dict[str, list[str]]) -> dict[str, list[str]]:
    """Put `files.NAME` errors on their file fields; the other errors are returned."""
    by_name = {f"files.{f.name}": f for f in files}
    rest = {}
    for key, messages in errors.items():
        if key in by_name:
            by_name[key].errors.extend(messages)
        else:
            rest[key] = messages
    return rest


def input_file_mib() -> float:
    return round(run_files.max_bytes() / (1024 * 1024), 1)
