"""Trace-level judges for finished runs (issue 16, docs/verification.md).

After the runner's deterministic verdict, the automation's judges (`success_criteria.judges`, names of
the platform's `VENUS_JUDGES`) read the stored trace — goal, actions, output, the last key
screenshots, all stored scrubbed — and vote (`workers.judges`). The votes land in `run.verdict["judges"]`;
a disagreement sets `run.verdict["needs_a_look"]` with its reason. The run's status stays the
criteria's: a judge never turns a failure into a success or the other way round on its own.

Who can do what: judge endpoints are set by the operator only (environment); an editor names
configured judges and a rule, never a URL, so an automation cannot send its trace anywhere else.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from django.conf import settings

from venus_rpa.core.judges import JudgeConfigError, configured_judges
from venus_rpa.runs.models import Run, Step
from workers.judges import Trace, TraceAction, judge_trace
from workers.policies.client import ModelClient
from workers.run_state import RunResult, StepRecord
from workers.step_judge import StepJudge
from workers.steps import AutomationSpec

log = logging.getLogger(__name__)


def trace_for(run: Run, spec: AutomationSpec, result: RunResult, pending: list[StepRecord]) -> Trace:
    """The stored steps (a parked run's earlier part included) and the final ones not stored yet."""
    stored = list(Step.objects.filter(run=run).exclude(index__in=[r.index for r in pending]).order_by("index"))
    rows = [(s.index, s.kind, s.name, s.status, _detail(s.action, s.error), s.url) for s in stored]
    rows += [(r.index, r.kind, r.name, r.status, _detail(r.action, r.error), r.url) for r in pending]
    actions = [TraceAction(index=i, kind=k, name=n, status=st, detail=d, url=(u or "")[:200]) for i, k, n, st, d, u in sorted(rows)]
    keep = max(0, settings.VENUS_JUDGE_SCREENSHOTS)
    shots = [r.screenshot for r in pending if r.screenshot][-keep:] if keep else []
    for s in reversed(stored):
        if len(shots) >= keep:
            break
        if s.screenshot:
            try:
                with s.screenshot.open("rb") as fh:
                    shots.insert(0, fh.read())
            except OSError:
                continue
    goal = spec.goal or run.version.automation.name
    return Trace(goal=goal, actions=actions, output=result.output, screenshots=shots,
                 criteria=(result.verdict or {}).get("evidence", {}))


def _detail(action: dict | None, error: str) -> str:
    """The target or the model's action text (stored scrubbed), short."""
    action = action or {}
    parts = [f"{k}={action[k]!r}" for k in ("target", "text", "value", "url", "option", "key") if action.get(k)]
    return ", ".join(parts)[:200] or error[:200]


def judge_with(run: Run, spec: AutomationSpec):
    """The recorder's `judge` for this run: None when the automation names no judges."""
    criteria = spec.success_criteria
    if not criteria.judges:
        return None

    async def judge(recorder, pending: list[StepRecord], result: RunResult) -> RunResult:
        if "passed" not in (result.verdict or {}):  # the run ended before its checks (a failed step, a timeout)
            return result
        try:
            trace = await recorder._db(trace_for, run, spec, result, pending)
            judged = await _vote(trace, criteria, passed=bool(result.verdict["passed"]))
            verdict = _looked(result.verdict, judged["look_reason"] if judged["needs_a_look"] else "")
            verdict["judges"] = judged
        except Exception as exc:  # noqa: BLE001 -- the judges never lose a run: their failure is the reason to look
            log.warning("run %s: judges failed", run.pk, exc_info=True)
            verdict = _looked(result.verdict, recorder.secrets.scrub(f"the judges could not run: {type(exc).__name__}: {exc}")[:300])
        result.verdict = verdict  # scrubbed on the way out (JournalingRecorder._scrub_verdict)
        return result

    return judge


def _looked(verdict: dict[str, Any], look: str) -> dict[str, Any]:
    """The verdict with the trace judges' reason to look added to the step judges' (if any)."""
    earlier = verdict.get("look_reason", "") if verdict.get("needs_a_look") else ""
    out = {**verdict, "needs_a_look": bool(look or earlier)}
    if look or earlier:
        out["look_reason"] = "; ".join(x for x in (look, earlier) if x)
    return out


def step_judge() -> StepJudge | None:
    """The agent loop's step judges (`VENUS_STEP_JUDGES`, names of the platform's judges), or None
    when the setting is empty: then nothing is ever sent. A name the platform does not offer (or a
    `VENUS_JUDGES` that cannot be read) is kept as an unavailable judge, recorded on every judged
    action, so the misconfiguration shows instead of silently judging nothing."""
    names = [n.strip() for n in (settings.VENUS_STEP_JUDGES or "").split(",") if n.strip()]
    if not names:
        return None
    try:
        offered = configured_judges()
    except JudgeConfigError as exc:
        offered = {}
        log.warning("step judges unavailable: %s", exc)
    timeout = max(settings.VENUS_STEP_JUDGE_TIMEOUT, 0.1)
    clients = {name: ModelClient(replace(offered[name], timeout_s=timeout, tries=1)) if name in offered else None
               for name in dict.fromkeys(names)}
    return StepJudge(clients, timeout_s=timeout, prompt_dir=settings.VENUS_PROMPT_DIR or None)


async def _vote(trace: Trace, criteria, *, passed: bool) -> dict[str, Any]:
    try:
        offered = configured_judges()
    except JudgeConfigError as exc:
        offered = {}
        log.warning("judges unavailable: %s", exc)
    clients = {name: ModelClient(replace(offered[name], timeout_s=settings.VENUS_JUDGE_TIMEOUT, tries=1)) if name in offered
               else None for name in criteria.judges}
    try:
        return await judge_trace(trace, clients, criteria.judge_rule, criteria_passed=passed,
                                 prompt_dir=settings.VENUS_PROMPT_DIR or None)
    finally:
        for client in clients.values():
            if client is not None:
                await client.aclose()
