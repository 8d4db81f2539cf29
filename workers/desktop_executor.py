"""The desktop's explicit-step executor: goto / click / fill / press / wait_for / assert / extract
on an X display without a model, with the same interface as the web's `ExplicitExecutor`
(`run(step) -> StepOutcome`, `guard`, `before_act`).

Grounding is on the screen (`workers.envs.desktop_screen`): AT-SPI accessibility names first,
offline OCR second, the model (when the automation enables it) last. What each step means here:
- `goto`: start the application the URL names (`app:gnumeric`, `app:gnumeric/expenses.gnumeric`
  to open a file of the run's Documents folder; see `workers.envs.desktop_apps`).
- `click`: left-click the target's centre. `fill`: click it, select all, type the value (Enter
  for each newline). A `cell` target (`{"role": "cell", "name": "B2"}`) is a spreadsheet cell:
  the application's Go To jumps there and the value is typed into it. `{"role": "textbox"}`
  without a name is the focused text field (a dialog's entry).
- `press`: a key chord (`ctrl+s`, `Delete`, `F2`), on the target if one is given (clicked first).
- `wait_for` / `assert`: text on the screen, a target, `url_contains` on the location
  (`app://<app>/<window title>`).
- `extract`: the OCR text of the line(s) at the target, or after it on the same line.
`select`, `check` and `upload` are web steps and fail with a clear error.
With a `guard`, every acting step is grounded, cleared by the safety gate, then performed.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from workers import ocr, patterns, steps as S
from workers.envs.desktop import DesktopEnvironment
from workers.envs.desktop_screen import Found
from workers.errors import StepError
from workers.journal import JOURNALED_KINDS

from workers.envs.base import StepOutcome
from workers.envs.explicit import ExplicitExecutorBase


class DesktopExecutor(ExplicitExecutorBase):
    """Executes one explicit step on a desktop environment (see the module docstring)."""

    env: DesktopEnvironment
    UNAVAILABLE_KINDS = S.WEB_ONLY_KINDS

    def unavailable(self, kind: str) -> str:
        return (f"step kind {kind!r} does not exist on the desktop surface "
                "(use click, fill, press, wait_for, assert, extract or an agent step)")

    # -- grounding and the gate -------------------------------------------------------------
    async def _ground(self, step, *, model: bool = True) -> Found:
        target = step.target
        if target.role == "textbox" and not (target.name or target.text or target.label or target.placeholder):
            return await self._focused_field(step)
        try:
            return await self.env.screen.locate(target, timeout_s=step.timeout_s)
        except StepError as exc:
            if not model or self.grounder is None:
                raise
            instruction = f"the {'input field' if step.kind == 'fill' else 'element'} {target.describe()}"
            point = await self.grounder(instruction=instruction, observation=await self.env.observe())
            if point is None:
                raise StepError(f"{exc}; the model did not find it either") from None
            return Found(ocr.Box(point[0] - 1, point[1] - 1, 2, 2), "model grounding", name=instruction)

    async def _focused_field(self, step) -> Found:
        from workers.envs import atspi

        deadline = time.monotonic() + step.timeout_s
        while True:
            tree = await self.env.x(atspi.read_tree, self.env.session.env())
            field = next((i for i in tree if i.focused and i.editable), None)
            if field is not None:
                return Found(field.box, "accessibility", field.role, field.name)
            if time.monotonic() >= deadline:
                raise StepError(f"no text field has the keyboard focus on {self.env.location()}")
            await asyncio.sleep(0.3)

    async def _cleared(self, step, *, target: bool = True):
        found = await self._ground(step) if target else None
        if self.guard is not None:
            checked = await self.guard.check_step(self.env, step, found,
                                                  reground=lambda s: self._ground(s) if target else _none())
            self._risk = checked.risk
            step, found = checked.step, checked.target
        if self.before_act is not None and step.kind in JOURNALED_KINDS:
            await self.before_act(step, self._risk or {})
        return step, found

    # -- steps ------------------------------------------------------------------------------
    async def _goto(self, step: S.GotoStep) -> StepOutcome:
        step, _ = await self._cleared(step, target=False)
        app, _, document = step.url.partition("/") if step.url.lower().startswith("app:") else (step.url, "", "")
        started = await self.env.start_app(app, document=document)
        return StepOutcome(grounding={"app": started.key, "window": self.env.window_title})

    async def _click(self, step: S.ClickStep) -> StepOutcome:
        step, found = await self._cleared(step)
        await self.env.click_at(*found.point)
        return StepOutcome(grounding=found.record())

    async def _fill(self, step: S.FillStep) -> StepOutcome:
        if step.target.role == "cell":
            return await self._fill_cell(step)
        step, found = await self._cleared(step)
        value = self.env.secrets.reveal(step.value, url=self.env.location())
        await self.env.click_at(*found.point)
        await self.env.key("ctrl+a")
        await self.env.type_text(value)
        return StepOutcome(grounding=found.record())

    async def _fill_cell(self, step: S.FillStep) -> StepOutcome:
        """Jump to a spreadsheet cell with the application's Go To, then type the value."""
        address = (step.target.name or step.target.text or "").strip().upper()
        app = self.env.app
        if app is None or app.goto_cell is None:
            raise StepError(f"cell targets need a spreadsheet; {self.env.location()} is not one")
        if not address or not address[0].isalpha():
            raise StepError(f"a cell target names a cell such as 'B2', not {address!r}")
        step, _ = await self._cleared(step, target=False)
        value = self.env.secrets.reveal(step.value, url=self.env.location())
        await self.env.goto_cell(address)
        await self.env.type_text(value + "\n")  # Enter commits the cell
        return StepOutcome(grounding={"strategy": "cell", "cell": address})

    async def _press(self, step: S.PressStep) -> StepOutcome:
        step, found = await self._cleared(step, target=step.target is not None)
        if found is not None:
            await self.env.click_at(*found.point)
        await self.env.key(step.key)
        return StepOutcome(grounding=found.record() if found is not None else {"key": step.key})

    async def _wait_for(self, step: S.WaitForStep) -> StepOutcome:
        return await self._condition(step, absent=False)

    async def _assert(self, step: S.AssertStep) -> StepOutcome:
        return await self._condition(step, absent=step.absent)

    async def _condition(self, step, *, absent: bool) -> StepOutcome:
        """Wait until every condition holds (or, with absent, none is there)."""
        deadline = time.monotonic() + step.timeout_s
        while True:
            failures, grounding = await self._conditions(step, absent=absent)
            if not failures:
                return StepOutcome(grounding=grounding)
            if time.monotonic() >= deadline:
                raise StepError(f"{'; '.join(failures)} on {self.env.location()} after {step.timeout_s:g}s")
            await asyncio.sleep(0.3)

    async def _conditions(self, step, *, absent: bool) -> tuple[list[str], dict]:
        failures: list[str] = []
        grounding: dict[str, Any] = {}
        if step.url_contains:
            await self.env.observe()  # refreshes the window title
            if (step.url_contains in self.env.location()) == absent:
                failures.append(f"location {'contains' if absent else 'does not contain'} {step.url_contains!r}")
        if step.text and bool(await self.env.screen.find(step.text)) == absent:
            failures.append(f"text {step.text!r} {'still there' if absent else 'not found'}")
        if step.target:
            found = await self.env.screen.find(step.target)
            if bool(found) == absent:
                failures.append(f"target {step.target.describe()} {'still there' if absent else 'not found'}")
            elif found:
                grounding = found[0].record()
        return failures, grounding

    async def _extract(self, step: S.ExtractStep) -> StepOutcome:
        found = await self.env.screen.locate(step.target, timeout_s=step.timeout_s)
        lines = await self.env.screen.lines_at(found, every=step.all)
        if not lines:
            raise StepError(f"no text could be read at {step.target.describe()}")
        values = [patterns.extract(text, step.pattern) for text in lines]
        for value in values:
            if self.env.secrets.holds_secret(value):
                raise StepError(f"extract cannot read {step.target.describe()}: its text contains a secret from the "
                                "vault, and secrets never leave the vault")
        return StepOutcome(grounding=found.record(), output={step.into: values if step.all else values[0]})


async def _none() -> None:
    return None
