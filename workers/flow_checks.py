"""Checks of a step list at save (`workers.flow`'s contract): every value used is stored by an
earlier step on every path to it, blocks nest at most `MAX_BLOCK_DEPTH` deep, sign-in steps stay at
the top level, item fields and `skip_item` only inside the `for_each` block, files read by
`extract from_file` downloaded first, `url_matches` patterns compile. `values_available` lists the
value names usable at each step (the editor's hints)."""

from __future__ import annotations

from typing import Any

from workers import patterns, steps as S
from workers.flow import condition_of, downloads_stored, produced, walk
from workers.templating import step_strings, template_items, template_values


def _label(step: Any, where: str) -> str:
    return f"step {step.name!r} ({where})" if step.name else f"the {step.kind} step at {where}"


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


class _Checker:
    def __init__(self, params: set[str], all_values: dict[str, str], files: set[str] = frozenset()) -> None:
        self.params, self.all_values, self.files = params, all_values, files
        self.fields: dict[str, list[str]] = {}
        self.available: dict[str, list[str]] = {}
        self.seen_block = False
        self.in_each = False  # inside the for_each block: item fields and skip_item are allowed
        self.seen_each = False

    def add(self, where: str, message: str) -> None:
        self.fields.setdefault(where, []).append(message)

    def uses(self, where: str, label: str, names: set[str], available: set[str]) -> None:
        for name in sorted(names - available):
            if name not in self.all_values:
                known = ", ".join(sorted(self.all_values)) or "none"
                self.add(where, f"{_cap(label)} uses value {name!r}, but no step stores a value by that "
                                f"name (values: {known}).")
            else:
                self.add(where, f"{_cap(label)} uses value {name!r} before it is stored on every path to "
                                f"it (it is stored by {self.all_values[name]}); values available here: "
                                f"{', '.join(sorted(available)) or 'none'}.")

    def check(self, steps: list, path: str, available: set[str], depth: int) -> set[str]:
        for index, step in enumerate(steps):
            where = f"{path}.{index}"
            label = _label(step, where)
            self.available[where] = sorted(available)
            if isinstance(step, S.ForEachBlock):
                self.for_each(step, where, label, available, depth)
                continue
            if isinstance(step, S.CallBlock):
                available = self.call(step, where, label, available, depth)
                continue
            if isinstance(step, S.BLOCKS):
                self.block(step, where, label, available, depth)
                continue
            if isinstance(step, S.SkipItemStep):
                if not self.in_each:
                    self.add(where, f"{_cap(label)} skips an item, but it is not inside a for_each block.")
                continue
            self.uses(where, label, {n for t in step_strings(step) for n in template_values(t)}, available)
            self.items(where, label, step_strings(step))
            if isinstance(step, S.ExtractStep) and step.from_file:
                self.from_file(where, label, step.from_file, available)
            if step.sign_in and (depth or self.seen_block):
                self.add(f"{where}.sign_in", "Sign-in steps stay at the top level, before any block.")
            if produced(step):
                available = available | {produced(step)}
        return available

    def block(self, step: Any, where: str, label: str, available: set[str], depth: int) -> None:
        self.seen_block = True
        if depth + 1 > S.MAX_BLOCK_DEPTH:
            self.add(where, f"{_cap(label)} nests blocks more than {S.MAX_BLOCK_DEPTH} deep.")
            return
        key = "condition" if isinstance(step, S.IfBlock) else "until"
        condition = condition_of(step)
        if condition.value is not None:
            self.uses(f"{where}.{key}.value", label, {condition.value}, available)
        self.uses(f"{where}.{key}", label, {n for t in step_strings(condition) for n in template_values(t)}, available)
        self.items(f"{where}.{key}", label, step_strings(condition))
        if condition.url_matches is not None and (problem := patterns.check_pattern(condition.url_matches)):
            self.add(f"{where}.{key}.url_matches", problem)
        inside = self.check(step.steps, f"{where}.steps", set(available), depth + 1)
        if isinstance(step, S.IfBlock):
            otherwise = self.check(step.else_steps, f"{where}.else", set(available), depth + 1)
            available |= inside & otherwise  # the caller's set: what every path through the block stores

    def call(self, step: Any, where: str, label: str, available: set[str], depth: int) -> set[str]:
        """A call's parameters may use what is stored before it; what its steps store is returned."""
        self.seen_block = True
        texts = list(step.params.values())
        self.uses(f"{where}.params", label, {n for t in texts for n in template_values(t)}, available)
        self.items(f"{where}.params", label, texts)
        if depth + 1 > S.MAX_BLOCK_DEPTH:
            self.add(where, f"{_cap(label)} nests blocks more than {S.MAX_BLOCK_DEPTH} deep.")
            return available
        stored = self.check(step.steps, f"{where}.steps", set(available), depth + 1)
        for key in [k for k in self.fields if k.startswith(f"{where}.steps.")]:  # its steps are not this one's rows
            self.fields.setdefault(where, []).extend(f"In {step.automation}: {m}" for m in self.fields.pop(key))
        return stored

    def from_file(self, where: str, label: str, name: str, available: set[str]) -> None:
        if name in self.all_values and name not in self.files:
            self.add(f"{where}.from_file", f"{_cap(label)} reads the file {name!r}, but {self.all_values[name]} stores "
                                           "a value by that name, not a downloaded file (a download step's into).")
            return
        if name not in self.all_values:
            known = ", ".join(sorted(self.files)) or "none"
            self.add(f"{where}.from_file", f"{_cap(label)} reads the file {name!r}, but no download step stores a "
                                           f"file by that name (downloaded files: {known}).")
            return
        self.uses(f"{where}.from_file", label, {name}, available)

    def items(self, where: str, label: str, strings: list[str]) -> None:
        used = sorted({name for text in strings for name in template_items(text)})
        if used and not self.in_each:
            self.add(where, f"{_cap(label)} uses item field(s) {', '.join(used)} outside a for_each block "
                            "(an item exists only inside one).")

    def for_each(self, step: Any, where: str, label: str, available: set[str], depth: int) -> None:
        self.seen_block = True
        if depth or self.seen_each:
            self.add(where, f"{_cap(label)}: an automation has at most one for_each block, at the top level.")
            return
        self.seen_each = self.in_each = True
        if step.lanes > 1 and any(isinstance(inner, S.AgentStep) for _, inner, _ in walk(step.steps)):
            self.add(f"{where}.lanes", f"{_cap(label)} works on {step.lanes} items at once, but holds an agent step: "
                                       "agent steps work on one item at a time (set lanes to 1).")
        self.check(step.steps, f"{where}.steps", set(available), depth + 1)  # nothing it stores is kept after it
        self.in_each = False


def definition_problems(steps: list, *, params: set[str] | None = None) -> dict[str, list[str]]:
    """Field errors of the values and blocks of a step list (see the module's contract)."""
    all_values: dict[str, str] = {}
    for where, step, _ in walk(steps):
        if produced(step) and produced(step) not in all_values:
            all_values[produced(step)] = _label(step, where)
    checker = _Checker(params or set(), all_values, downloads_stored(steps))
    checker.check(steps, "steps", set(), 0)
    return checker.fields


def values_available(steps: list) -> dict[str, list[str]]:
    """Path of each step ("steps.2.steps.0") -> the value names it may use."""
    checker = _Checker(set(), {})
    checker.check(steps, "steps", set(), 0)
    return checker.available
