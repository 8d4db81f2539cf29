"""Where a run is, in the numbers its author reads: the step as the automation editor numbers it,
and the iteration of each `repeat` around it. A failed run's reason names its step this way
("step 4 (Click Next), iteration 2 of at most 10: ..."), never by its trace record, whose index
counts every record (iterations, sign-in and CAPTCHA records, a retry's records) and stays the key
of the trace (`StepRecord.index`, "#N" on the run page).

Contract:
- The editor (`venus_rpa.dashboard.blocks`) lays a definition out as rows numbered from 1: one
  per step, and per block a row that opens it, its steps' rows, an `else` row (an `if` with else
  steps) and an `end` row. `StepNumbers` numbers a run's program (`workers.flow.compile_program`)
  the same way.
- A `call` is one row; the steps it runs are numbered as the called automation's editor numbers
  them, and say where they were called ("step 2 of sign-in v3 (Type the password), called at
  step 1").
- A start URL's opening (the run's, a called automation's) has no row: it is "before step 1".
- `label(position, loops)` names a program position (past the program's end: "after the last
  step"); `loops` are the run's loop counters (`RunState.loops`), so a step inside a `repeat`
  names the iteration under way ("iteration 2 of at most 10", as the trace's own lines say). A
  `for_each` item is not named here: the item's record and the run's reason name it
  (`workers.items`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from workers import steps as S
from workers.calls import opens_start
from workers.flow import Op

Calls = tuple[tuple[int, str], ...]  # the calls a step runs in, outermost first: (the call's row, what was called)


@dataclass(frozen=True)
class Place:
    """A step's row in its automation's editor (0: a start URL's opening, which has none), its
    name as people know it (its name, else its kind), and the calls it runs in."""

    number: int
    name: str
    calls: Calls = ()

    def text(self) -> str:
        head = "before step 1" if self.number == 0 else f"step {self.number}"
        if not self.calls:
            return f"{head} ({self.name})"
        parts = [f"{head} of {self.calls[-1][1]} ({self.name})"]
        for depth in range(len(self.calls) - 1, -1, -1):
            row = self.calls[depth][0]
            parts.append(f"called at step {row}" + (f" of {self.calls[depth - 1][1]}" if depth else ""))
        return ", ".join(parts)


def _name(step: Any) -> str:
    return getattr(step, "name", "") or step.kind


def _number(steps: list, row: int, calls: Calls, out: dict[int, Place]) -> int:
    """Number `steps` from `row` as their editor's rows (blocks' rows and nested steps included);
    the row that follows them."""
    for step in steps:
        out[id(step)] = Place(row, _name(step), calls)
        if isinstance(step, S.CallBlock):  # one row here; its steps are numbered as its own editor does
            inner, called = step.steps, (*calls, (row, step.resolved or step.automation))
            if opens_start(step):
                out[id(inner[0])] = Place(0, _name(inner[0]), called)
                inner = inner[1:]
            _number(inner, 1, called, out)
        elif isinstance(step, S.BLOCKS):
            row = _number(step.steps, row + 1, calls, out) - 1
            if getattr(step, "else_steps", None):
                row = _number(step.else_steps, row + 2, calls, out) - 1  # after the `else` row
            row += 1  # the `end` row
        row += 1
    return row


def before(where: str) -> str:
    """"before step 4 (...)" of a place: what happens on the page before the step under way acts
    (a CAPTCHA gate, a session restored); a place that already says before or after stays."""
    return where if where.startswith(("before ", "after ")) else f"before {where}"


class StepNumbers:
    """The editor's numbers of one run's program: `program` is `compile_program(steps, before=...)`
    (a start URL's opening first, when the run has one)."""

    def __init__(self, steps: list, program: list) -> None:
        places: dict[int, Place] = {}
        _number(steps, 1, (), places)
        self.places: list[Place] = []  # per position
        self.loops: list[list[tuple[str, int]]] = []  # per position: the repeats around it (path, cap), outermost first
        self.repeats: dict[str, Place] = {}  # a repeat's path -> its own place
        open_loops: list[tuple[int, str, int]] = []  # (the position of its loop_back, path, cap)
        for position, entry in enumerate(program):
            while open_loops and position >= open_loops[-1][0]:
                open_loops.pop()
            key = entry.block if isinstance(entry, Op) else entry
            place = places.get(id(key)) or Place(0, _name(key))  # only the run's start URL opening has none
            self.places.append(place)
            self.loops.append([(path, cap) for _, path, cap in open_loops])
            if isinstance(entry, Op) and entry.kind == "loop_check":  # its steps run up to its loop_back
                self.repeats[entry.path] = place
                open_loops.append((entry.target - 1, entry.path, entry.block.max_iterations))

    def label(self, position: int, loops: Mapping[str, int]) -> str:
        """The step at `position`, with the iteration of each repeat around it."""
        if position < 0:
            return "before the first step"
        if position >= len(self.places):
            return "after the last step"
        around = self.loops[position]
        iterations = [f"iteration {loops.get(path, 0)} of at most {cap}" for path, cap in around]
        if len(around) > 1:  # nested repeats: say whose iteration each is
            iterations = [f"{text} of {self.repeats[path].text()}" for text, (path, _) in zip(iterations, around)]
        return ", ".join([self.places[position].text(), *iterations])
