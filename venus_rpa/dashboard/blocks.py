"""Blocks in the automation editor: the nested step list <-> flat editor rows.

The editor shows a block as a row that opens it (`if`, `repeat`, holding the condition), the
rows of its steps indented under it, an `else` row (for `if`) and an `end` row that closes it;
moving rows stays a DOM move. `steps_from_rows` builds the nested definition the services judge
(and says where each step's row is, so a field error lands on its row); a row structure that
cannot be read (an `end` with nothing open, an `else` outside an `if`, a block never closed) is
an error on that row. `rows_from_steps` lays a stored definition out as rows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from venus_rpa.dashboard import editor
from workers import flow_checks
from workers.steps import STEPS, Condition

BLOCK_KINDS = ("if", "repeat", "for_each")
MARKERS = ("else", "end")
CONDITION_KINDS = ("text_visible", "element", "url_matches", "value")
CONDITION_OPS = Condition.model_fields["op"].annotation.__args__
# What a step row's template needs besides the row (kinds and roles come from `editor`).
ROW_CONTEXT = {"condition_ops": CONDITION_OPS, "condition_kinds": [
    ("text_visible", "text is visible"), ("element", "element is present"), ("url_matches", "URL matches"),
    ("value", "a value compares")]}


def condition_key(kind: str) -> str:
    return "condition" if kind == "if" else "until"


def block_row(step: dict[str, Any], depth: int) -> editor.StepRow:
    if step["kind"] == "for_each":  # no condition: it runs once per item of the run
        return editor.StepRow(uid=editor.new_uid(), kind="for_each", depth=depth, values={
            "name": step.get("name", ""), "stop_on_failure": bool(step.get("stop_on_failure")),
            "lanes": step.get("lanes", 1)})
    condition = step.get(condition_key(step["kind"])) or {}
    chosen = next((k for k in CONDITION_KINDS if condition.get(k) is not None), "text_visible")
    values: dict[str, Any] = {"name": step.get("name", ""), "cond_kind": chosen, "negate": bool(condition.get("negate")),
                              "cond_op": condition.get("op", "equals"), "cond_to": condition.get("to", "")}
    if chosen == "element":
        target = condition["element"]
        values.update({f"target_{k}": v for k, v in ({"text": target} if isinstance(target, str) else target).items()})
    else:
        values["cond_text"] = condition.get(chosen, "")
    if condition.get("wait_s") not in (None, 1.0):
        values["cond_wait_s"] = f"{condition['wait_s']:g}"
    for key in ("max_iterations", "on_cap"):
        if key in step:
            values[key] = step[key]
    return editor.StepRow(uid=editor.new_uid(), kind=step["kind"], values=values, depth=depth)


def block_from_row(row: editor.StepRow) -> dict[str, Any]:
    """The block's own fields (its steps are added by `steps_from_rows`)."""
    values = row.values
    if row.kind == "for_each":
        name = str(values.get("name", "")).strip()
        lanes = str(values.get("lanes", "")).strip()
        return {"kind": "for_each", **({"name": name} if name else {}),
                **({"stop_on_failure": True} if values.get("stop_on_failure") else {}),
                **({"lanes": lanes} if lanes not in ("", "1") else {})}  # the service says what is wrong with it
    chosen = values.get("cond_kind") if values.get("cond_kind") in CONDITION_KINDS else "text_visible"
    condition: dict[str, Any] = {}
    if chosen == "element":
        target = {k: str(values.get(f"target_{k}", "")).strip() for k in editor.TARGET_KEYS}
        condition["element"] = {k: v for k, v in target.items() if v}
    else:
        condition[chosen] = str(values.get("cond_text", "")).strip()
    if chosen == "value":
        condition.update(op=values.get("cond_op") or "equals", to=str(values.get("cond_to", "")))
    if values.get("negate"):
        condition["negate"] = True
    if str(values.get("cond_wait_s", "")).strip():
        condition["wait_s"] = str(values["cond_wait_s"]).strip()
    block: dict[str, Any] = {"kind": row.kind, condition_key(row.kind): condition}
    if str(values.get("name", "")).strip():
        block["name"] = str(values["name"]).strip()
    if row.kind == "repeat":
        if str(values.get("max_iterations", "")).strip():  # left out when empty: the service says it is required
            block["max_iterations"] = str(values["max_iterations"]).strip()
        block["on_cap"] = values.get("on_cap") or "fail"
    return block


