"""Sub-automations: a `call` step (`steps.CallBlock`) runs another automation's steps in place.

The platform resolves which version is called (`venus_rpa.automations.calls`) and hands the
called automation's spec here; `expand` puts its steps inside the call block so that the run's
program (`workers.flow.compile_program`) flattens them like any block:
- its start URL (web) is opened first, and its relative `goto` URLs stay relative to it;
- every `{{param}}` of its steps is replaced by the call's template for that parameter (filled
  later from the caller's parameters and values) or, when the call does not give it, by the
  parameter's default; a parameter used with neither is a `CallError`;
- its sign-in marks are dropped (a sign-in block belongs to the top of one automation);
- its `{{steps.NAME.value}}` and `{{credentials…}}` placeholders stay: the values it stores are
  the caller's from then on (that is how outputs are returned).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urljoin, urlsplit

from workers import steps as S
from workers.templating import ITEM_PREFIX, PARAM_RE, VALUE_PREFIX

MAX_CALL_DEPTH = 3  # a call inside a called automation inside a called automation, at most


class CallError(ValueError):
    """The call cannot be expanded; the message says why, in the caller's words."""


def callee_params(callee: S.AutomationSpec, param_schema: dict[str, Any]) -> set[str]:
    """The parameters a call must give (or leave to their defaults): those the called
    automation's steps and start URL use, and those its schema requires."""
    texts = [callee.start_url, *(t for step in callee.steps for t in S.step_strings(step))]
    return {m.group(1) for t in texts for m in PARAM_RE.finditer(t)
            if not m.group(1).startswith((VALUE_PREFIX, ITEM_PREFIX))} | set(param_schema.get("required") or [])


def param_templates(block: S.CallBlock, callee: S.AutomationSpec, param_schema: dict[str, Any]) -> dict[str, str]:
    """Each parameter of the called automation -> the template that stands for it in this call."""
    properties = param_schema.get("properties") or {}
    unknown = sorted(set(block.params) - set(properties))
    if unknown:
        offered = ", ".join(sorted(properties)) or "none"
        raise CallError(f"{block.automation} has no parameter(s) {', '.join(unknown)} (its parameters: {offered}).")
    out: dict[str, str] = {}
    for name in sorted(callee_params(callee, param_schema)):
        if name in block.params:
            out[name] = block.params[name]
            continue
        default = (properties.get(name) or {}).get("default") if isinstance(properties.get(name), dict) else None
        if default is None:
            raise CallError(f"give {block.automation}'s parameter {name!r}: it has no default.")
        text = str(default)
        if "{{" in text or "}}" in text:
            raise CallError(f"give {block.automation}'s parameter {name!r}: its default holds '{{{{' or '}}}}'.")
        out[name] = text
    return out


def _substitute(value: Any, templates: dict[str, str]) -> Any:
    if isinstance(value, str):
        def one(match) -> str:
            key = match.group(1)
            return match.group(0) if key.startswith((VALUE_PREFIX, ITEM_PREFIX)) else templates[key]
        return PARAM_RE.sub(one, value)
    if isinstance(value, dict):
        return {k: _substitute(v, templates) for k, v in value.items() if k != "sign_in"}
    if isinstance(value, list):
        return [_substitute(v, templates) for v in value]
    return value


def _absolute(step: dict[str, Any], start_url: str) -> dict[str, Any]:
    """A `goto` with a relative URL, made absolute against the called automation's start URL."""
    if step.get("kind") == "goto" and start_url and not urlsplit(step["url"]).scheme and not step["url"].startswith("{{"):
        return {**step, "url": urljoin(start_url, step["url"])}
    if step.get("kind") in ("if", "repeat", "for_each", "call"):
        return {**step, **{key: [_absolute(s, start_url) for s in step.get(key) or []] for key in ("steps", "else")
                           if key in step}}
    return step


def _opening(block: S.CallBlock) -> str:
    return f"Open the start URL of {block.automation}"


def opens_start(block: S.CallBlock) -> bool:
    """Whether the expanded call's first step is the called automation's start URL opening (added
    by `expand`: no step of the called automation's own, so it has no number there)."""
    first = block.steps[0] if block.steps else None
    return isinstance(first, S.GotoStep) and first.name == _opening(block)


def expand(block: S.CallBlock, callee: S.AutomationSpec, param_schema: dict[str, Any], *, label: str) -> S.CallBlock:
    """The call block with the called automation's steps in it (see the module's contract).
    `callee`'s own calls must already be expanded. `label`: what was called ("sign-in v3")."""
    templates = param_templates(block, callee, param_schema)
    start = _substitute(callee.start_url, templates) if callee.surface == "web" else ""
    steps = [step.model_dump(mode="json", exclude_none=True) for step in callee.steps]
    steps = [_absolute(step, start) for step in _substitute(steps, templates)]
    if start:
        steps.insert(0, {"kind": "goto", "url": start, "name": _opening(block)})
    return block.model_copy(update={"steps": S.STEPS.validate_python(steps), "resolved": label[:200]})
