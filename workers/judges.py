"""Trace-level verification by judge models (issue 16): after the deterministic success criteria,
one or more OpenAI-compatible vision models read the whole trace — the goal, key screenshots, the
actions and the output — and vote pass or fail; a rule turns the votes into the panel's outcome.

Votes never change a run's status on their own: the criteria stay the deterministic verdict. When
the judges disagree with each other, with the criteria, or none of them could answer, the run is
marked **needs a look** with the reason, so a person decides — it is never hidden.

Rules:
- `unanimous`: pass only when every judge votes pass (an abstention is not a pass);
- `majority`: pass when more judges vote pass than fail (a tie is a fail);
- `any_fail`: fail as soon as one judge votes fail; abstentions are ignored.

The prompt is our own wording (`workers/policies/prompt_packs/judge.txt`), replaceable like the
navigation prompts (`VENUS_PROMPT_DIR/judge.txt`, slot `{goal}`). No Django here: the platform
builds the `Trace` from its records and stores what `judge_trace` returns.
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from workers.policies.client import ModelClient, Sampling
from workers.policies.prompts import load_prompt

Rule = Literal["unanimous", "majority", "any_fail"]
RULES: tuple[str, ...] = ("unanimous", "majority", "any_fail")
MAX_ACTIONS = 60  # actions listed in the judge's message (the first and the last ones when there are more)
MAX_OUTPUT_CHARS = 4000
_VERDICT = re.compile(r"\bverdict\s*[:=]\s*\**\s*(pass|fail)\b", re.IGNORECASE)
_REASON = re.compile(r"\breason\s*[:=]\s*(.+)", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class TraceAction:
    index: int
    kind: str
    name: str
    status: str
    detail: str = ""  # the target or the model's action text, secrets already masked
    url: str = ""


@dataclass
class Trace:
    """What a judge reads: secrets are masked by the caller (the records are stored scrubbed)."""

    goal: str
    actions: list[TraceAction]
    output: dict[str, Any]
    screenshots: list[bytes] = field(default_factory=list)  # key screenshots, oldest first (JPEG or PNG)
    criteria: dict[str, Any] = field(default_factory=dict)  # the deterministic verdict's evidence


@dataclass(frozen=True)
class Vote:
    judge: str
    vote: Literal["pass", "fail", "abstain"]
    reason: str
    latency_ms: float = 0.0

    def record(self) -> dict[str, Any]:
        return {"judge": self.judge, "vote": self.vote, "reason": self.reason[:500], "latency_ms": round(self.latency_ms, 1)}


def parse_vote(judge: str, text: str, latency_ms: float = 0.0) -> Vote:
    """`Verdict: pass|fail` (and `Reason: …`) anywhere in the answer; anything else abstains."""
    found = _VERDICT.findall(text or "")
    if not found or len({f.lower() for f in found}) > 1:
        return Vote(judge, "abstain", f"unreadable answer: {(text or '').strip()[:200]!r}", latency_ms)
    m = _REASON.search(text)
    reason = (m.group(1).strip().splitlines() or [""])[0][:500] if m else ""
    return Vote(judge, found[-1].lower(), reason, latency_ms)


def combine(votes: list[Vote], rule: Rule) -> Literal["pass", "fail"] | None:
    """The panel's outcome under `rule`, or None when no judge answered."""
    passes = sum(v.vote == "pass" for v in votes)
    fails = sum(v.vote == "fail" for v in votes)
    if passes + fails == 0:
        return None
    if rule == "unanimous":
        return "pass" if passes == len(votes) else "fail"
    if rule == "any_fail":
        return "fail" if fails else "pass"
    return "pass" if passes > fails else "fail"


