"""`classify`: the rule layer's single entry point (reference §3 pipeline, step 2).

Order: the action type's judge produces findings (target label first, then dialog/form, address,
attribute hints); a link click also gets its destination judged; logins and credentials are
checked against the allowed and look-alike origins; modifiers raise the result (on-screen
injection, hidden or mislabelled targets, the model's own question); the policy maps the level to
allow / review / block. No network, no model; a decision takes well under a millisecond.
"""

from __future__ import annotations

import logging

from workers.gates.safety import commit, credentials_form, keys, labels, rules
from workers.gates.safety.context import ActionContext
from workers.gates.safety.injection import Injection, find_injections, mentions
from workers.gates.safety.policy import DEFAULT_POLICY, RAISING, SafetyPolicy
from workers.gates.safety.rules import ev, finding
from workers.gates.safety.text import norm
from workers.gates.safety.urls import BRANDS, host_of, in_scope, lookalike_of, resolve
from workers.gates.safety.values import amounts, personal_data
from workers.gates.safety.verdict import Evidence, Finding, Verdict, level_name, strongest
from workers.gates.safety.view import OBSERVE, View

log = logging.getLogger(__name__)
# Untrusted screen text read for injection, per source: bounds the cost of a huge page.
MAX_SCREEN_TEXT = 50_000
_JUDGES = {
    "click": rules.judge_click, "double_click": rules.judge_click, "submit": rules.judge_click, "drag": rules.judge_click,
    "type": keys.judge_type, "press_key": keys.judge_key, "hotkey": keys.judge_key, "select": rules.judge_select,
    "check": lambda v: [rules.judge_toggle(v, v.ctx.checked)], "upload": rules.judge_upload, "navigate": rules.judge_navigate,
    "launch_app": rules.judge_launch, "call_user": rules.judge_call_user,
    "shell": lambda v: [keys.judge_shell(v, v.ctx.typed_text)],
}


def classify(ctx: ActionContext, policy: SafetyPolicy | None = None) -> Verdict:
    """Judge one action before it runs. Never raises on odd input; an action it cannot read is
    R3 review (fail closed)."""
    policy = policy or DEFAULT_POLICY
    try:
        return _classify(ctx, policy)
    except Exception as exc:  # noqa: BLE001 - a rule bug must not let an action through unjudged
        log.exception("safety rules failed; failing closed")
        return Verdict(category="UNKNOWN", level="R3", decision="review",
                       reason=f"Cannot judge: the rule layer failed ({type(exc).__name__}). Held for review.",
                       evidence=[Evidence(signal="fail_closed.error", source="rules", text=type(exc).__name__)])


def _classify(ctx: ActionContext, policy: SafetyPolicy) -> Verdict:
    v = View.of(ctx, policy)
    findings = _judge(v)
    if ctx.action_type in ("click", "double_click", "submit") and v.kind == "link":
        findings += rules.link_destination(v)
    findings = [_check_origin(v, f) for f in findings]
    final = strongest(findings)
    assert final is not None  # noqa: S101 -- type narrowing: findings is never empty
    final = _commit_point(v, final)
    modifiers = _modify(v, final)
    return _decide(v, final, modifiers)


def _judge(v: View) -> list[Finding]:
    kind = v.ctx.action_type
    if kind in OBSERVE:
        return [finding("NONE", 0, "Only observes; nothing changes.")]
    if kind in ("back", "home", "right_click"):
        return [finding("NONE", 1, "Navigates back or opens a menu.")]
    if kind == "long_press":
        hold = v.label.startswith(("hold", "press and hold", "长按", "按住"))
        return rules.judge_click(v) if hold else [finding("NONE", 1, "Long-press selects or opens a menu.")]
    return _JUDGES[kind](v)


