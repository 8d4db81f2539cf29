"""The CAPTCHA gate: runs on every observation; when a challenge is on the page it is solved
before the loop goes on.

Route (reference: safety-and-captcha §6): detect → policy (handling on? an allowed domain? a
risk-scored third-party widget goes to a person only) → the automation's solver order, each
attempt acting like a person and then verifying (widget says passed, or the challenge is gone) →
a person through a `captcha` review. Every attempt is reported through `emit`.

A solver that is not sure abstains before acting (`Abstained`: the local solver's confidence is
under its kind's threshold, `workers/captcha/local.py:THRESHOLDS`): nothing is typed or dragged,
the attempt is reported with outcome `abstained` ("abstained: confidence 0.31 < 0.55"), and the
gate goes straight to the next route in the policy (the model, then a person) instead of
retrying the same challenge. A person's answer parks the run (`Parked`), so no worker is held.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import urlsplit

from workers.automation_settings import CaptchaPolicy
from workers.captcha import act
from workers.captcha.detect import LOCAL_KINDS, Widget, detect
from workers.captcha.site_memory import SiteMemory
from workers.durable import Parked
from workers.errors import StepError
from workers.egress import domain_allowed

log = logging.getLogger(__name__)
PASSED = re.compile(r"verified|success|passed|you are human|验证成功|验证通过|通过", re.I)
FAILED = re.compile(r"fail|try again|incorrect|wrong|not match|expired|失败|错误|重试", re.I)
EXPIRED = re.compile(r"expired|timed? ?out|过期|超时", re.I)  # a refusal that says nothing of the answer
TEXT_KINDS = {"ocr", "visual_reasoning"}


@dataclass
class CaptchaAttempt:
    """One solving attempt, for the trace."""

    kind: str
    solver: str
    attempt: int
    outcome: str  # passed | failed | unverified | error | abstained
    elapsed_ms: float
    detail: dict[str, Any] = field(default_factory=dict)
    screenshot: bytes | None = None
    url: str = ""


def moved_on(before: str, now: str) -> bool:
    """Whether the page at `now` is another page than the one at `before` (another site, or another
    path on it; the query and the fragment aside, since a form sent back with its error often
    differs only there). A multi-page flow with a challenge on each page shows a new challenge
    without a word on the last answer: the page having moved on is the word."""
    if not before or not now:
        return False
    a, b = urlsplit(before), urlsplit(now)
    return (a.hostname, a.port, a.path.rstrip("/")) != (b.hostname, b.port, b.path.rstrip("/"))


def fingerprint(url: str, widget: Widget) -> str:
    """Identifies one challenge: a new challenge has new images or a new instruction."""
    images = ",".join(sorted(i.get("src", "") for i in widget.images))
    return f"{url}|{widget.kind}|{widget.instruction[:200]}|{images}"


class CaptchaHooks(Protocol):
    def emit(self, attempt: CaptchaAttempt) -> None: ...

    async def ask_captcha(self, *, kind: str, instruction: str, screenshot: bytes, width: int,
                          height: int, challenge: str = "") -> dict[str, Any]:
        """A person's answer: {"text": ...} or {"clicks": [[x, y], ...]} in screenshot pixels.
        `challenge` identifies this challenge (`fingerprint`)."""
        ...


Solver = Callable[[Any, Widget], Awaitable[dict[str, Any]]]
LocalSolver = Callable[[Any, Widget, CaptchaPolicy], Awaitable[dict[str, Any]]]  # the policy: tries, letter case


class Abstained(Exception):  # noqa: N818 -- an outcome, not a failure of the code
    """A solver declines to answer: its confidence is below its kind's threshold. Raised before
    anything is done on the page; `detail` is what the solver read (for the step record)."""

    def __init__(self, confidence: float, threshold: float, detail: dict[str, Any] | None = None) -> None:
        self.confidence, self.threshold, self.detail = confidence, threshold, detail or {}
        beyond = " (no confidence is enough with this many tries)" if threshold > 1 else ""
        super().__init__(f"abstained: confidence {confidence:.2f} < {threshold:.2f}{beyond}")


class CaptchaGate:
    """Detects and routes CAPTCHAs. `local` and `model` are solver callables (env, widget) → detail
    dict, or None when that route is not available on this worker."""

    def __init__(self, *, local: LocalSolver | None, model: Solver | None) -> None:
        self.local = local
        self.model = model

    async def check(self, env, policy: CaptchaPolicy, *, allowed_domains: list[str], hooks: CaptchaHooks,
                    solved: set[str] | None = None) -> bool:
        """Solve the CAPTCHA on the page, if any. Returns True when the page had just refused an
        earlier answer (so the caller can re-submit what it submitted); raises StepError when the
        CAPTCHA cannot be solved. `solved` (per run) remembers challenges already answered and
        waiting for their form to be submitted, so they are not answered twice."""
        solved = solved if solved is not None else set()
        widget = await detect(env.page)
        memory: SiteMemory | None = getattr(hooks, "site_memory", None)
        if memory is not None and memory.pending is not None:  # a typed answer's verdict, seen on this page
            if widget is None:
                await memory.settle(accepted=True)  # the form went through
            elif fingerprint(env.page.url, widget) == memory.pending.challenge:
                pass  # the answered challenge, still waiting for its form's submit (an old alert says nothing)
            elif widget.rejected:
                await memory.settle(accepted=False)  # the form came back with a new challenge and an error
            elif moved_on(memory.pending.page, env.page.url):
                await memory.settle(accepted=True)  # the form went through to a page with a challenge of its own
            else:
                memory.drop()  # another challenge on the same page, and no word on the last one
        if widget is None:
            return False
        if fingerprint(env.page.url, widget) in solved or any(c["checked"] for c in widget.checkboxes):
            return False
        rejected = widget.rejected
        if not policy.enabled:
            raise StepError(f"a CAPTCHA ({widget.kind}) is on the page and this automation's CAPTCHA handling is off")
        host = urlsplit(env.page.url).hostname or ""
        authorised = bool(allowed_domains) and domain_allowed(host, allowed_domains)
        order = [s for s in policy.solvers if authorised or s == "human"]
        if widget.kind == "third_party":  # risk-scored widgets are never automated
            order = [s for s in order if s == "human"]
        attempt = 0
        abstained = ""
        for position, solver in enumerate(order):
            tries = 1 if solver == "human" else policy.max_attempts
            for _ in range(tries):
                if solver == "local" and (self.local is None or widget.kind not in LOCAL_KINDS):
                    break
                if solver == "model" and self.model is None:
                    break
                attempt += 1
                outcome = await self._attempt(env, widget, solver, attempt, hooks, policy, memory, host, authorised)
                if outcome == "abstained":
                    abstained = f"; the {solver} solver abstained"
                    # The same challenge would get the same answer: hand it on, or, when no
                    # route is left, ask the widget for a new challenge and try that one.
                    if self._usable(order[position + 1:]) or not await act.refresh(env.page, widget):
                        break
                if outcome in ("passed", "unverified"):
                    solved.add(fingerprint(env.page.url, widget))
                    return rejected
                fresh = await detect(env.page)
                if fresh is None:
                    return rejected
                widget = fresh
        reason = "no solver could be used" if attempt == 0 else f"not solved after {attempt} attempt(s){abstained}"
        raise StepError(f"CAPTCHA ({widget.kind}) on {host}: {reason}")

    def _usable(self, routes: list[str]) -> bool:
        """Whether any of `routes` can take a challenge on this worker."""
        return any(r == "human" or (r == "model" and self.model is not None) for r in routes)

    async def _attempt(self, env, widget: Widget, solver: str, attempt: int, hooks: CaptchaHooks,
                       policy: CaptchaPolicy, memory: SiteMemory | None = None, host: str = "",
                       authorised: bool = False) -> str:
        page = env.page
        started = time.perf_counter()
        before = await env.observe()
        detail: dict[str, Any] = {"widget": widget.record()}
        said = ""
        # A local text answer learns from the site's verdicts: the answers' format always, the
        # letter case where the automation leaves it "unknown" (workers/captcha/site_memory.py).
        # A person's typed answer, or the model's, teaches the format only.
        learning = memory is not None and solver == "local" and widget.kind == "ocr"
        try:
            if solver == "local":
                extra = {}
                if learning and memory is not None:
                    extra["site_format"] = await memory.format(host)
                    if policy.letter_case == "unknown":
                        extra["case_weights"] = await memory.weights(host)
                detail.update(await self.local(env, widget, policy, **extra))
            elif solver == "model":
                detail.update(await self.model(env, widget))
            else:
                detail.update(await self._human(env, widget, hooks))
            outcome, said = await self._verify(page, widget)
        except Abstained as exc:
            detail.update(exc.detail)
            detail.update({"abstained": str(exc).removeprefix("abstained: "), "confidence": round(exc.confidence, 3),
                           "threshold": exc.threshold, "error": str(exc)})
            outcome = "abstained"
        except StepError as exc:
            detail["error"] = str(exc)
            outcome = "error"
        except Parked:  # a person did not answer within the hold window: the run stops here
            raise
        except Exception as exc:  # a solver bug must not lose the run: record it and go on
            log.exception("CAPTCHA solver %s crashed", solver)
            detail["error"] = f"{type(exc).__name__}: {exc}"
            outcome = "error"
        typed = "".join(str(detail.pop("_typed", "")).split())  # a person's answer: learned from, not recorded
        if solver == "model":
            typed = "".join("".join(str(a.get("content", "")) for a in detail.get("actions", [])
                                    if isinstance(a, dict) and a.get("type") == "Type").split())
        if memory is not None and learning and detail.get("answer"):
            await self._learn(memory, env.page.url, widget, host, outcome, said, detail, str(detail["answer"]),
                              case=detail.get("letter_case") == "learned", applied=bool(detail.get("format_applied")),
                              kind=str(detail.get("read_as", "text")))
        elif memory is not None and solver in ("human", "model") and widget.kind == "ocr" and typed and host and \
                authorised and "local" in policy.solvers:  # only where the local route may answer
            await self._learn(memory, env.page.url, widget, host, outcome, said, detail, typed, kind=None)
        hooks.emit(CaptchaAttempt(widget.kind, solver, attempt, outcome, (time.perf_counter() - started) * 1000,
                                  detail, before.screenshot, page.url))
        return outcome

    @staticmethod
    async def _learn(memory: SiteMemory, url: str, widget: Widget, host: str, outcome: str, said: str,
                     detail: dict[str, Any], answer: str, *, case: bool = False, applied: bool = False,
                     kind: str | None = "text") -> None:
        """A typed text answer's verdict for what the site teaches (its answers' format, and its
        letter case where that was learned): the widget's at once when it gave one that is news
        (its status changed after the typing, and not "expired"), else the page's after the
        form's submit (`check`)."""
        if outcome not in ("passed", "failed", "unverified"):
            return
        memory.expect(host, float(detail.get("confidence", 0.0)), float(detail.get("confidence_any_case", 0.0)),
                      fingerprint(url, widget), answer=answer, case=case, applied=applied, kind=kind, page=url)
        if outcome == "unverified":
            return
        if said and (said == " ".join(widget.status) or EXPIRED.search(said)):
            memory.drop()  # an old word, or no word on the answer itself (the widget gone is one)
            return
        after = await memory.settle(accepted=outcome == "passed")
        if case:
            detail["letter_case_ignored_after"] = round(after or 0.0, 3)

    async def _verify(self, page, widget: Widget) -> tuple[str, str]:
        """(outcome, what the widget said). passed: the widget says so or is gone; failed: it
        says so or shows a new challenge; unverified: no verdict yet — the page checks the answer
        when its form is submitted (and a refusal is then seen on the next observation)."""
        srcs = {i.get("src") for i in widget.images}
        timeout_s = 2.5 if widget.kind == "oneclick_login" else 0.5
        deadline = time.monotonic() + timeout_s
        while True:
            now = await detect(page)
            if now is None:
                return "passed", ""
            said = " ".join(now.status)
            text = said or now.instruction
            if any(c["checked"] for c in now.checkboxes) and widget.kind == "oneclick_login":
                return "passed", said
            if now.status and PASSED.search(said):
                return "passed", said
            if now.status and FAILED.search(said):
                return "failed", said
            if srcs and {i.get("src") for i in now.images} - srcs and widget.kind not in TEXT_KINDS:
                return "failed", said  # the widget replaced the challenge
            if time.monotonic() >= deadline:
                if widget.kind == "oneclick_login" and not PASSED.search(text):
                    return "failed", said
                return "unverified", said
            await asyncio.sleep(0.1)

    async def _human(self, env, widget: Widget, hooks: CaptchaHooks) -> dict[str, Any]:
        """Show the widget to a person; replay their typed answer or clicks (two clicks = a drag)."""
        page = env.page
        shot, clip = await act.widget_shot(env, widget.rect, margin=8, quality=85)
        answer = await hooks.ask_captcha(kind=widget.kind, instruction=widget.instruction, screenshot=shot,
                                         width=round(clip["width"]), height=round(clip["height"]),
                                         challenge=fingerprint(page.url, widget))
        if answer.get("text"):
            if not widget.inputs:
                raise StepError("the person typed an answer but the CAPTCHA has no text field")
            await act.type_into(page, widget.inputs[0]["rect"], answer["text"])
            button = act.confirm_button(widget)
            if button:
                await page.mouse.click(*act.centre(button["rect"]))
            return {"replayed": "text", "_typed": answer["text"]}
        points = [(clip["x"] + x, clip["y"] + y) for x, y in answer.get("clicks", [])]
        if widget.kind in ("slider_puzzle", "drag_end", "image_rotation") and len(points) == 2:
            await act.human_drag(page, points[0], points[1])
            return {"replayed": "drag", "points": points}
        await act.click_points(page, points)
        button = act.confirm_button(widget)
        if button and widget.kind in ("icon_click", "text_click"):
            await page.mouse.click(*act.centre(button["rect"]))
        return {"replayed": "clicks", "points": points}