def needs_a_look(votes: list[Vote], outcome: str | None, criteria_passed: bool) -> str:
    """Why a person should look at the run, or "" when criteria and judges agree."""
    passes = [v.judge for v in votes if v.vote == "pass"]
    fails = [v.judge for v in votes if v.vote == "fail"]
    if outcome is None:
        return "no judge could give a verdict"
    if passes and fails:
        return f"the judges disagree: {', '.join(passes)} pass, {', '.join(fails)} fail"
    if (outcome == "pass") != criteria_passed:
        said = "passed" if criteria_passed else "failed"
        return f"the success criteria {said} but the judges say {outcome}"
    if any(v.vote == "abstain" for v in votes):
        return "a judge could not give a verdict: " + ", ".join(v.judge for v in votes if v.vote == "abstain")
    return ""


def messages(trace: Trace, prompt_dir: str | None = None) -> tuple[list[dict[str, Any]], str]:
    """The judge's chat messages (system prompt, then the trace with its screenshots) and the
    prompt template's SHA-256."""
    prompt = load_prompt("judge", task=trace.goal, prompt_dir=prompt_dir)
    actions = trace.actions
    if len(actions) > MAX_ACTIONS:
        half = MAX_ACTIONS // 2
        actions = [*actions[:half], TraceAction(-1, "…", f"{len(trace.actions) - MAX_ACTIONS} actions left out", ""),
                   *actions[-half:]]
    lines = [f"{a.index + 1}. [{a.status}] {a.kind} {a.name}".rstrip() + (f" — {a.detail}" if a.detail else "")
             + (f" (at {a.url})" if a.url else "") for a in actions]
    output = json.dumps(trace.output, ensure_ascii=False, default=str)[:MAX_OUTPUT_CHARS]
    criteria = json.dumps(trace.criteria, ensure_ascii=False, default=str)[:1000]
    text = (f"Goal: {trace.goal}\n\nActions taken ({len(trace.actions)}):\n" + "\n".join(lines)
            + f"\n\nOutput: {output}\n\nDeterministic checks: {criteria}\n\n"
            f"Key screenshots follow, oldest first; the last one is the final screen.")
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    for shot in trace.screenshots:
        kind = "png" if shot[:8] == b"\x89PNG\r\n\x1a\n" else "jpeg"
        content.append({"type": "image_url", "image_url": {"url": f"data:image/{kind};base64," + base64.b64encode(shot).decode()}})
    return [{"role": "system", "content": prompt.text}, {"role": "user", "content": content}], prompt.sha256


async def ask(name: str, client: ModelClient, msgs: list[dict[str, Any]], sampling: Sampling) -> Vote:
    try:
        answer = await client.complete(msgs, sampling)
    except Exception as exc:  # noqa: BLE001 -- a judge that fails abstains, with the reason; the run goes on
        return Vote(name, "abstain", f"the judge did not answer: {type(exc).__name__}: {str(exc)[:200]}")
    return parse_vote(name, answer.content, answer.latency_ms)


async def judge_trace(trace: Trace, judges: dict[str, ModelClient | None], rule: Rule, *, criteria_passed: bool,
                      prompt_dir: str | None = None, sampling: Sampling | None = None) -> dict[str, Any]:
    """Ask every judge at once (a judge named but not configured abstains) and combine the votes."""
    if rule not in RULES:
        raise ValueError(f"unknown judge rule {rule!r}: one of {', '.join(RULES)}")
    msgs, sha = messages(trace, prompt_dir)
    sampling = sampling or Sampling(temperature=0.0, max_tokens=400)

    async def one(name: str, client: ModelClient | None) -> Vote:
        if client is None:
            return Vote(name, "abstain", f"no judge named {name!r} is configured on this platform (VENUS_JUDGES)")
        return await ask(name, client, msgs, sampling)

    votes = list(await asyncio.gather(*(one(name, client) for name, client in judges.items())))
    outcome = combine(votes, rule)
    look = needs_a_look(votes, outcome, criteria_passed)
    return {"rule": rule, "outcome": outcome, "votes": [v.record() for v in votes], "prompt_sha256": sha,
            "needs_a_look": bool(look), "look_reason": look}
