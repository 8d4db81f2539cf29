"""The safety gate at run time: every explicit step and every UI-Venus action is classified on the
live page (one probe, `workers.gates.context`) before it runs.

`ActionGuard` (one per run) turns the rule layer's verdict into what happens:
- allow: the action runs; the verdict goes into the step record (`grounding["risk"]`).
- block: an explicit step fails with "blocked: <reason>". An agent's navigation outside the
  allowed domains goes back to the model as feedback (it can correct itself); any other block
  (R4, a blocked category) ends the agent step.
- review: a `risky_action` review is filed (screenshot with the target marked, the action in
  words, verdict, page fingerprint, expiry) and the run waits, its clock paused. The live browser
  session is kept for `hold_s`; a decision within it resumes in place. Past it the wait raises
  `workers.durable.Parked`: the runner saves the session and the run's position, and the run's
  task ends; the decision resumes it on any worker in a restored session (`workers.durable`),
  where this gate files the same question again and the recorder answers it with the decision
  already taken. Simple by design: a page reached by a form post is reopened with a GET, and what
  an agent typed is not retyped; the re-check below then sees the page as it is.
- approve: re-ground the target and re-check the page fingerprint. Same page: run it. Changed
  page: an explicit step is re-classified (and re-queued when still consequential); an agent gets
  "the screen changed" as feedback and re-plans. The approval is never applied blindly.
- reject or expiry: an explicit step fails with the comment (`on_reject="fail"`) or is skipped
  (`"skip"`); an agent gets the comment as feedback.
- edit: the edited action runs instead (still refused if the gate blocks it).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import TypeAdapter, ValidationError

from workers import actions as A
from workers import steps as S
from workers.durable import Parked
from workers.errors import StepError
from workers.gates.context import Probe, build_context, fingerprint
from workers.envs.review_page import FormView
from workers.gates.review import ReviewDecision, ReviewQuestion, describe_action, mark_screenshot, verdict_record
from workers.gates.safety import Verdict, action_fields, classify
from workers.gates.safety import commit
from workers.gates.safety.urls import host_of
from workers.policies.parser import format_action
from workers.egress import domain_allowed
from workers.secrets import SecretBox

MAX_ROUNDS = 4  # reviews of one action before "the page kept changing" ends it
STEP = TypeAdapter(S.Step)
# Actions that only look or move (every surface's, by name): not classified.
UNCHECKED = frozenset({"Scroll", "Swipe", "Wait", "GetUrl", "TakeNote", "Hover", "Finished", "CallUser", "Answer",
                       "GetScreenshot"})
EDITABLE_STEP = {"click": ["target"], "download": ["target"], "fill": ["value"], "select": ["option"], "check": ["checked"],
                 "upload": ["filename", "content"], "press": ["key"], "goto": ["url"]}
EDITABLE_ACTION = {"Type": ["content"], "Click": ["point"], "DoubleClick": ["point"], "Launch": ["url"],
                   "SelectOption": ["index"], "Hotkey": ["keys"], "LongPress": ["point"], "Drag": ["start", "end"]}


class GateRefused(StepError):
    """The gate refused the action (blocked, rejected, expired); `risk` is the step's record."""

    def __init__(self, message: str, risk: dict[str, Any]) -> None:
        super().__init__(message)
        self.risk = risk


class ActionSkipped(Exception):
    """A rejected explicit step under `on_reject="skip"`: not executed, the run goes on."""

    def __init__(self, risk: dict[str, Any]) -> None:
        super().__init__("skipped after rejection")
        self.risk = risk


@dataclass
class Checked:
    """An explicit step cleared to run: possibly edited, with its (re-grounded) target."""

    step: Any
    target: Any
    risk: dict[str, Any]
    box: dict[str, float] | None = None  # the target's box as the probe measured it


