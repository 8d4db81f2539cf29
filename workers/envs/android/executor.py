"""Android's explicit-step executor (`workers.envs.base.StepExecutor`): steps run on the device
without a model, grounded on the UI hierarchy (text, content description, resource id, hint,
label), with offline OCR as the fallback for text the hierarchy does not have (a WebView, a
game, a screen the device gives no hierarchy for), then the model's grounding when the
automation enables it.

Steps: `goto` (and the start URL) opens an app afresh (`app:Display Name`, a package,
`package/.Activity` or `android-app://package`; it is stopped first, so every run begins at the
app's launch screen), `click`, `fill` (taps the field, clears it, types any script), `press`
(Enter, Back, Home, Recent apps, Tab, Backspace), `wait_for` / `assert` (text, target, activity
via `url_contains`), `extract` (a node's text or content description). Every acting step goes
through the run's safety gate first, exactly as on the web.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from workers import patterns, steps as S
from workers.envs.android.env import AndroidEnvironment
from workers.envs.android.hierarchy import Node, locate
from workers.envs.base import StepOutcome
from workers.envs.explicit import ExplicitExecutorBase
from workers.errors import StepError
from workers.journal import JOURNALED_KINDS

POLL_S = 0.25
KEYS = {"enter": "enter", "back": "back", "escape": "back", "home": "home", "recent": "recent",
        "appswitch": "recent", "tab": "tab", "backspace": "del", "delete": "del"}
CLEAR_KEYS = 64  # Backspaces sent when a field's length is unknown (a password field)


@dataclass
class Found:
    """A step's target on the screen: a hierarchy node or an OCR box (framed for a reviewer), or
    a point the model gave (`point`: pinned for a reviewer). `tap` is where the step acts."""

    tap: tuple[int, int]
    grounding: dict[str, Any]
    node: Node | None = None
    box: dict[str, float] | None = field(default=None)
    point: tuple[int, int] | None = None

    def record(self) -> dict[str, Any]:
        return dict(self.grounding)


class AndroidExecutor(ExplicitExecutorBase):
    """Executes one explicit step on an Android environment."""

    env: AndroidEnvironment
    UNAVAILABLE_KINDS = S.WEB_ONLY_KINDS

    def unavailable(self, kind: str) -> str:
        return (f"step kind {kind!r} is not available on Android (use click, fill, press, "
                "wait_for, assert, extract or an agent step)")

    # -- grounding ------------------------------------------------------------------------
    async def _ground(self, step, purpose: str, *, wait: bool = True) -> Found:
        """The step's target: the hierarchy first (waiting up to the step's timeout for it to
        appear), then OCR for a text target, then the model when enabled."""
        deadline = time.monotonic() + (step.timeout_s if wait else 0)
        while True:
            hierarchy = await self.env.hierarchy()
            error: StepError | None = None
            if hierarchy is not None:
                try:
                    node, strategy = locate(hierarchy, step.target, purpose=purpose)
                    return Found(node.center, node.record(strategy), node, node.rect)
                except StepError as exc:
                    error = exc
                    if "ambiguous" in str(exc):
                        raise
            if time.monotonic() >= deadline:
                break
            await asyncio.sleep(POLL_S)
            self.env.changed()
        found = await self._ocr(step)
        if found is not None:
            return found
        return await self._model_point(step, error or StepError(f"target {step.target.describe()} not found "
                                                                "(the device gave no UI hierarchy)"))

    async def _ocr(self, step) -> Found | None:
        text = step.target.text or step.target.name or step.target.label
        if not text:
            return None
        boxes = await self.env.ocr_boxes(text)
        if not boxes:
            return None
        box = boxes[0]
        point = (round(box.x + box.width / 2), round(box.y + box.height / 2))
        rect = {"x": box.x, "y": box.y, "width": box.width, "height": box.height}
        return Found(point, {"strategy": "ocr", "text": text[:200], "box": rect, "point": list(point)}, box=rect)

    async def _model_point(self, step, error: StepError) -> Found:
        if self.grounder is None or "not found" not in str(error):
            raise error
        instruction = f"the {'input field' if step.kind == 'fill' else 'element'} {step.target.describe()}"
        point = await self.grounder(instruction=instruction, observation=await self.env.observe())
        if point is None:
            raise StepError(f"{error}; the model did not find it either")
        return Found(point, {"strategy": "model grounding", "instruction": instruction, "point": list(point)},
                     point=point)

    async def _cleared(self, step, purpose: str, *, target: bool = True):
        """Ground the target and let the safety gate clear the step (see workers.executor)."""
        found = await self._ground(step, purpose) if target else None
        if self.guard is not None:
            checked = await self.guard.check_step(
                self.env, step, found, reground=lambda s: self._reground(s, purpose, target))
            self._risk = checked.risk
            step, found = checked.step, checked.target
        if self.before_act is not None and step.kind in JOURNALED_KINDS:
            await self.before_act(step, self._risk or {})
        return step, found

    async def _reground(self, step, purpose: str, target: bool):
        self.env.changed()
        return await self._ground(step, purpose) if target else None

    # -- steps ------------------------------------------------------------------------------
    async def _goto(self, step: S.GotoStep) -> StepOutcome:
        if self.guard is not None:
            step, _ = await self._cleared(step, "any", target=False)
        name = step.url.strip()
        for prefix in ("app:", "android-app://"):
            name = name.removeprefix(prefix)
        outcome = await self.env.guarded(self.env.launch(name.strip("/"), restart=True))
        return StepOutcome(grounding=outcome.grounding)

    async def _click(self, step: S.ClickStep) -> StepOutcome:
        step, found = await self._cleared(step, "click")
        self.env.changed()
        await self.env.guarded(self.env.device.tap(*found.tap))
        return StepOutcome(grounding=found.record())

    async def _fill(self, step: S.FillStep) -> StepOutcome:
        step, found = await self._cleared(step, "input")
        value = self.env.secrets.reveal(step.value, url=self.env.location())
        device = self.env.device
        self.env.changed()
        await self.env.guarded(device.tap(*found.tap))
        length = len(found.node.text) if found.node is not None and not found.node.password else CLEAR_KEYS
        if length:  # clear what the field holds: to its end, then that many Backspaces
            await self.env.guarded(device.shell("input keyevent 123 " + " ".join(["67"] * length), what="clear field"))
        if value:
            await self.env.guarded(device.type_text(value))
        return StepOutcome(grounding=found.record())

    async def _press(self, step: S.PressStep) -> StepOutcome:
        key = KEYS.get(step.key.strip().lower().replace(" ", ""))
        if key is None:
            raise StepError(f"key {step.key!r} cannot be pressed on Android (use one of: {', '.join(sorted(KEYS))})")
        step, found = await self._cleared(step, "any", target=step.target is not None)
        self.env.changed()
        if found is not None:
            await self.env.guarded(self.env.device.tap(*found.tap))
        await self.env.guarded(self.env.device.key(key))
        return StepOutcome(grounding=found.record() if found is not None else {})

    async def _wait_for(self, step: S.WaitForStep) -> StepOutcome:
        return await self._condition(step, absent=False)

    async def _assert(self, step: S.AssertStep) -> StepOutcome:
        return await self._condition(step, absent=step.absent)

    async def _condition(self, step, *, absent: bool) -> StepOutcome:
        """Wait until every condition holds (with absent: none does), polling the hierarchy."""
        deadline = time.monotonic() + step.timeout_s
        while True:
            failures, grounding = await self._check(step, absent)
            if not failures:
                return StepOutcome(grounding=grounding)
            if time.monotonic() >= deadline:
                raise StepError("; ".join(failures) + f" after {step.timeout_s:g}s")
            await asyncio.sleep(POLL_S)
            self.env.changed()

    async def _check(self, step, absent: bool) -> tuple[list[str], dict[str, Any]]:
        failures: list[str] = []
        grounding: dict[str, Any] = {}
        hierarchy = await self.env.hierarchy()
        where = self.env.location() or "the screen"
        if step.url_contains and (step.url_contains in self.env.location()) == absent:
            failures.append(f"{where} {'contains' if absent else 'does not contain'} {step.url_contains!r}")
        if step.text:
            shown = await self.env.text_visible(step.text)
            if shown == absent:
                failures.append(f"text {step.text!r} {'still there' if absent else 'not found'} on {where}")
        if step.target and hierarchy is not None:
            matches = hierarchy.find(step.target, purpose="any")
            if bool(matches) == absent:
                failures.append(f"target {step.target.describe()} {'still there' if absent else 'not found'} on {where}")
            elif matches and not absent:
                grounding = matches[0][0].record(matches[0][1])
        return failures, grounding

    async def _extract(self, step: S.ExtractStep) -> StepOutcome:
        hierarchy = await self.env.hierarchy()
        if hierarchy is None:
            raise StepError("extract needs the UI hierarchy, and the device gave none for this screen")
        matches = hierarchy.find(step.target, purpose="any")
        if not matches:
            raise StepError(f"target {step.target.describe()} not found on {self.env.location() or 'the screen'}")
        if step.all:
            values = [patterns.extract(self._readable(node, step), step.pattern) for node, _ in matches]
            return StepOutcome(grounding={"strategy": matches[0][1], "count": len(values)}, output={step.into: values})
        node, strategy = matches[0]
        return StepOutcome(grounding=node.record(strategy), output={step.into: patterns.extract(self._readable(node, step), step.pattern)})

    def _readable(self, node: Node, step: S.ExtractStep) -> str:
        if node.password:
            raise StepError(f"extract cannot read {step.target.describe()}: it is a password field, and secrets "
                            "never leave the vault")
        value = (node.text or node.content_desc).strip()
        if self.env.secrets.holds_secret(value):
            raise StepError(f"extract cannot read {step.target.describe()}: its text contains a secret from the vault")
        return value
