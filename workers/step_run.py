"""One explicit step of a run: rendered with the run's values, gated, executed on the host's
`StepExecutor`, observed, and recorded; its world-changing action journaled before and after
(`workers.journal`). The run loop (`workers.runner`) calls `explicit` for each explicit step,
`intend` just before a cleared click/press acts, and `refill` after a parked run's page is
restored."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from workers import steps as S
from workers.envs.base import StepExecutor
from workers.errors import EnvironmentLost, StepError
from workers.gates.guard import STEP, GateRefused
from workers.journal import ActionEntry, Superseded
from workers.run_state import RunFailed, RunState, StepRecord, scrub_output
from workers.templating import fill_error

log = logging.getLogger(__name__)


async def explicit(run: RunState, executor: StepExecutor, step, output: dict[str, Any]):
    """Run one explicit step; returns the step as done (a reviewer's edit, if any) or raises RunFailed."""
    run.acting, run.current_step = None, step
    record = await run.watched(step, _one_step(step, run, executor))
    record = run.emit(record)
    if record.status == "succeeded" and getattr(step, "append", False):  # extract with append: this page's items join the list
        before = output.get(step.into)
        value = record.output.get(step.into)
        output[step.into] = [*(before if isinstance(before, list) else [] if before is None else [before]),
                             *(value if isinstance(value, list) else [value])]
    else:
        output.update(record.output)
    if record.status == "failed":
        raise RunFailed(run.where(step), record.error, index=record.index)
    edited = record.grounding.get("risk", {}).get("review", {}).get("edited")
    return STEP.validate_python(edited) if edited else step

async def refill(run: RunState, executor: StepExecutor) -> None:
    """After a parked run's session is restored: set this page's fields again from the steps
    that set them (their values are typed anew; secrets revealed anew)."""
    guard, executor.guard = executor.guard, None  # these steps were cleared when they first ran
    try:
        for step in run.page_steps:
            if step.kind in ("fill", "select", "check", "upload"):
                await executor.run(S.render_step(step, run.context()))
    finally:
        executor.guard = guard

async def _one_step(step, run: RunState, executor: StepExecutor) -> StepRecord:
    secrets, env = run.secrets, run.env
    started = time.time()
    t0 = time.perf_counter()
    try:
        step = S.render_step(step, run.context())
    except (KeyError, ValueError) as exc:
        error = fill_error(exc)
        return StepRecord(0, step.kind, step.name, step.model_dump(exclude_none=True), "failed",
                          error=error, started_at=started)
    record = StepRecord(0, step.kind, step.name, step.model_dump(exclude_none=True), "succeeded",
                        started_at=started)
    if run.guard is not None:
        run.guard.step = {"index": run.next_index, "name": step.name, "kind": step.kind, **run.gate_facts()}
    try:
        outcome = await executor.run(step)
        record.grounding, record.output = outcome.grounding, scrub_output(outcome.output, secrets)
        record.screenshot_before = outcome.screenshot_before
    except (StepError, EnvironmentLost) as exc:
        record.status, record.error = "failed", secrets.scrub(str(exc))
        if isinstance(exc, GateRefused):
            record.grounding = {"risk": exc.risk}
    await _downloads(env, record)
    await _acted(run, record)
    t1 = time.perf_counter()
    try:
        observation = await env.observe()
        record.screenshot, record.url = observation.screenshot, observation.url
        if "box" in record.grounding and "viewport" not in record.grounding:  # the box's units (device px on a phone)
            record.grounding["viewport"] = {"width": observation.width, "height": observation.height}
    except (StepError, EnvironmentLost) as exc:
        if record.status == "succeeded":
            record.status, record.error = "failed", secrets.scrub(str(exc))
    t2 = time.perf_counter()
    waited = record.grounding.get("risk", {}).get("review", {}).get("waited_ms", 0)  # a person's time is not act time
    record.act_ms, record.observe_ms = max((t1 - t0) * 1000 - waited, 0), (t2 - t1) * 1000
    return record

async def _downloads(env, record: StepRecord) -> None:
    """Downloads the step started (a click on an export link): kept or refused, shown in its record."""
    files = getattr(env, "files", None)
    if files is None:
        return
    settled = await files.settle()
    if settled:
        record.grounding["downloads"] = settled


async def intend(run: RunState, step, risk: dict[str, Any]) -> None:
    """Journal the intent of a cleared click/press right before it acts (see workers.journal)."""
    intent = getattr(run.recorder, "action_intent", None)
    position = run.positions.get(id(run.current_step), -1)
    if intent is None or position < 0:
        return
    run.acting = ActionEntry(position, step.kind, step.name or step.kind, url_before=run.env.location(),
                             risk=risk)
    try:
        await intent(run.acting)
    except Superseded as exc:  # the run is another execution's now: stop before acting (no step handler may go on)
        run.superseded, run.acting = str(exc), None
        raise asyncio.CancelledError(str(exc)) from None

async def _acted(run: RunState, record: StepRecord) -> None:
    """Journal the outcome of the step's journaled action, with the session to resume from."""
    entry, run.acting = run.acting, None
    if entry is None:
        return
    run.last_action = entry
    entry.status = "done" if record.status == "succeeded" else "failed"
    if entry.status == "done":
        entry.url_after = run.env.location()
        try:
            entry.storage_state = await run.env.session_state()
        except Exception:  # an environment lost right after the action: done, with no session to resume in
            log.warning("could not save the session after %s", entry.name, exc_info=True)
        entry.output = run.secrets.scrub_data({**run.output, **record.output})
        entry.next_index = run.next_index + 1  # this step's record takes run.next_index
        run.last_done = entry
    await run.recorder.action_done(entry)