@dataclass(frozen=True)
class Carry:
    """An approved form commit whose result may be the act's own confirmation page (Django
    admin's "Go" with "Delete selected users", then "Yes, I'm sure"): the confirm control there is
    the same act, so the approval covers it. Only the next `steps_left` explicit steps on the same
    site, only a page that asks to confirm, only the same kind of act; a goto ends it."""

    category: str
    host: str
    steps_left: int
    facts: dict[str, Any]

    @classmethod
    def after(cls, verdict: Verdict, probe: Probe, facts: dict[str, Any]) -> "Carry | None":
        target = probe.target or {}
        if target.get("form_method") != "post" or commit.confirmation_step(probe.page_text, probe.dialog):
            return None  # not a form commit, or already the confirmation: nothing further to cover
        return cls(verdict.category, host_of(probe.url), 2, {k: facts.get(k) for k in ("id", "decision", "decided_by")})

    def covers(self, verdict: Verdict, probe: Probe) -> bool:
        """A confirm control of the same kind of act, or one whose act the rules cannot name (a
        bare "Yes, I'm sure"), on a page that asks to confirm, on the same site."""
        family = lambda c: "DEL" if c in ("DEL", "ACCT") else c  # noqa: E731 - deleting users or accounts is one act
        return (verdict.decision == "review" and family(verdict.category) in (family(self.category), "UNKNOWN")
                and not verdict.modifiers and host_of(probe.url) == self.host
                and commit.confirmation_step(probe.page_text, probe.dialog))


@dataclass
class Gated:
    """An agent action's fate: run `action` (maybe edited), or not (`feedback` for the model,
    or `error`, which ends the step)."""

    action: A.ActionModel | None
    risk: dict[str, Any] | None = None
    feedback: str = ""
    error: str = ""


class ReviewChannel(Protocol):
    """The recorder's review methods (see `workers.gates.review`) as the guard uses them."""

    async def open_review(self, question: ReviewQuestion) -> str: ...

    async def wait_review(self, review: str, *, timeout_s: float | None) -> ReviewDecision | None: ...

    async def note_review(self, review: str, facts: dict[str, Any]) -> None: ...