def rows_from_steps(steps: list[dict[str, Any]], depth: int = 0) -> list[editor.StepRow]:
    rows: list[editor.StepRow] = []
    for step in steps:
        if step.get("kind") not in BLOCK_KINDS:
            row = editor.step_row_from_step(step)
            row.depth = depth
            rows.append(row)
            continue
        rows.append(block_row(step, depth))
        rows += rows_from_steps(step.get("steps") or [], depth + 1)
        if step.get("else"):
            rows.append(editor.StepRow(uid=editor.new_uid(), kind="else", depth=depth))
            rows += rows_from_steps(step["else"], depth + 1)
        rows.append(editor.StepRow(uid=editor.new_uid(), kind="end", depth=depth))
    return rows


def steps_from_rows(rows: list[editor.StepRow]) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The nested steps and, for each step's path ("steps.1.else.0"), the index of its row.
    Structure problems are added to the rows' errors (and make the steps list incomplete)."""
    top: list[dict[str, Any]] = []
    frames: list[list[Any]] = []  # [block, its path, "steps" | "else", its row index]
    paths: dict[str, int] = {}
    for index, row in enumerate(rows):
        items, path = (frames[-1][0][frames[-1][2]], f"{frames[-1][1]}.{frames[-1][2]}") if frames else (top, "steps")
        row.depth = len(frames) - (1 if row.kind in MARKERS and frames else 0)
        if row.kind in BLOCK_KINDS:
            block = {**block_from_row(row), "steps": []}
            paths[f"{path}.{len(items)}"] = index
            items.append(block)
            frames.append([block, f"{path}.{len(items) - 1}", "steps", index])
        elif row.kind == "else":
            if not frames or frames[-1][0]["kind"] != "if" or frames[-1][2] == "else":
                row.errors.setdefault("", []).append("'else' belongs inside an 'if' block, once.")
            else:
                frames[-1][0]["else"], frames[-1][2] = [], "else"
        elif row.kind == "end":
            if not frames:
                row.errors.setdefault("", []).append("This 'end' closes no block.")
            else:
                frames.pop()
        else:
            paths[f"{path}.{len(items)}"] = index
            items.append(editor.step_from_row(row))
    for frame in frames:
        rows[frame[3]].errors.setdefault("", []).append(f"This '{frame[0]['kind']}' block has no 'end' row.")
    return top, paths


def values_hints(steps: list[dict[str, Any]], rows: list[editor.StepRow], paths: dict[str, int],
                 expand: Callable[[list], list] | None = None) -> None:
    """Set each row's `values_here`: the step values it may use (nothing when the steps do not parse).
    `expand`: puts called automations' steps in place (`automations.calls`), so the values a call
    returns are listed after it."""
    try:
        parsed = STEPS.validate_python(steps)
    except ValidationError:
        return
    if expand is not None:
        parsed = expand(parsed)
    for path, names in flow_checks.values_available(parsed).items():
        if path in paths:
            rows[paths[path]].values_here = names


def row_place(key: str, paths: dict[str, int]) -> tuple[int, list[str]] | None:
    """The row a service field error belongs to and the path on it: "steps.0.if.steps.1.click.target.nth"
    (pydantic names each union member) -> (row of steps.0.steps.1, ["target", "nth"])."""
    parts = key.split(".")
    tags = set(editor.STEP_KINDS) - set(MARKERS)  # "else" after an index is a path, never a tag
    cleaned = [p for i, p in enumerate(parts) if not (i and parts[i - 1].isdigit() and p in tags)]
    for cut in range(len(cleaned), 1, -1):
        path = ".".join(cleaned[:cut])
        if path in paths:
            rest = cleaned[cut:]
            return paths[path], ["condition", *rest[1:]] if rest[:1] == ["until"] else rest
    return None


def row_for_key(key: str, paths: dict[str, int]) -> tuple[int, str] | None:
    """The row a service field error belongs to and the field on it: "steps.0.if.steps.1.fill.value"
    -> (row of steps.0.steps.1, "value")."""
    found = row_place(key, paths)
    return None if found is None else (found[0], found[1][0] if found[1] else "")
