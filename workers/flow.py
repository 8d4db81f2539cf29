"""Values between steps and blocks of steps (`if` / `else`, bounded `repeat until`).

Values: an `extract` step stores its value under `into`, an agent step its `Finished` content
under `into` ("result" by default); later steps read it as `{{steps.NAME.value}}`, filled by the
same mechanism and escaping rules as parameters (`workers.templating`). Values are the run's
output, so they are scrubbed of vault secrets like any extracted data and shown in the trace.

Contract:
- `workers.flow_checks.definition_problems(steps, params)` judges a definition at save: every value used is produced
  by an earlier step on every path to it (after an `if`, only what both branches produce; after a
  `repeat`, nothing its body produces, since it may run zero times), blocks nest at most
  `MAX_BLOCK_DEPTH` deep, sign-in steps stay at the top level before any block, `url_matches`
  patterns compile under the bounded engine. Errors are field errors keyed by the step's path
  ("steps.3.steps.1") and name the step. `values_available` lists the names usable at each step.
- `compile_program(steps)` flattens blocks into one list of steps and `Op`s (branches, jumps and
  loop checks with absolute targets), so a run's position stays one integer: a continuation,
  the action journal and crash retries resume inside a block exactly as at the top level. Loop
  counters travel in `RunState.loops` / `Continuation.loops`.
- `Flow.control(op, position)` runs one `Op` and returns the next position; it records a trace
  line for each decision (which branch ran, each iteration) and a `skipped` record, with the
  reason, for each step a branch not taken holds. Page conditions are read without acting
  (through the executor's `assert`), so the safety and CAPTCHA gates see only the steps inside.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from workers import patterns, steps as S
from workers.errors import EnvironmentLost, StepError
from workers.items import next_item, summary
from workers.run_state import RunFailed, RunState, StepRecord
from workers.templating import fill_error, render, step_strings, template_items, template_values

QUICK_LOOK_S = 0.05  # a page check's first look, and the shortest wait it is given


def produced(step: Any) -> str | None:
    """The name of the value a step stores, if it stores one."""
    if isinstance(step, S.ExtractStep):
        return step.into
    if isinstance(step, S.AgentStep):
        return step.into or "result"
    if isinstance(step, S.DownloadStep):
        return step.into
    return None


def downloads_stored(steps: list) -> set[str]:
    """The names `download` steps store files under (what `extract`'s `from_file` may read)."""
    return {step.into for _, step, _ in walk(steps) if isinstance(step, S.DownloadStep) and step.into}


def input_files(steps: list) -> list[str]:
    """The run's input files the steps upload (`upload` with `from_input`), in order of first use:
    each is asked for at launch."""
    names: list[str] = []
    for _, step, _ in walk(steps):
        if isinstance(step, S.UploadStep) and step.from_input and step.from_input not in names:
            names.append(step.from_input)
    return names


def walk(steps: list, path: str = "steps", depth: int = 0) -> Iterator[tuple[str, Any, int]]:
    """Every step and block, nested ones included, with its path and block depth, in order."""
    for index, step in enumerate(steps):
        where = f"{path}.{index}"
        yield where, step, depth
        if isinstance(step, S.BLOCKS):
            yield from walk(step.steps, f"{where}.steps", depth + 1)
            if isinstance(step, S.IfBlock):
                yield from walk(step.else_steps, f"{where}.else", depth + 1)


def step_kinds(steps: list[dict[str, Any]]) -> set[str]:
    """The kinds of a stored (JSON) step list, nested blocks' steps included."""
    kinds: set[str] = set()
    for step in steps:
        if isinstance(step, dict):
            kinds.add(str(step.get("kind")))
            kinds |= step_kinds([*(step.get("steps") or []), *(step.get("else") or [])])
    return kinds


def plain_steps(steps: list) -> list:
    """The steps that act or read (blocks and control steps left out), nested ones included."""
    return [step for _, step, _ in walk(steps) if not isinstance(step, (*S.BLOCKS, *S.CONTROL))]


def for_each_block(steps: list) -> S.ForEachBlock | None:
    """The automation's `for_each` block (at most one, at the top level), if it has one."""
    return next((step for step in steps if isinstance(step, S.ForEachBlock)), None)


def item_fields_used(steps: list) -> set[str]:
    """The item fields (`{{item.FIELD}}`) a step list uses, conditions included."""
    used: set[str] = set()
    for _, step, _ in walk(steps):
        strings = step_strings(condition_of(step)) if isinstance(step, (S.IfBlock, S.RepeatBlock)) else (
            [] if isinstance(step, (S.ForEachBlock, *S.CONTROL)) else step_strings(step))
        used |= {name for text in strings for name in template_items(text)}
    return used


def condition_of(step: Any) -> S.Condition:
    """An `if` block's condition, a `repeat` block's `until`."""
    return step.condition if isinstance(step, S.IfBlock) else step.until


# -- the flattened program -------------------------------------------------------------------------

@dataclass
class Op:
    """A control point of the flattened program. `if`: go on if the condition holds, else to
    `target` (the else branch or the block's end). `jump`: to `target` (the end of an if whose
    then-branch ran; its else steps are recorded as skipped). `loop_start`: reset the counter.
    `loop_check`: leave to `target` when `until` holds, fail or leave at the cap, else count an
    iteration. `loop_back`: to the loop's check at `target`.
    `call`: the called automation's steps follow, up to `target` (a trace line says what was called).
    `each_start`: the item cursor goes to the first item. `each_next`: start the next item still
    to run, or leave to `target` when none is left. `each_done`: the item's steps all ran, it
    succeeded; back to `each_next` at `target`. `skip`: the item is skipped (a `skip_item` step);
    back to `each_next` at `target`."""

    kind: Literal["if", "jump", "loop_start", "loop_check", "loop_back", "each_start", "each_next", "each_done",
                  "skip", "call"]
    block: Any
    path: str
    target: int = 0


def compile_program(steps: list, *, before: list = ()) -> list:
    """`before` (the start URL's step), then the steps with blocks flattened into `Op`s;
    positions and targets are indexes into this list."""
    out: list = list(before)
    _emit(steps, "steps", out)
    return out


def _emit(steps: list, path: str, out: list, each: int = -1) -> None:
    for index, step in enumerate(steps):
        where = f"{path}.{index}"
        if isinstance(step, S.IfBlock):
            head = Op("if", step, where)
            out.append(head)
            _emit(step.steps, f"{where}.steps", out, each)
            if step.else_steps:
                jump = Op("jump", step, where)
                out.append(jump)
                head.target = len(out)
                _emit(step.else_steps, f"{where}.else", out, each)
                jump.target = len(out)
            else:
                head.target = len(out)
        elif isinstance(step, S.RepeatBlock):
            out.append(Op("loop_start", step, where))
            check = Op("loop_check", step, where)
            out.append(check)
            at = len(out) - 1
            _emit(step.steps, f"{where}.steps", out, each)
            out.append(Op("loop_back", step, where, target=at))
            check.target = len(out)
        elif isinstance(step, S.ForEachBlock):
            out.append(Op("each_start", step, where))
            check = Op("each_next", step, where)
            out.append(check)
            at = len(out) - 1
            _emit(step.steps, f"{where}.steps", out, at)
            out.append(Op("each_done", step, where, target=at))
            check.target = len(out)
        elif isinstance(step, S.CallBlock):
            head = Op("call", step, where)
            out.append(head)
            _emit(step.steps, f"{where}.steps", out, each)
            head.target = len(out)
        elif isinstance(step, S.SkipItemStep):
            out.append(Op("skip", step, where, target=each))
        else:
            out.append(step)


class Flow:
    """Runs the `Op`s of one run (see the module's contract)."""

    def __init__(self, run: RunState, executor: Any, program: list = ()) -> None:
        self.run, self.executor = run, executor
        heads = [(at, op) for at, op in enumerate(program) if isinstance(op, Op) and op.kind == "each_next"]
        self.each_at, self.each = heads[0] if heads else (-1, None)
        self.each_end = self.each.target if self.each is not None else -1
        self.each_values = {produced(s) for s in plain_steps(self.each.block.steps)} - {None} if self.each else set()
        # Lanes need explicit steps only: an agent step (one a called automation gained after the
        # save check) makes the block run one item at a time (workers.lanes).
        self.lanes = 1 if self.each is None or any(isinstance(s, S.AgentStep) for s in plain_steps(
            self.each.block.steps)) else self.each.block.lanes
        # Position -> the called automation(s) it runs in ("sign-in v3 › report v1"), for the trace.
        self.within = [""] * len(program)
        for at, op in enumerate(program):
            if isinstance(op, Op) and op.kind == "call":
                for inner in range(at + 1, op.target):
                    self.within[inner] = " › ".join(filter(None, [self.within[inner], op.block.resolved or
                                                                  op.block.automation]))

    async def control(self, op: Op, position: int) -> int:
        if op.kind in ("each_start", "each_next", "each_done", "skip"):
            return self._items(op, position)
        if op.kind == "jump":
            self._skipped(op.block.else_steps, "the condition held, so the else branch did not run")
            return op.target
        if op.kind == "loop_back":
            return op.target
        if op.kind == "call":
            self._record(op, f"call {op.block.resolved or op.block.automation}: its steps run here",
                         {"automation": op.block.automation, "version": op.block.resolved})
            return position + 1
        if op.kind == "loop_start":
            self.run.loops[op.path] = 0
            return position + 1
        block, condition = op.block, condition_of(op.block)
        holds, evidence = await self.holds(condition, op)
        if op.kind == "if":
            branch = "then" if holds else ("else" if block.else_steps else "none")
            self._record(op, f"if {condition.describe()}: {'yes' if holds else 'no'}, "
                             + {"then": "ran its steps", "else": "ran the else branch", "none": "skipped"}[branch],
                         {"branch": branch, "holds": holds, **evidence})
            if not holds:
                self._skipped(block.steps, f"the condition ({condition.describe()}) did not hold")
            return position + 1 if holds else op.target
        done = self.run.loops.get(op.path, 0)
        if holds:
            self._record(op, f"repeat until {condition.describe()}: done after {done} iteration(s)",
                         {"iteration": done, "holds": True, **evidence})
            return op.target
        if done >= block.max_iterations:
            message = f"repeat until {condition.describe()}: cap of {block.max_iterations} iteration(s) reached"
            self._record(op, message, {"iteration": done, "holds": False, "cap_reached": True, **evidence},
                         failed=block.on_cap == "fail")
            if block.on_cap == "fail":
                raise RunFailed(self.run.where(op), message, index=self.run.next_index - 1)
            return op.target
        self.run.loops[op.path] = done + 1
        if self.run.guard is not None:
            self.run.guard.new_iteration()
        self._record(op, f"repeat until {condition.describe()}: iteration {done + 1} of at most "
                         f"{block.max_iterations}", {"iteration": done + 1, "holds": False, **evidence})
        return position + 1

    async def holds(self, condition: S.Condition, op: Op) -> tuple[bool, dict[str, Any]]:
        """Whether the condition holds now, and what was seen (for the trace)."""
        run = self.run
        try:
            to = render(condition.to, run.context())
        except (KeyError, ValueError) as exc:
            raise self._failed(op, fill_error(exc)) from None
        if condition.value is not None:
            if condition.value not in run.output:
                raise self._failed(op, fill_error(KeyError(f"steps.{condition.value}.value")))
            seen = run.output[condition.value]
            result = compare(seen, condition.op, to)
            evidence: dict[str, Any] = {"value": run.secrets.scrub_data(seen)}
        elif condition.url_matches is not None:
            url = run.env.location()
            try:
                result = patterns.search(condition.url_matches, url) is not None
            except patterns.PatternTimeout as exc:
                raise self._failed(op, str(exc)) from None
            evidence = {"url": run.secrets.scrub(url)}
        else:
            try:  # the text or target may name an item field or a value ("{{item.reference}}")
                check = S.render_step(S.AssertStep(text=condition.text_visible, target=condition.element,
                                                   timeout_s=max(condition.wait_s, QUICK_LOOK_S)), run.context())
            except (KeyError, ValueError) as exc:
                raise self._failed(op, fill_error(exc)) from None
            try:
                result = await self._shown(check)
            except EnvironmentLost as exc:
                raise self._failed(op, run.secrets.scrub(str(exc))) from None
            # What was looked for, once filled in ("INV-0007 Taxi" for "{{item.title}}").
            evidence = {"text": run.secrets.scrub(check.text)} if check.text != condition.text_visible else {}
        return result != condition.negate, evidence

    async def _shown(self, check: S.AssertStep) -> bool:
        """Whether the check's text or target is there within its wait. A page that cannot change
        by itself (`holds_still`: no script, no document loading) is looked at once: what is not
        on it will not come, so a "skip the ones already filed" check on a server-drawn list
        costs no wait."""
        still = getattr(self.run.env, "holds_still", None)
        deadline = time.monotonic() + check.timeout_s
        if still is not None:  # look, and keep looking only while the page may still change
            quick = check.model_copy(update={"timeout_s": QUICK_LOOK_S})
            while True:
                try:
                    await self.executor.run(quick)
                    return True
                except StepError:
                    if await still():
                        return False
                if time.monotonic() >= deadline:
                    return False
        try:
            await self.executor.run(check)
            return True
        except StepError:
            return False

    # -- items (workers.items) -------------------------------------------------------------------
    def _items(self, op: Op, position: int) -> int:
        run = self.run
        if op.kind == "each_start":
            run.loops[op.path] = 0
            return position + 1
        if op.kind == "each_done":
            self._close("succeeded")
            return op.target
        if op.kind == "skip":
            item = run.item
            self._record(op, f"{item.label() if item else 'item'} skipped: {op.block.reason}",
                         {"item": item.number if item else None, "skipped": True})
            self._close("skipped", op.block.reason)
            return op.target
        cursor = next_item(run.items, run.loops.get(op.path, 0))
        if cursor is None:
            for name in self.each_values:
                run.output.pop(name, None)
            counts = summary(run.items)
            self._record(op, "for each item: done ({succeeded} succeeded, {skipped} skipped, {failed} failed, "
                             "{pending} not run) of {total}".format(**counts), {"items": counts})
            return op.target
        run.loops[op.path] = cursor + 1
        return self.begin_item(run.items[cursor])

    def begin_item(self, item) -> int:
        """Start `item`'s iteration (its `running` record, a trace line); the position of the
        block's first step."""
        run, op = self.run, self.each
        assert op is not None  # noqa: S101 -- only called with a for_each block
        for name in self.each_values:  # an item never sees what the previous one stored
            run.output.pop(name, None)
        item.status, run.item, run.item_output = "running", item, {}
        if run.guard is not None:
            run.guard.new_iteration()  # an approval given for one item does not cover the next
        run.item_event(item, "running")
        self._record(op, f"for each item: {item.label()}", {"item": item.number, "of": item.of})
        return self.each_at + 1

    def _close(self, status: str, error: str = "") -> None:
        run, item = self.run, self.run.item
        if item is None:
            return
        item.status, item.error = status, error
        run.item_event(item, status, error=error, output=run.secrets.scrub_data(run.item_output))
        run.item, run.item_output = None, {}

    def item_failed(self, error: str) -> int:
        """The current item failed (a step failed, a condition could not be checked): record it and
        go on with the next item, or fail the run when the block says `stop_on_failure`."""
        item = self.run.item
        assert item is not None and self.each is not None  # noqa: S101 -- only called inside an item
        self._close("failed", error)
        if self.each.block.stop_on_failure:
            raise RunFailed(self.run.where(self.each), f"{item.label()} failed and the block stops on the first "
                                                       f"failure: {error}", index=self.run.next_index - 1)
        return self.each_at

    def item_failed_in_doubt(self, error: str) -> None:
        """The current item ends failed without a failed step of its own (its run stopped on an
        error while it was under way): never re-run blindly."""
        self._close("failed", error)

    def put_back(self, reason: str) -> None:
        """The current item stops before it changed anything (workers.lanes): it is pending again,
        to run from its start later; the trace says why."""
        run, item = self.run, self.run.item
        assert item is not None and self.each is not None  # noqa: S101 -- only called inside an item
        self._record(self.each, f"{item.label()} put back to run later: {reason}"[:180],
                     {"item": item.number, "put_back": True})
        item.status = "pending"
        run.item_event(item, "pending")
        run.item, run.item_output = None, {}

    def abandon_item(self) -> int:
        """A run retried after its worker (or browser) was lost inside an item: the item under way
        may be partly done, so it is failed, in doubt, never run again blindly; the run goes on
        with the next item. Returns the position of `each_next`."""
        run = self.run
        for item in run.items:
            if item.status == "running":
                run.item = item
                self._close("failed", "the worker running this item was lost; it may be partly done: check it, "
                                      "then retry it")
        return self.each_at

    def inside_item(self, position: int) -> bool:
        return self.each_at < position < self.each_end

    def resume_item(self, position: int) -> None:
        """A run resumed inside the for_each block (parked, or retried after a lost worker): the
        item under way is the one the cursor last took, or, when the cursor was lost with the
        worker, the first item not yet done."""
        run = self.run
        if self.each is None or not self.inside_item(position) or run.item is not None:
            return
        cursor = run.loops.get(self.each.path)
        at = cursor - 1 if cursor else next_item(run.items, 0)
        if at is None or at >= len(run.items):
            return
        run.loops[self.each.path] = at + 1
        run.item = run.items[at]
        run.item.status = "running"

    def _record(self, op: Op, name: str, facts: dict[str, Any], *, failed: bool = False) -> None:
        block = op.block
        action = {"kind": block.kind, "block": op.path, **({"name": block.name} if block.name else {}),
                  **({"automation": block.automation, "version": block.resolved} if isinstance(block, S.CallBlock)
                     else {}),
                  **({"condition": condition_of(block).model_dump(mode="json", exclude_none=True)}
                     if isinstance(block, (S.IfBlock, S.RepeatBlock)) else {})}
        self.run.emit(StepRecord(0, block.kind, (block.name + ": " if block.name else "") + name[:180], action,
                                 "failed" if failed else "succeeded", error=name if failed else "",
                                 grounding={"flow": facts}, url=self.run.env.location(), started_at=time.time()))

    def _failed(self, op: Op, error: str) -> RunFailed:
        """The condition could not be checked: a failed record saying why, and the run's failure."""
        message = f"the condition ({condition_of(op.block).describe()}) could not be checked: {error}"
        self._record(op, message, {}, failed=True)
        return RunFailed(self.run.where(op), message, index=self.run.next_index - 1)

    def _skipped(self, steps: list, reason: str) -> None:
        for step in steps:
            self.run.emit(StepRecord(0, step.kind, step.name, step.model_dump(mode="json", exclude_none=True),
                                     "skipped", error=f"skipped: {reason}", started_at=time.time()))


def compare(seen: Any, op: str, to: str) -> bool:
    """A step value compared with a literal; numbers compare as numbers when both sides are."""
    text = seen if isinstance(seen, str) else ", ".join(map(str, seen)) if isinstance(seen, list) else str(seen)
    if op == "is_empty":
        return not (seen if isinstance(seen, list) else text.strip())
    if op == "contains":
        return to in seen if isinstance(seen, list) else to in text
    left, right = _number(text), _number(to)
    if op in ("greater_than", "less_than"):
        if left is None or right is None:
            return False
        return left > right if op == "greater_than" else left < right
    same = left == right if left is not None and right is not None else text.strip() == to.strip()
    return same if op == "equals" else not same


def _number(text: str) -> float | None:
    cleaned = text.strip().replace(",", "").lstrip("$€£").strip()
    try:
        return float(cleaned)
    except ValueError:
        return None