@dataclass
class ActionGuard:
    """One run's safety gate. `wait_for_person(awaitable, *budgets)` pauses the run's clock (and
    the given step budgets) while a person decides; past `hold_s` the wait parks the run
    (`workers.durable.Parked`). `resumed_review`: the review a resumed run was parked on."""

    settings: S.SafetySettings
    allowed_domains: list[str]
    secrets: SecretBox
    reviews: ReviewChannel
    wait_for_person: Callable[..., Awaitable[Any]]
    hold_s: float | None = 30.0  # None: hold the session until the decision (a surface that cannot park)
    step: dict[str, Any] = field(default_factory=dict)  # the step being gated, for the review item
    resumed_review: str = ""

    def __post_init__(self) -> None:
        # Approvals of this run by page, control and values (`ReviewQuestion.approval_key`).
        self._approved: dict[str, dict[str, Any]] = {}
        self._carry: Carry | None = None
        self._policy = self.settings.policy()  # the allowed domains travel in each action's context
        self._sign_in_policy = self.settings.policy(sign_in=True)
        self._sign_in_domains = [d for c in self.secrets.credentials.values()
                                 for d in (c.domains or self.secrets.default_domains)] if self.settings.credential_sign_in else []

    # -- judging --------------------------------------------------------------------------
    def judge(self, probe: Probe, fields: dict[str, Any], *, thought: str = "") -> Verdict:
        typed = str(fields.get("typed_text", ""))
        credential_domains = [d for match in S.SECRET_RE.finditer(typed)
                              for cred in [self.secrets.credentials.get(match.group(1))] if cred
                              for d in (cred.domains or self.secrets.default_domains)]
        ctx = build_context(probe, fields, allowed_domains=self.allowed_domains, credential_domains=credential_domains,
                            model_thought=thought)
        signing_in = self._sign_in_domains and domain_allowed(host_of(probe.url), self._sign_in_domains)
        return classify(ctx, self._sign_in_policy if signing_in else self._policy)

    def _risk(self, verdict: Verdict, probe: Probe | None, review: dict[str, Any]) -> dict[str, Any]:
        risk = _scrub(verdict_record(verdict, probe), self.secrets)
        return {**risk, "review": dict(review)} if review else risk

    # -- explicit steps -------------------------------------------------------------------
    async def check_step(self, env, step, target, *, reground: Callable[[Any], Awaitable[Any]]) -> Checked:
        """Clear an explicit step to run on `target` (a grounded element, a model point, or None for
        the focused element / a navigation). Raises GateRefused or ActionSkipped."""
        approved, review, risk = "", {}, {}
        carry, self._carry = self._carry, None
        if carry is not None and step.kind != "goto" and carry.steps_left > 0:  # a goto leaves the act
            self._carry = Carry(carry.category, carry.host, carry.steps_left - 1, carry.facts)
        for _ in range(MAX_ROUNDS):
            probe = await env.probe_step(step, target)
            fields = action_fields(step)
            verdict = self.judge(probe, fields)
            risk = self._risk(verdict, probe, review)
            if approved:
                if fingerprint(probe, _summary(fields)) == approved:
                    return Checked(step, target, risk, probe.box)
                review["rechecks"] = review.get("rechecks", 0) + 1
                risk = self._risk(verdict, probe, review)
            if verdict.decision == "allow":
                return Checked(step, target, risk, probe.box)
            if verdict.decision == "block":
                raise GateRefused(f"blocked: {verdict.reason}", risk)
            if not approved and self._carry is not None and self._carry.covers(verdict, probe):
                facts, self._carry = {**self._carry.facts, "covered": "the confirmation page of the act approved"}, None
                return Checked(step, target, self._risk(verdict, probe, facts), probe.box)
            question = await self._question(env, fields, probe, verdict, step.model_dump(mode="json", exclude_none=True),
                                            EDITABLE_STEP.get(step.kind, []), point=getattr(target, "point", None),
                                            box=await env.shown_box(target, probe), target=target)
            reused = self._approved.get(question.approval_key)
            if reused:  # approved once on this page, same control, same values: not asked again
                return Checked(step, target, self._risk(verdict, probe, {**review, **reused, "reused": True}), probe.box)
            decision, facts = await self._decide(question, ())
            review.update(facts)
            risk = self._risk(verdict, probe, review)
            if decision.decision == "approve":
                self._remember(question, facts)
                self._carry = Carry.after(verdict, probe, facts)
                approved, target = question.fingerprint, await reground(step)
                continue
            if decision.decision == "edit":
                return await self._edited_step(env, step, decision, reground, risk)
            if self.settings.on_reject == "skip":
                raise ActionSkipped(risk)
            raise GateRefused(_rejected(decision, question.description), risk)
        raise GateRefused("the page kept changing after approvals; the action was not done", risk)

    async def _edited_step(self, env, step, decision: ReviewDecision, reground, risk: dict) -> Checked:
        try:
            edited = STEP.validate_python({**step.model_dump(exclude_none=True), **(decision.action or {})})
        except ValidationError as exc:
            raise GateRefused(f"the edited action is invalid: {exc.errors()[0]['msg']}", risk) from None
        if edited.kind != step.kind:
            raise GateRefused("an edit may not change what kind of step this is", risk)
        target = await reground(edited)
        probe = await env.probe_step(edited, target)
        verdict = self.judge(probe, action_fields(edited))
        review = {**risk.get("review", {}), "edited": edited.model_dump(mode="json", exclude_none=True)}
        risk = self._risk(verdict, probe, review)
        if verdict.decision == "block":
            raise GateRefused(f"blocked: {verdict.reason}", risk)
        return Checked(edited, target, risk, probe.box)

    # -- agent actions --------------------------------------------------------------------
    async def check_action(self, env, action: A.ActionModel, *, thought: str = "", budgets: tuple = ()) -> Gated:
        """Clear one UI-Venus action (see the module docstring for what each outcome does)."""
        if action.type in UNCHECKED:
            return Gated(action)
        probe, point = await env.probe_action(action)
        fields = _agent_fields(action, probe)
        verdict = self.judge(probe, fields, thought=thought)
        risk = self._risk(verdict, probe, {})
        said = format_action(action)
        if verdict.decision == "allow":
            return Gated(action, risk)
        if verdict.decision == "block":
            if verdict.category == "NAV-OUT" and verdict.level != "R4":
                return Gated(None, risk, feedback=f"The action {said} was blocked: {verdict.reason}")
            return Gated(None, risk, error=f"blocked: {said}: {verdict.reason}")
        question = await self._question(env, fields, probe, verdict, action.model_dump(mode="json"),
                                        EDITABLE_ACTION.get(action.type, []), point=point, thought=thought)
        reused = self._approved.get(question.approval_key)
        if reused:  # approved once on this page, same control, same values: not asked again
            return Gated(action, self._risk(verdict, probe, {**reused, "reused": True}))
        decision, facts = await self._decide(question, budgets)
        risk = self._risk(verdict, probe, facts)
        if decision.decision == "approve":
            self._remember(question, facts)
            fresh, _ = await env.probe_action(action)
            if fingerprint(fresh, _summary(_agent_fields(action, fresh))) == question.fingerprint:
                return Gated(action, risk)
            return Gated(None, risk, feedback=f"The screen changed while {said} waited for a reviewer's approval, so it "
                                              "was not done. Look at the screen again before acting.")
        if decision.decision == "edit":
            return await self._edited_action(env, action, decision, risk)
        return Gated(None, risk, feedback=f"{_rejected(decision, said)}. It was not done; do not try it again.")

    async def _edited_action(self, env, action: A.ActionModel, decision: ReviewDecision, risk: dict) -> Gated:
        try:
            edited = A.parse_action({**action.model_dump(mode="json"), **(decision.action or {})},
                                    surface=env.action_space)
        except ValidationError as exc:
            return Gated(None, risk, feedback=f"A reviewer's edit of {format_action(action)} was invalid "
                                              f"({exc.errors()[0]['msg']}); the action was not done.")
        if edited.type not in UNCHECKED:
            probe, _ = await env.probe_action(edited)
            verdict = self.judge(probe, _agent_fields(edited, probe))
            if verdict.decision == "block":
                return Gated(None, risk, error=f"blocked: {format_action(edited)}: {verdict.reason}")
        risk = {**risk, "review": {**risk.get("review", {}), "edited": edited.model_dump(mode="json")}}
        return Gated(edited, risk, feedback=f"A reviewer replaced {format_action(action)} with {format_action(edited)}.")

    # -- the review -----------------------------------------------------------------------
    async def _question(self, env, fields: dict, probe: Probe, verdict: Verdict, action: dict, editable: list[str], *,
                        point=None, box: dict | None = None, thought: str = "", target: Any = None) -> ReviewQuestion:
        box = box or probe.box
        shot, form, full = await _review_view(env, target, box, point)
        if full is not None:
            box, point = full
        marked = {k: v for k, v in (probe.target or {}).items() if k in ("role", "name", "tag", "href")} or None
        if marked is not None and box:
            marked["rect"] = [box["x"], box["y"], box["width"], box["height"]]  # as marked on the screenshot
        if shot is not None:
            shot = mark_screenshot(shot, box=box if point is None else None, point=point)
        summary = _summary(fields)
        return ReviewQuestion(
            action=action, description="".join(f"{prefix}{self.step[key]}: " for key, prefix in
                                               (("item", ""), ("called_in", "in ")) if self.step.get(key))
            + describe_action(fields, probe),  # "item 7 of 25: in sign-in v2: Click …"
            verdict=_scrub(verdict.model_dump(mode="json"), self.secrets),
            fingerprint=fingerprint(probe, summary), url=probe.url, screenshot=shot, target=marked,
            step={**self.step, **({"thought": thought[:1000]} if thought else {})}, editable=editable,
            timeout_s=self.settings.review_timeout_s, form=form.fields, amounts=form.amounts, full_page=full is not None,
            approval_key=approval_key(probe, summary, form),
        )

    def new_iteration(self) -> None:
        """A repeat block begins another iteration (`workers.flow`): its acts are new acts, so
        nothing approved before counts for them (the same Send in the next iteration is asked again)."""
        self._approved.clear()
        self._carry = None

    def _remember(self, question: ReviewQuestion, facts: dict[str, Any]) -> None:
        """An approved action is not asked again on the same page (same control, same form values
        and amounts) in this run; any difference asks again."""
        self._approved[question.approval_key] = {k: facts.get(k) for k in ("id", "decision", "decided_by")}

    async def _decide(self, question: ReviewQuestion, budgets: tuple) -> tuple[ReviewDecision, dict]:
        """File the review and wait for the decision; past the hold window park the run."""
        started = time.monotonic()
        ref = await self.reviews.open_review(question)

        async def wait() -> ReviewDecision:
            decision = await self.reviews.wait_review(ref, timeout_s=self.hold_s)
            if decision is None:
                raise Parked({"kind": "review", "ref": ref, "fingerprint": question.fingerprint})
            return decision

        decision = await self.wait_for_person(wait(), *budgets)
        facts = {"id": ref, "decision": decision.decision, "decided_by": decision.decided_by, "comment": decision.comment,
                 "waited_ms": round((time.monotonic() - started) * 1000, 1),
                 "session": "restored" if ref == self.resumed_review else "kept"}
        return decision, facts