def _commit_point(v: View, f: Finding) -> Finding:
    """One review per consequential act (`commit`): a form holding card details is a payment
    commit whatever its submit says; a lead-in to a commit (a GET link or form, a control that
    opens a dialog, choosing an option, typing into a form) is not one."""
    committed = commit.form_commit(v) or _credential_submit(v, f)
    if committed and f.level < 3:
        f = finding(committed[0], 3, committed[1], *f.evidence, ev("commit.form", "form_fields", committed[1]))
        f = _check_origin(v, f)
    saved = commit.record_save(v, f)
    if saved:
        return finding("NONE", 2, saved, ev("commit.record_save", "form_fields", saved), *f.evidence)
    if f.level >= 2:
        why = commit.lead_in(v, f)
        if why:
            said = f"{f.category} {level_name(f.level)}" if f.category not in ("NONE", "UNKNOWN") else "its wording"
            return finding("NONE", 1, f"{why} (Read alone: {said}.)", ev("commit.lead_in", "target", why), *f.evidence)
    handed = commit.handed_over(v, f)
    if handed:  # the same verdict, its reason saying what the submit does
        return finding("SEND", 3, handed, *f.evidence, ev("commit.handed_over", "target", handed))
    return f


def _credential_submit(v: View, f: Finding) -> tuple[str, str] | None:
    """A button that submits a form with a filled password (sign-in, sign-up, password change),
    read from the form's fields in any language; never a control that dismisses or only shows."""
    t = v.ctx.target
    if (v.ctx.action_type not in ("click", "double_click", "submit") or t is None or v.kind != "button"
            or t.form_method.lower() not in ("post", "") or f.level < 1
            or any(e.signal == "label.dismiss" for e in f.evidence)):
        return None
    return credentials_form.reading(v.ctx.form_fields, t.input_type)


def _check_origin(v: View, f: Finding) -> Finding:
    """A sign-in on a site outside the allowed domains, or on a look-alike, is prohibited (R4)."""
    if f.category != "AUTH" or f.level != 3 or not v.host:
        return f
    if v.allowed and not in_scope(v.host, v.allowed):
        return finding("AUTH", 4, f"Signs in on {v.host}, outside the allowed domains ({', '.join(v.allowed)}).",
                       *f.evidence, ev("url.out_of_scope", "url", v.ctx.url))
    imitated = lookalike_of(v.host, v.allowed or BRANDS)
    if imitated:
        return finding("AUTH", 4, f"Signs in on {v.host}, a look-alike of {imitated}.", *f.evidence, ev("url.lookalike", "url", v.ctx.url))
    return f


def _sources(ctx: ActionContext) -> list[tuple[str, str]]:
    out = [("hidden_text", ctx.hidden_text), ("page_text", ctx.page_text), ("dialog_text", ctx.dialog_text),
           ("nearby_text", " | ".join(ctx.nearby_text)), ("page_title", ctx.page_title), ("window_title", ctx.window_title),
           ("url", ctx.url)]
    t = ctx.target
    if t is not None:
        out += [("target.aria_label", t.aria_label), ("target.name", t.name), ("target.text", t.text),
                ("target.content_desc", t.content_desc), *((f"target.attributes.{k}", val) for k, val in t.attributes.items())]
    return [(source, text[:MAX_SCREEN_TEXT]) for source, text in out]


def _related(v: View, inj: Injection, final: Finding) -> bool:
    """Does the action do what the injected text asks (or sit inside it)?"""
    if inj.source.startswith("target."):
        return True
    if inj.kind != "instruction":
        return False
    if inj.source == "dialog_text" and v.ctx.target is not None:
        return True
    ctx = v.ctx
    href = resolve(ctx.target.href, ctx.url) if ctx.target is not None and ctx.target.href else ""
    named = [label for _, label in v.labels] + [ctx.typed_text, ctx.option, ctx.file_name, ctx.destination_url, href,
                                                host_of(ctx.destination_url), host_of(href)]
    if any(mentions(inj.text, x) for x in named if x):
        return True
    asked = {h.category for h in labels.triggers_in(inj.text)}
    return final.category in asked


