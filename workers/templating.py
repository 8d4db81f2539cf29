"""Templating of automation text: `{{param}}`, `{{steps.NAME.value}}` and credential placeholders.

One mechanism fills both kinds of value a step can use:
- `{{param}}`: the run's parameter `param`;
- `{{steps.NAME.value}}`: the value a previous step stored under NAME (an `extract` step's
  `into`, an agent step's `into`, "result" by default), see `workers.flow`;
- `{{item.FIELD}}`: inside a `for_each` block, the current item's FIELD (a column of the sheet).
The caller passes one mapping: parameters by name, step values under "steps.NAME.value", item
fields under "item.FIELD" (`values_context`). Both are literal text and follow the same escaping rules (`render`).
`{{credentials.NAME.FIELD}}` placeholders stay in every record and are replaced by the secret
only when the executor types (`workers.secrets`).
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel

NAME = r"[A-Za-z_][A-Za-z0-9_]*"
PARAM_RE = re.compile(r"\{\{\s*((?:steps\." + NAME + r"\.value)|(?:item\." + NAME + r")|" + NAME + r")\s*\}\}")
SECRET_RE = re.compile(r"\{\{\s*credentials\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\s*\}\}")
VALUE_PREFIX, VALUE_SUFFIX = "steps.", ".value"
ITEM_PREFIX = "item."


def value_key(name: str) -> str:
    """The key of step value NAME in a templating context ("steps.NAME.value")."""
    return f"{VALUE_PREFIX}{name}{VALUE_SUFFIX}"


def values_context(params: dict[str, Any], values: dict[str, Any],
                   item: dict[str, Any] | None = None) -> dict[str, Any]:
    """The mapping `render` fills from: the run's parameters, the step values stored so far and,
    inside a `for_each` block, the current item's fields."""
    return {**params, **{value_key(name): value for name, value in values.items()},
            **{ITEM_PREFIX + name: value for name, value in (item or {}).items()}}


def _item_field(key: str) -> str | None:
    return key[len(ITEM_PREFIX):] if key.startswith(ITEM_PREFIX) else None


def _value_name(key: str) -> str | None:
    if key.startswith(VALUE_PREFIX) and key.endswith(VALUE_SUFFIX):
        return key[len(VALUE_PREFIX):-len(VALUE_SUFFIX)]
    return None


def template_params(text: str) -> set[str]:
    """Names of `{{param}}` placeholders in text (step values and credentials excluded)."""
    return {m.group(1) for m in PARAM_RE.finditer(text)
            if _value_name(m.group(1)) is None and _item_field(m.group(1)) is None}


def template_items(text: str) -> set[str]:
    """Names FIELD of the `{{item.FIELD}}` placeholders in text."""
    return {name for m in PARAM_RE.finditer(text) if (name := _item_field(m.group(1))) is not None}


def template_values(text: str) -> set[str]:
    """Names NAME of the `{{steps.NAME.value}}` placeholders in text."""
    return {name for m in PARAM_RE.finditer(text) if (name := _value_name(m.group(1))) is not None}


def fill_error(exc: KeyError | ValueError) -> str:
    """The message of a failed `render`, for the step's record."""
    if isinstance(exc, KeyError):
        name = _value_name(str(exc.args[0]))
        if name is not None:
            return f"value {name!r} is not set: no step has stored it yet in this run ({{{{steps.{name}.value}}}})"
        field = _item_field(str(exc.args[0]))
        if field is not None:
            return f"the item has no field {field!r} ({{{{item.{field}}}}})"
        return f"parameter {exc.args[0]!r} is not set"
    return str(exc)


def render(text: str, params: dict[str, Any]) -> str:
    """Fill `{{param}}` and `{{steps.NAME.value}}` placeholders from `params` (see
    `values_context`); credential placeholders are left for the executor.

    Values are literal text. The check runs on the final assembled string: every credential
    placeholder in it must stand whole in the template's own text. A value holding `{{` or `}}`,
    or values that assemble into a placeholder with the text around them (`{{first}}{{last}}`
    with first="{" and last="{credentials.NAME.password}}"), raise ValueError: the step fails
    instead of typing a secret nobody put in the automation. A missing name raises KeyError."""
    parts: list[tuple[str, bool]] = []  # (text, is the template's own text)
    position = 0
    for match in PARAM_RE.finditer(text):
        parts += [(text[position:match.start()], True), (_param_value(match.group(1), params), False)]
        position = match.end()
    parts.append((text[position:], True))
    result, own, at = "", [], 0
    for part, literal in parts:
        if literal:
            own.append((at, at + len(part)))
        result, at = result + part, at + len(part)
    for match in SECRET_RE.finditer(result):
        if not any(start <= match.start() and match.end() <= end for start, end in own):
            used = ", ".join(sorted(m.group(1) for m in PARAM_RE.finditer(text)))
            raise ValueError(f"parameters ({used}) would assemble a credential placeholder; "
                             "parameter values are typed literally and may not form '{{credentials…}}'")
    return result


def _param_value(key: str, params: dict[str, Any]) -> str:
    if key not in params:
        raise KeyError(key)
    value = str(params[key])
    if "{{" in value or "}}" in value:
        # A parameter or a step value must never smuggle in a credential placeholder (the
        # executor would reveal it) nor a template of its own.
        name, field = _value_name(key), _item_field(key)
        what = f"value {name!r}" if name is not None else f"item field {field!r}" if field else f"parameter {key!r}"
        raise ValueError(f"{what} may not contain '{{{{' or '}}}}'")
    return value


def placeholders(text: str) -> list[str]:
    """Every placeholder the runtime acts on in text, in canonical form ("credentials.NAME.FIELD",
    "steps.NAME.value" or the parameter's name), matched exactly as `render` and
    `SecretBox.reveal` match them (whitespace such as a tab inside the braces included)."""
    found = [f"credentials.{m.group(1)}.{m.group(2)}" for m in SECRET_RE.finditer(text)]
    return found + [m.group(1) for m in PARAM_RE.finditer(text)]


def render_step(step: BaseModel, params: dict[str, Any]) -> BaseModel:
    """A copy of the step with parameters (and step values) filled into every string field."""

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            return render(value, params)
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    return type(step).model_validate(walk(step.model_dump(exclude_none=True)))


def step_strings(step: BaseModel) -> list[str]:
    """Every string in a step, for finding which parameters and credentials it uses."""
    out: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(step.model_dump(exclude_none=True))
    return out