def _agent_fields(action: A.ActionModel, probe: Probe) -> dict[str, Any]:
    fields = action_fields(action)
    if isinstance(action, A.SelectOption):
        options = (probe.target or {}).get("options") or []
        fields["option"] = options[action.index] if action.index < len(options) else ""
    return fields


async def _review_view(env, target, box, point) -> tuple[bytes | None, FormView, tuple | None]:
    """The screenshot (full page where the surface can), the form and amounts, and the target's
    box and point in the screenshot's pixels when they moved (full page); viewport otherwise."""
    view = getattr(env, "review_view", None)  # web only; other surfaces show their screen
    try:
        if view is not None:
            shot, page_box, page_point, form = await view(target, box, point)
            return shot, form, (page_box, page_point)
        return (await env.observe()).screenshot, FormView(), None
    except StepError:
        return None, FormView(), None


def approval_key(probe: Probe, summary: str, form: FormView) -> str:
    """Same page, same control, same form values and amounts: what an approval covers in a run."""
    text = json.dumps([probe.url, probe.describe_target(), (probe.target or {}).get("href", ""), summary, form.fields, form.amounts],
                      sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _summary(fields: dict[str, Any]) -> str:
    return json.dumps(fields, sort_keys=True, default=str)


def _rejected(decision: ReviewDecision, what: str) -> str:
    if decision.decision == "expired":
        return f"the review of {what!r} expired without a decision (rejected)"
    if decision.decision == "cancelled":
        return f"the review of {what!r} was cancelled"
    who = f"reviewer {decision.decided_by}" if decision.decided_by else "a reviewer"
    return f"rejected by {who}: {what}" + (f" (comment: {decision.comment})" if decision.comment else "")


def _scrub(value: Any, secrets: SecretBox) -> Any:
    """A risk verdict describes the page in the gate's words: whole secret values are removed,
    fragments are not (they would garble ordinary words the reason quotes)."""
    return secrets.scrub_data(value, fragments=False)


@dataclass
class SafetyGate:
    """The worker's safety gate: `hold_s` is how long a run waiting for review keeps its thread and
    live browser session before it parks (`VENUS_REVIEW_HOLD_SECONDS`). `for_run` makes one
    run's `ActionGuard`."""

    hold_s: float = 30.0

    def for_run(self, *, spec: S.AutomationSpec, secrets: SecretBox, reviews: ReviewChannel,
                wait_for_person: Callable[..., Awaitable[Any]], resumed_review: str = "") -> ActionGuard:
        return ActionGuard(settings=spec.safety, allowed_domains=list(spec.allowed_domains), secrets=secrets,
                           reviews=reviews, wait_for_person=wait_for_person, hold_s=self.hold_s,
                           resumed_review=resumed_review)