def _modify(v: View, final: Finding) -> list[str]:
    """Raise the finding in place for injection, hidden targets and the model's own doubts."""
    mods: list[str] = []
    observe = v.ctx.action_type in OBSERVE
    injections = find_injections(_sources(v.ctx))
    if any(e.signal == "injection.label_mismatch" for e in final.evidence):
        mods += ["label_mismatch", "injection"]
    if any(e.signal == "injection.fake_captcha" for e in final.evidence):
        mods.append("injection")
    if injections:
        if "injection" not in mods:
            mods.append("injection")
        if any(i.kind == "invisible_text" for i in injections):
            mods.append("invisible_text")
        related = any(_related(v, i, final) for i in injections)
        final.evidence += [ev(f"injection.{i.kind}", i.source, i.text) for i in injections[:2]]
        if not observe and related and final.level < 3:
            _raise(final, 3, "It does what text on the screen addressed to an AI agent asks.")
        elif not observe and 1 <= final.level < 3:
            _raise(final, final.level + 1, "The screen holds text addressed to an AI agent.")
    if v.ctx.target is not None and v.ctx.target.hidden and not observe:
        mods.append("hidden_target")
        final.evidence.append(ev("injection.hidden_target", "target.hidden", "not visible to a person"))
        _raise(final, 3, "The target is not visible to a person.")
    if v.ctx.action_type != "call_user" and v.ctx.model_asked and not observe:
        asked = labels.triggers_in(norm(v.ctx.model_asked))
        if asked and final.level < 3:
            mods.append("model_asked")
            final.evidence.append(ev("model_asked", "model_asked", v.ctx.model_asked))
            _raise(final, 3, f"The model itself asked whether to do this ({asked[0].text}).", category=asked[0].category)
    if v.ctx.action_type == "call_user":
        mods.append("model_asked")
    if v.ctx.action_type == "type" and personal_data(v.ctx.typed_text):
        mods.append("pii_in_value")
    return mods


def _raise(f: Finding, level: int, why: str, *, category: str | None = None) -> None:
    if level <= f.level:
        return
    if f.category in ("NONE", "UNKNOWN") or category:
        f.category = category or ("INJECT" if "AI agent" in why or "not visible" in why else f.category)
    f.level = min(level, 3)
    f.reason = f"{f.reason} {why}"


def _amount(v: View) -> float | None:
    for text in ([label for _, label in v.labels], [v.dialog], [v.nearby]):
        found = [a for t in text for a in amounts(t)]
        if found:
            return max(found)
    return None


def _decide(v: View, f: Finding, mods: list[str]) -> Verdict:
    policy, level, category = v.policy, f.level, f.category
    if level >= 4:
        decision, why = "block", "Prohibited (R4): blocked."
    elif category in policy.blocked:
        decision, why = "block", f"{category} is blocked for this automation."
    elif f.out_of_scope:
        decision = "block" if policy.block_nav_out else "review"
        why = "Blocked: outside the automation's scope." if policy.block_nav_out else "Held for review: outside the automation's scope."
    elif level == 3 and category not in ("UNKNOWN", "INJECT") and category not in policy.review_categories:
        decision, why = "allow", f"{category} does not need review in this automation."
    elif level == 3:
        approval = None if set(mods) & RAISING or category in ("UNKNOWN", "INJECT") else \
            policy.approval_for(category, v.around, _amount(v))
        if approval is not None:
            level, decision = 2, "allow"
            why = approval.words()
            mods = [*mods, "pre_approved"]
        else:
            decision, why = "review", "Held for review."
    else:
        decision, why = "allow", ""
    return Verdict(category=category, level=level_name(level), decision=decision, reason=f"{f.reason} {why}".strip(),
                   evidence=f.evidence[:8], modifiers=mods)
