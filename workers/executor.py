"""The web's explicit-step executor (`workers.envs.base.StepExecutor`): runs goto/click/fill/...
on the browser without a model. Other surfaces have their own with the same interface
(`Host.explicit_executor`), e.g. `workers.envs.android.executor.AndroidExecutor`.

Steps arrive with parameters already filled in; credential placeholders are revealed only at
the moment of typing (`SecretBox.reveal`). Every failure is a `StepError` whose message says
what was expected and what was found.

With a `guard` (the run's safety gate, `workers.gates.guard.ActionGuard`), every acting step
(goto, click, fill, select, check, upload, press) is grounded, then cleared by the gate, then
performed: the gate may hold it for review, refuse it (`GateRefused`, a StepError), skip it, or
hand back an edited step and a re-grounded target. Its verdict lands in `grounding["risk"]`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

from playwright.async_api import Error as PlaywrightError, TimeoutError as PlaywrightTimeout

from workers import patterns, steps as S
from workers.choosing import choose
from workers.envs.base import StepOutcome
from workers.envs.browser import BrowserEnvironment
from workers.envs.explicit import ExplicitExecutorBase
from workers.envs.form_send import act_on_form
from workers.envs.masking import MASK_ATTR
from workers.envs.page_requests import browser_gone
from workers.errors import EnvironmentLost, StepError
from workers.grounding import Grounded, locate, locate_all
from workers.journal import JOURNALED_KINDS
from workers.loop import bounded

log = logging.getLogger(__name__)
DOWNLOAD_GRACE_S = 60.0  # what a started download may take to be captured beyond the step's timeout


# Text a person sees on the page: the rendered text, and what the visible fields hold (an edit
# page shows the record's title in its "Title" box). Password fields are never read.
TEXT_SHOWN_JS = """(wanted) => {
  const norm = s => (s || '').replace(/\\s+/g, ' ').trim().toLowerCase();
  const w = norm(wanted);
  if (norm(document.body ? document.body.innerText : '').includes(w)) return true;
  return Array.from(document.querySelectorAll('input:not([type=hidden]):not([type=password]), textarea'))
    .some(e => e.getClientRects().length && norm(e.value).includes(w));
}"""


@dataclass
class Pointed:
    """A target the model found (model grounding): a point in viewport pixels."""

    point: tuple[int, int]
    grounding: dict[str, Any]


class ExplicitExecutor(ExplicitExecutorBase):
    """Executes one explicit step on a browser environment (the web's `StepExecutor`)."""

    env: BrowserEnvironment

    async def _perform(self, handler, step) -> StepOutcome:
        try:
            return await handler(step)
        except PlaywrightTimeout as exc:
            raise StepError(f"{step.kind} timed out after {step.timeout_s:g}s: {_first_line(exc)}") from exc
        except PlaywrightError as exc:
            raise self.env._error(exc, f"{step.kind} failed") from exc

    @property
    def page(self):
        return self.env.page

    async def _ground(self, step, purpose: str, *, model: bool = False) -> Grounded | Pointed:
        """Find the step's target; with `model`, fall back to model grounding (if enabled). With a
        guard, the box comes from the gate's probe instead of a round trip of its own."""
        try:
            return await locate(self.page, step.target, purpose=purpose, timeout_s=step.timeout_s,
                                with_box=self.guard is None)
        except StepError as exc:
            if not model:
                raise
            point, grounding = await self._model_point(step, exc)
            return Pointed(point, grounding)

    async def _cleared(self, step, purpose: str, *, model: bool = False, target: bool = True):
        """Ground the step's target and let the safety gate clear it: (step, target), where the
        step may be a reviewer's edit and the target is re-grounded after any wait."""
        found = await self._ground(step, purpose, model=model) if target else None
        if self.guard is not None:
            checked = await self.guard.check_step(
                self.env, step, found, reground=lambda s: self._ground(s, purpose, model=model) if target else _none())
            self._risk = checked.risk
            if isinstance(checked.target, Grounded) and checked.target.box is None:
                checked.target.box = checked.box
            step, found = checked.step, checked.target
        if self.before_act is not None and step.kind in JOURNALED_KINDS:
            await self.before_act(step, self._risk or {})
        return step, found

    async def _goto(self, step: S.GotoStep) -> StepOutcome:
        if self.guard is not None:  # the gate judges the address that will be opened
            step = step.model_copy(update={"url": urljoin(self.start_url or self.page.url, step.url)})
            step, _ = await self._cleared(step, "any", target=False)
        await self.env.goto(step.url, base=self.start_url or self.page.url, timeout_s=max(step.timeout_s, 30))
        return StepOutcome(grounding={"url": self.page.url})

    async def _click(self, step: S.ClickStep) -> StepOutcome:
        step, found = await self._cleared(step, "click", model=True)
        before = await self._before(found)
        if isinstance(found, Pointed):
            await act_on_form(self.page, lambda: self.page.mouse.click(*found.point), point=found.point)
            return StepOutcome(grounding=dict(found.grounding), screenshot_before=before)
        await act_on_form(self.page, lambda: found.locator.click(timeout=step.timeout_s * 1000), locator=found.locator)
        return StepOutcome(grounding=found.record(), screenshot_before=before)

    async def _before(self, found) -> bytes | None:
        """The screen a click or key press acts on, with its target's box measured in it (the screen
        after it may be another page, where the box would mark an unrelated spot). Best effort: a
        screen that cannot be taken costs the step its 'before' picture, never the step."""
        shoot = getattr(self.env, "before_action", None)
        if shoot is None:
            return None
        try:
            shot, box = await shoot(found.locator, found.box) if isinstance(found, Grounded) else await shoot()
        except (StepError, EnvironmentLost):
            log.info("no screenshot before the action", exc_info=True)
            return None
        if box is not None and isinstance(found, Grounded):
            found.box = {k: round(box[k], 1) for k in ("x", "y", "width", "height")}
        return shot

    async def _fill(self, step: S.FillStep) -> StepOutcome:
        step, found = await self._cleared(step, "fill", model=True)
        value = self.env.secrets.reveal(step.value, url=self.page.url)
        secret = self.env.secrets.has_placeholder(step.value)  # the field is masked before it holds the value
        if isinstance(found, Pointed):
            await self.page.mouse.click(*found.point)
            if secret:
                await self.env.mask.tag_focused(self.page)
            await self.page.keyboard.press("ControlOrMeta+A")
            await self.page.keyboard.insert_text(value)
            return StepOutcome(grounding=dict(found.grounding))
        if secret:
            await self.env.mask.tag(found.locator)
        await _fill_as_typed(found.locator, value, timeout_s=step.timeout_s)
        return StepOutcome(grounding=found.record())

    async def _model_point(self, step, error: StepError) -> tuple[tuple[int, int], dict]:
        """Ask the model for a target the DOM grounder could not find; re-raise if it cannot help."""
        if self.grounder is None or "not found" not in str(error):
            raise error
        instruction = f"the {'input field' if step.kind == 'fill' else 'element'} {step.target.describe()}"
        point = await self.grounder(instruction=instruction, observation=await self.env.observe())
        if point is None:
            raise StepError(f"{error}; the model did not find it either")
        return point, {"strategy": "model grounding", "instruction": instruction, "point": list(point)}

    async def _select(self, step: S.SelectStep) -> StepOutcome:
        step, found = await self._cleared(step, "select")
        await choose(self.page, found.locator, option=step.option, what=step.target.describe(), timeout_s=step.timeout_s)
        return StepOutcome(grounding=found.record())

    async def _check(self, step: S.CheckStep) -> StepOutcome:
        step, found = await self._cleared(step, "check")
        await found.locator.set_checked(step.checked, timeout=step.timeout_s * 1000)
        return StepOutcome(grounding=found.record())

    async def _upload(self, step: S.UploadStep) -> StepOutcome:
        step, found = await self._cleared(step, "input")
        if step.from_input:  # the file given with the run at launch
            file = await self.env.files.input(step.from_input)
            payload = {"name": file.name, "mimeType": file.mime, "buffer": file.content}
            facts = {"file": file.name, "type": file.type, "size": file.size}
        else:
            payload = {"name": step.filename, "mimeType": step.mime_type, "buffer": step.content.encode()}
            facts = {}
        await found.locator.set_input_files(payload, timeout=step.timeout_s * 1000)
        return StepOutcome(grounding={**found.record(), **({"upload": facts} if facts else {})})

    async def _download(self, step: S.DownloadStep) -> StepOutcome:
        """Click the target, wait for the download it starts (from this page or a popup), keep it."""
        step, found = await self._cleared(step, "click", model=True)
        files = self.env.files
        since = files.count()
        if isinstance(found, Pointed):
            await act_on_form(self.page, lambda: self.page.mouse.click(*found.point), point=found.point)
            grounding = dict(found.grounding)
        else:
            await act_on_form(self.page, lambda: found.locator.click(timeout=step.timeout_s * 1000),
                              locator=found.locator)
            grounding = found.record()
        try:
            capture = await files.next_download(since, step.timeout_s)
        except TimeoutError:
            egress = getattr(self.env, "egress", None)
            blocked = egress.blocked[-1] if egress is not None and egress.blocked else ""
            raise StepError(f"no download started within {step.timeout_s:g}s of clicking {step.target.describe()}"
                            + (f" ({blocked})" if blocked else "")) from None
        try:
            captured = await bounded(asyncio.shield(capture), step.timeout_s + DOWNLOAD_GRACE_S)
        except TimeoutError:
            raise StepError(f"the download started by clicking {step.target.describe()} did not finish within "
                            f"{step.timeout_s + DOWNLOAD_GRACE_S:g}s") from None
        facts, file = captured.facts, captured.file
        if file is None:  # the step's record shows the facts under "downloads" (workers.step_run)
            raise StepError(f"the download {facts['name']!r} was not kept: {facts.get('reason', facts.get('status'))}")
        files.reported(facts)
        grounding["download"] = facts
        if step.into:
            files.files[step.into] = file
        return StepOutcome(grounding=grounding, output={step.into: file.name} if step.into else {})

    async def _press(self, step: S.PressStep) -> StepOutcome:
        step, found = await self._cleared(step, "any", target=step.target is not None)
        before = await self._before(found)
        if found is None:
            await act_on_form(self.page, lambda: self.page.keyboard.press(step.key), key=step.key)
            return StepOutcome(screenshot_before=before)
        await act_on_form(self.page, lambda: found.locator.press(step.key, timeout=step.timeout_s * 1000),
                          locator=found.locator, key=step.key)
        return StepOutcome(grounding=found.record(), screenshot_before=before)

    async def _wait_for(self, step: S.WaitForStep) -> StepOutcome:
        return await self._condition(step, absent=False)

    async def _assert(self, step: S.AssertStep) -> StepOutcome:
        return await self._condition(step, absent=step.absent)

    async def _condition(self, step, *, absent: bool) -> StepOutcome:
        """Wait until every condition of the step holds (or, with absent, none is there)."""
        timeout_ms = step.timeout_s * 1000
        verb = "still there" if absent else "not found"
        if step.url_contains:
            try:
                await self.page.wait_for_url(lambda u: (step.url_contains in u) != absent, timeout=timeout_ms)
            except PlaywrightTimeout:
                raise StepError(f"URL {self.page.url!r} {'contains' if absent else 'does not contain'} {step.url_contains!r}")
        if step.text:
            try:
                if absent:
                    locator = self.page.get_by_text(step.text).filter(visible=True).first
                    await locator.wait_for(state="hidden", timeout=timeout_ms)
                else:
                    await self._text_shown(step.text, timeout_ms)
            except PlaywrightTimeout:
                raise StepError(f"text {step.text!r} {verb} on {self.page.url} after {step.timeout_s:g}s")
        grounding: dict = {}
        if step.target:
            if absent:
                try:
                    await locate(self.page, step.target, purpose="any", timeout_s=0, with_box=False, suggest=False)
                except StepError:
                    return StepOutcome()
                raise StepError(f"target {step.target.describe()} {verb} on {self.page.url}")
            grounding = (await locate(self.page, step.target, purpose="any", timeout_s=step.timeout_s)).record()
        return StepOutcome(grounding=grounding)

    async def _text_shown(self, text: str, timeout_ms: float) -> None:
        """Wait until text is shown (TEXT_SHOWN_JS); a navigation meanwhile starts the wait again
        on the new page. Raises PlaywrightTimeout. The page is looked at once in full before any
        deadline applies: on a busy machine a short wait (a condition's quick look) could otherwise
        end before its first look did, and text that is there would count as missing."""
        deadline = time.monotonic() + timeout_ms / 1000
        # A document being replaced, or one too busy to answer within the read limit: the wait
        # below goes on for the time left.
        with contextlib.suppress(PlaywrightError, StepError):
            if await self.env.read(self.page.evaluate(TEXT_SHOWN_JS, text), "could not read the page"):
                return
        while True:
            left = (deadline - time.monotonic()) * 1000
            if left <= 0:
                raise PlaywrightTimeout(f"text {text!r} not shown")
            try:
                await self.page.wait_for_function(TEXT_SHOWN_JS, arg=text, timeout=left)
                return
            except PlaywrightTimeout:
                raise
            except PlaywrightError as exc:  # the document was replaced while waiting: wait on the new one
                if browser_gone(exc):  # ... unless the browser itself is gone: no new document will come
                    raise
                await asyncio.sleep(0.05)

    async def _extract(self, step: S.ExtractStep) -> StepOutcome:
        if step.all:
            strategy, locator, count = await locate_all(self.page, step.target, purpose="any", timeout_s=step.timeout_s)
            value: Any = [patterns.extract(await self._readable(locator.nth(i), step), step.pattern) for i in range(count)]
            return StepOutcome(grounding={"strategy": strategy, "count": count}, output={step.into: value})
        found = await locate(self.page, step.target, purpose="any", timeout_s=step.timeout_s)
        value = patterns.extract(await self._readable(found.locator, step), step.pattern)
        return StepOutcome(grounding=found.record(), output={step.into: value})

    async def _readable(self, locator, step: S.ExtractStep) -> str:
        """The element's text or value, unless it holds a vault value: a field a secret was typed
        into, a password field, or any text with a whole secret in it. Refused before any pattern
        runs, so no pattern can take a secret out piece by piece."""
        if await locator.evaluate(_HOLDS_SECRET_JS):
            raise StepError(f"extract cannot read {step.target.describe()}: it is a password field or holds a "
                            "value typed from the vault, and secrets never leave the vault")
        value = await _value(locator, step.attribute)
        if self.env.secrets.holds_secret(value):
            raise StepError(f"extract cannot read {step.target.describe()}: its text contains a secret from the "
                            "vault, and secrets never leave the vault")
        return value


_HOLDS_SECRET_JS = (f"el => el.hasAttribute('{MASK_ATTR}') || "
                    "(el.tagName === 'INPUT' && (el.type || '').toLowerCase() === 'password')")


async def _none() -> None:
    return None


async def _value(locator, attribute: str) -> str:
    if attribute == "value":
        return await locator.input_value()
    return (await locator.inner_text()).strip()



def _first_line(exc: Exception) -> str:
    return (str(exc).splitlines() or [type(exc).__name__])[0]


# Fields whose value a keystroke can finish: text-like inputs and text areas.
_TYPES_BY_KEY_JS = """el => {
  const t = (el.getAttribute('type') || 'text').toLowerCase();
  return el.tagName === 'TEXTAREA'
    || (el.tagName === 'INPUT' && ['text', 'email', 'password', 'search', 'tel', 'url'].includes(t));
}"""


async def _fill_as_typed(locator, value: str, *, timeout_s: float) -> None:
    """Fill the field, then type its last character as a key press: apps that react to keys (a
    slug made from a title on keyup, a search that suggests as you type) see what a person's
    typing makes them see. An empty value, one ending in a control character, and fields that
    take a whole value (number, date, colour, an editable region) are filled at once."""
    last = value[-1:]
    if not last or not last.isprintable() or not await locator.evaluate(_TYPES_BY_KEY_JS):
        await locator.fill(value, timeout=timeout_s * 1000)
        return
    await locator.fill(value[:-1], timeout=timeout_s * 1000)
    await locator.press_sequentially(last, timeout=timeout_s * 1000)
