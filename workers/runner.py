"""The run loop: executes an automation's steps on an environment and reports every step.
Its records and bookkeeping (step records, the recorder protocol, the run clock) are in
`workers.run_state`; one explicit step (render, gate, execute, observe, journal) in
`workers.step_run`.

Surfaces: the runner knows no surface. It takes a mapping surface -> `Host` (`workers.envs.base`:
the web's browser pool, the Android device leases, the desktop display pool) and runs an
automation on the host of its `surface`; a surface this worker has no host for fails the run at
once with a `ConfigurationError` reason. Everything it reads of the screen goes through the
`Environment` seam (`location()`, `text_visible()`, `session_state()`), explicit steps through
the host's `StepExecutor`, and the CAPTCHA gate runs only where the environment can read a page
(`captcha_detection`).

Contract with the caller (the Celery task wires it to the database):
- `RunRecorder.record_step` receives each finished step; records are delivered in order from a
  background task, so database writes and event publishing overlap the next step's work.
- `RunRecorder.heartbeat` is called every `heartbeat_s`; returning False means "cancel". It (and
  `action_intent`) raises `workers.journal.Superseded` when the run was taken from this execution:
  the run stops at once with status "superseded", and nothing more of it is recorded.
- A failure's reason names its step as the automation editor numbers it, with the repeat iteration
  under way (`workers.step_numbers`: "step 4 (Click Next), iteration 2 of at most 10: ..."), never
  by its trace record; a cancelled result says in `at` which step it stopped at, numbered so.
- `Runner.run` always returns a `RunResult` with a terminal status and a reason, or "parked"
  with a `Continuation` when a wait for a person outlasted the hold window (`workers.durable`);
  `Runner.run(..., resume=continuation)` goes on from there. It raises only if the caller's own
  recorder fails.
- Every wait is bounded: each read of a web page by `PAGE_READ_TIMEOUT_S` (`workers.envs.browser`:
  Playwright's own reads wait as long as a navigation the page started, e.g. a reload after an
  XHR), and each explicit step by its watchdog (`workers.run_state.step_watchdog_s`, a person's
  time not counted); past either the step fails with the reason and the run ends `failed`.
- Completion is atomic with the last step: the records of the final step onward are held and
  handed over with the result in one `RunRecorder.finish` call (when the recorder has one), so a
  worker lost after the work is done cannot leave the run unfinished with its output lost. A run
  that parks delivers its held records as usual (it has not finished).
- Actions that change the world (explicit click/press) are journaled before and after they run
  through the recorder's `action_intent` / `action_done` (`workers.journal`); `Runner.run(...,
  resume=Resume(...))` continues a retried run after its last done action, in the session saved
  with it. Both kinds of resume take one path: a `Resume` becomes a `Continuation` with no wait.
- With a `SafetyGate` (the worker always installs one), every acting explicit step and every
  UI-Venus action is classified on the live page before it runs (`workers.gates.guard`); the
  verdict is in the step record's `grounding["risk"]`, reviews go through the recorder's
  `open_review` / `wait_review` / `note_review` (`workers.gates.review`).
- With `replay` (`workers.replay.ReplayStore`, bound to the run's automation version), each agent
  step first follows its cached verified path without the model (`workers.replay`); once the run
  has succeeded with its success criteria passed, and before its result is handed over (so the
  next run finds it), the steps that reasoned a clean path save it there, replacing the old one. A failure to save is logged, never
  the run's outcome.
- With `sessions` (`workers.sign_in.LoginSessions`), an automation's sign-in block is skipped
  while its saved session is still signed in, and the session is saved after the block succeeds
  (`workers.sign_in.SignInBlock`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import replace
from collections.abc import Mapping
from typing import Any

from workers import flow as F, steps as S
from workers.agent import AgentLoop
from workers.captcha.gate import CaptchaGate
from workers.captcha.site_memory import SiteMemory
from workers.durable import Continuation, Parked
from workers.envs.base import Host, StepExecutor
from workers.errors import ConfigurationError, EnvironmentLost, StepError
from workers.gates.guard import STEP, SafetyGate
from workers.items import Item, failed_reason
from workers.journal import Resume, Superseded
from workers.lane_runner import LaneRunner
from workers.lanes import LaneParked
from workers.replay import CachedTurn, ReplayStore, StepReplay, replay_save, step_key, step_replay
from workers.secrets import SecretBox, scrubbing_logs
from workers.step_numbers import StepNumbers, before
from workers.step_run import explicit, intend, refill
from workers.sign_in import LoginSessions, SignInBlock, SignInFailed, sign_in_plan
from workers.step_judge import step_judge_looks
from workers.templating import fill_error
from workers.verdict import verdict

from workers.run_state import (RecordPipe, RunClock, RunFailed, RunRecorder, RunResult, RunState, StepBudget,
                               StepRecord, scrub_output)

log = logging.getLogger(__name__)


class Runner:
    """Runs automations on the environments of its hosts, one `Host` per surface it serves."""

    def __init__(self, hosts: Mapping[str, Host], *, heartbeat_s: float = 5.0, agent: AgentLoop | None = None,
                 captcha: CaptchaGate | None = None, safety: SafetyGate | None = None) -> None:
        """`hosts`: surface ("web", "android", "desktop") -> its Host; only the surfaces this
        worker serves. `safety`: the safety gate; without one (tests of other seams) actions are
        not classified."""
        self.hosts = dict(hosts)
        self.heartbeat_s = heartbeat_s
        self.agent = agent
        self.captcha = captcha
        self.safety = safety

    async def run(self, spec: S.AutomationSpec, *, params: dict[str, Any], secrets: SecretBox,
                  recorder: RunRecorder, resume: Continuation | Resume | None = None,
                  sessions: LoginSessions | None = None, run_id: int | None = None,
                  items: list[Item] | None = None, replay: ReplayStore | None = None) -> RunResult:
        """`resume`: a parked run's continuation (workers.durable), or where a retried run continues
        after its last done action (workers.journal). `sessions`: where sign-in sessions are kept
        (workers.sign_in); without it the sign-in block always runs. `run_id`: the platform's id
        of the run, for hosts that lease a device or display to it. `items`: the run's items with
        their statuses so far, for its `for_each` block (workers.items). `replay`: the replay cache of
        the run's automation version (workers.replay); without it every agent turn asks the model."""
        first_index = 0
        if isinstance(resume, Resume) and resume.from_start:
            first_index, resume = resume.next_index, None
        elif isinstance(resume, Resume):
            resume = Continuation(wait={}, position=resume.position, next_index=resume.next_index,
                                  output=dict(resume.output), session=resume.storage_state or {}, url=resume.url)
        try:
            self._preflight(spec)
        except ConfigurationError as exc:
            return RunResult("failed", str(exc))
        if F.for_each_block(spec.steps) is not None and not items:
            return RunResult("failed", "this automation works through items (a for_each block), but the run was "
                                       "given none: start it with a JSON array of items or a CSV/XLSX file")
        secrets.default_domains = list(spec.allowed_domains)
        with scrubbing_logs(secrets):
            return await self._run(spec, params, secrets, recorder, resume, sessions, run_id, items or [], replay,
                                   first_index)

    async def _run(self, spec: S.AutomationSpec, params: dict[str, Any], secrets: SecretBox,
                   recorder: RunRecorder, resume: Continuation | None,
                   sessions: LoginSessions | None = None, run_id: int | None = None,
                   items: list[Item] = (), replay: ReplayStore | None = None, first_index: int = 0) -> RunResult:
        run = RunState(spec, params, secrets, RecordPipe(recorder), recorder, RunClock(), sessions=sessions,
                       host=self.hosts[spec.surface], run_id=run_id, items=list(items), replay_store=replay,
                       next_index=first_index,
                       site_memory=SiteMemory(getattr(recorder, "captcha_site", None),
                                              getattr(recorder, "captcha_site_add", None)))
        work = asyncio.create_task(self._run_on_host(run, resume))
        beat = asyncio.create_task(self._heartbeat(run, work))
        result: RunResult | None = None
        limit = resume.remaining_s if resume is not None and resume.remaining_s is not None else spec.limits.max_seconds
        try:
            async with asyncio.timeout(limit) as run.clock.timeout:
                result = await work
        except Parked as parked:
            assert parked.continuation is not None  # noqa: S101 -- _run_steps always completes it
            when = run.clock.timeout.when() if run.clock.timeout is not None else None
            parked.continuation.remaining_s = max(when - asyncio.get_running_loop().time(), 1.0) if when else None
            result = RunResult("parked", f"waiting for a person ({parked.wait.get('kind')}); the run was parked",
                               continuation=parked.continuation)
        except asyncio.CancelledError:
            if run.superseded:  # fenced off (workers.journal): the run goes on, or ended, elsewhere
                log.warning("run %s stopped here: %s", run_id, run.superseded)
                result = RunResult("superseded", run.superseded)
            elif beat.done() and beat.result() is False:
                result = RunResult("cancelled", "cancelled by user", at=run.where() if run.at >= 0 else "")
            else:
                raise
        except TimeoutError:
            result = RunResult("timed_out", f"run exceeded its time limit of {spec.limits.max_seconds:g}s")
        finally:
            beat.cancel()
            if result is not None:
                result.reason = secrets.scrub(result.reason)
                result.output = secrets.scrub_data(result.output, fragments=True)
                step_judge_looks(result, run.step_looks)
                result.verdict = secrets.scrub_data(result.verdict, fragments=True)
                # A verified run caches its paths before it is finished: its next run finds them.
                if result.status == "succeeded" and (result.verdict or {}).get("passed"):
                    await replay_save(run.replay_store, run.replay_paths, run.secrets, run_id=run.run_id)
            await run.pipe.close(result)
        return result

    def _preflight(self, spec: S.AutomationSpec) -> None:
        if spec.surface not in self.hosts:
            served = ", ".join(sorted(self.hosts)) or "none"
            raise ConfigurationError(f"this worker cannot run {spec.surface!r} automations (it serves: {served}); "
                                     f"start a worker on the {spec.surface!r} queue (docs/surfaces.md)")
        if self.agent is None and any(isinstance(step, S.AgentStep) for step in F.plain_steps(spec.steps)):
            raise ConfigurationError(
                "agent steps need a model server: set VENUS_MODEL_URL (and VENUS_MODEL) to a vLLM OpenAI-compatible "
                "endpoint serving UI-Venus"
            )
        if len(F.plain_steps(spec.steps)) > spec.limits.max_steps:
            raise ConfigurationError(f"{len(F.plain_steps(spec.steps))} steps exceed the limit of {spec.limits.max_steps}")

    async def _heartbeat(self, run: RunState, work: asyncio.Task) -> bool:
        """Beat every `heartbeat_s` until the work ends; False (and the work cancelled) when the
        recorder says the run was cancelled or taken from this execution (`run.superseded`)."""
        while not work.done():
            await asyncio.sleep(self.heartbeat_s)
            try:
                going_on = await run.recorder.heartbeat()
            except Superseded as exc:
                run.superseded, going_on = str(exc), False
            if not going_on:
                work.cancel()
                return False
        return True

    async def _run_on_host(self, run: RunState, resume: Continuation | None) -> RunResult:
        """Run the steps; when the environment was lost under the run (a browser crash) and the
        host's crash policy says so, run them once more on a fresh one (the trace keeps the lost attempt). The new
        attempt goes on after the last action journaled as done (in the session saved with it), or
        from where this one started; it is not made when a journaled action was under way (it
        may or may not have taken effect) or the automation has agent steps (their actions are
        not journaled) -- the same rules as a retry after a lost worker (venus_rpa.runs.recovery)."""
        attempt, start = 0, resume
        while True:
            try:
                result = await self._run_steps(run, start)
            except EnvironmentLost as exc:  # nothing to start on (launch failed, no free slot, no device)
                return RunResult("failed", str(exc))
            if result.status != "failed" or not run.host.retry_after_crash(run.env, attempt=attempt):
                return result
            if (run.last_action is not None and run.last_action.status != "done") or any(
                    isinstance(step, S.AgentStep) for step in F.plain_steps(run.spec.steps)):
                return result
            attempt += 1
            log.warning("the environment of a run was lost (%s); running it again on a fresh one", result.reason)
            start = self._after_last_done(run, resume)
            run.page_steps, run.captchas_solved, run.guard = [], set(), None
            run.output.clear()  # the new attempt starts from the output saved with its starting point
            run.item = None

    @staticmethod
    def _after_last_done(run: RunState, resume: Continuation | None) -> Continuation | None:
        """Where a crash retry starts: after the run's last action journaled as done, else where the
        lost attempt started; the trace goes on after the lost attempt's records."""
        done = run.last_done
        if done is None:
            return replace(resume, next_index=run.next_index) if resume is not None else None
        return Continuation(wait={}, position=done.position + 1, next_index=run.next_index, output=dict(done.output),
                            session=done.storage_state or {}, url=done.url_after, loops=dict(run.loops))

    async def _run_steps(self, run: RunState, resume: Continuation | None) -> RunResult:
        spec = run.spec
        try:
            plan = sign_in_plan(spec, run.params, offset=1 if spec.start_url else 0)
        except ConfigurationError as exc:
            return RunResult("failed", str(exc))
        sign_in = SignInBlock(plan, sessions=run.sessions, allowed_domains=spec.allowed_domains,
                              emit=lambda **fields: run.emit(StepRecord(0, "sign_in", **{"status": "succeeded", **fields})))
        # A continuation holds the newer session of this same run: it wins over a saved sign-in
        # session, which is only loaded when there is none (a fresh run, or a retry saved without one).
        saved = await sign_in.load() if resume is None or not resume.session else None
        if resume is not None and saved is not None:
            resume = replace(resume, session=saved.state)
        kept = {"kept": resume.kept} if resume is not None and resume.kept else {}  # a desktop, a device
        run.env = env = await run.host.new_environment(
            allowed_domains=spec.allowed_domains, secrets=run.secrets,
            storage_state=saved.state if saved is not None and resume is None else None, run_id=run.run_id, **kept)
        output: dict[str, Any] = run.output
        if resume is not None:
            output.update(resume.output)
        opening = "Open the start URL" if spec.surface == "web" else "Start the app"  # app:NAME on a phone or desktop
        # Blocks flattened: a position is one integer (workers.flow).
        steps = F.compile_program(spec.steps, before=[S.GotoStep(url=spec.start_url, name=opening)] if spec.start_url else [])
        run.positions = {id(step): position for position, step in enumerate(steps)}
        run.numbers = StepNumbers(spec.steps, steps)
        position = 0
        try:
            if self.safety is not None:
                run.guard = self.safety.for_run(spec=spec, secrets=run.secrets, reviews=run.recorder,
                                                wait_for_person=run.wait_for_person,
                                                resumed_review=str((resume.wait if resume else {}).get("ref", "")))
            grounder = self.agent.ground if (self.agent and spec.model_grounding) else None
            executor = run.host.explicit_executor(env, start_url=spec.start_url, grounder=grounder, guard=run.guard)
            executor.before_act = lambda step, risk: intend(run, step, risk)
            agent_resume, flow = None, F.Flow(run, executor, steps)
            if resume is not None:
                position, agent_resume = resume.position, resume.agent
                run.loops = dict(resume.loops)
                run.step_looks = list(resume.step_looks)
                if not resume.wait and flow.inside_item(position):  # a lost worker or browser, mid-item
                    position = flow.abandon_item()
                flow.resume_item(position)  # before the page's fields are typed again: they may use the item
                run.item_output = dict(resume.item_output) if run.item is not None else {}
                run.at = position
                await self._restore(run, executor, resume)
            while position < len(steps):
                step, run.within, run.at = steps[position], flow.within[position], position
                try:
                    if isinstance(step, F.Op):
                        if step is flow.each and flow.lanes > 1 and run.item is None:
                            try:
                                await LaneRunner(self).run(run, flow, steps, grounder)
                            except LaneParked as lane:  # the run parks at that lane's step (workers.lanes)
                                position = lane.position
                                raise lane.parked from None
                        position = await flow.control(step, position)
                        continue
                    if position == len(steps) - 1:  # the last step's record and the result land together
                        run.pipe.hold = True
                    if position and agent_resume is None:  # the gate looks at every page the run has opened
                        await self.gate_and_replay(run, executor, run.page_steps, output)
                    if sign_in.starts(position) and agent_resume is None and await sign_in.still_signed_in(env):
                        position, run.page_steps = sign_in.plan.last + 1, []
                        continue
                    if isinstance(step, S.AgentStep):
                        output.update(await self._agent_step(run, step, agent_resume))
                        agent_resume, run.page_steps = None, []
                        if sign_in.ends(position):
                            await self._sign_in_save(run, sign_in, env)
                        position += 1
                        continue
                    await self.page_step(run, executor, step)
                    if sign_in.ends(position):
                        await self._sign_in_save(run, sign_in, env)
                    position += 1
                except RunFailed as exc:
                    if run.item is None:
                        raise
                    # A failed item ends its own iteration; the next item goes on (workers.items).
                    position = flow.item_failed(str(exc))
                    agent_resume, run.page_steps = None, []
            run.within, run.at = "", len(steps)
            await self.gate_and_replay(run, executor, run.page_steps, output)
            if any(item.status == "failed" for item in run.items):
                return RunResult("failed", failed_reason(run.items, {i.number: i.error for i in run.items}), output)
            return await verdict(spec, env, output, run.params)
        except RunFailed as exc:
            return RunResult("failed", str(exc), output)
        except Parked as parked:
            saved = await run.host.suspend(run.env)  # a lane's environment, when the run parked in one
            parked.continuation = Continuation(
                wait=parked.wait, position=position, next_index=run.next_index, output=output, loops=dict(run.loops),
                page_steps=[s.model_dump(mode="json", exclude_none=True) for s in run.page_steps],
                captchas_solved=sorted(run.captchas_solved),
                session=saved.session, session_storage=saved.extra, url=saved.location, agent=parked.agent,
                kept=saved.kept, item_output=run.secrets.scrub_data(run.item_output),
                replay={k: [t.to_json() for t in v] for k, v in run.replay_paths.items()},
                step_looks=list(run.step_looks))
            raise
        finally:
            await run.env.close()

    async def _restore(self, run: RunState, executor: StepExecutor, resume: Continuation) -> None:
        """Reopen a parked run's session (the host's `restore`: for the web a new context from the
        saved state, at the saved URL) and set this page's fields again from the steps that set them."""
        run.next_index, run.loops = resume.next_index, dict(resume.loops)
        run.captchas_solved = set(resume.captchas_solved)
        run.page_steps = [STEP.validate_python(s) for s in resume.page_steps]
        run.replay_paths = {k: [CachedTurn.from_json(t) for t in v] for k, v in resume.replay.items()}
        try:
            await run.host.restore(run.env, resume)
            if not resume.kept:  # a kept environment still shows what the run typed
                await refill(run, executor)
        except (StepError, EnvironmentLost) as exc:
            raise RunFailed(f"restoring the session {before(run.where())}", run.secrets.scrub(str(exc)),
                            index=run.next_index - 1) from None

    @staticmethod
    async def _sign_in_save(run: RunState, sign_in: SignInBlock, env) -> None:
        try:
            await sign_in.save(env)
        except SignInFailed as exc:
            raise RunFailed(f"the sign-in check after {run.where()}", str(exc), index=exc.index) from None

    @staticmethod
    async def page_step(state: RunState, executor: StepExecutor, step: S.Step) -> None:
        """One explicit step on `state`'s page (the run's, or a lane's). The steps that acted on the
        page so far are kept while it stays the same page: a CAPTCHA it refuses redoes them."""
        location_before = state.env.location()
        done = await explicit(state, executor, step, state.output)
        kept = [] if getattr(done, "append", False) else [done]  # a CAPTCHA replay must not append twice
        state.page_steps = [*state.page_steps, *kept] if state.env.location() == location_before else []

    async def gate_and_replay(self, run: RunState, executor: StepExecutor, page_steps: list,
                               output: dict[str, Any]) -> None:
        """Run the CAPTCHA gate; when the page has just refused a CAPTCHA answer (a form shown
        again with an error), solve the new challenge and redo this page's steps (fill, submit)."""
        for _ in range(run.spec.captcha.max_attempts):
            if not await self._captcha_gate(run) or not page_steps:
                return
            for step in page_steps:
                await explicit(run, executor, step, output)
        if await self._captcha_gate(run) and page_steps:
            raise RunFailed(f"the CAPTCHA {before(run.where())}",
                            f"the page refused the CAPTCHA answer {run.spec.captcha.max_attempts + 1} times",
                            index=run.next_index - 1)

    async def _captcha_gate(self, run: RunState, *budgets: "StepBudget") -> bool:
        """The CAPTCHA gate on the page now; True if it acted on it. `budgets`: those of the agent
        step under way, when the gate runs between its turns (they stop while a person solves, and
        a failure is that step's); without them the gate runs before the step under way."""
        if self.captcha is None or not run.env.captcha_detection:
            return False
        gate_started = time.time()

        class Hooks:
            site_memory = run.site_memory

            def emit(self, attempt) -> None:
                ok = attempt.outcome in ("passed", "unverified")
                run.emit(StepRecord(
                    0, "captcha", f"CAPTCHA {attempt.kind} via {attempt.solver}",
                    {"kind": attempt.kind, "solver": attempt.solver, "attempt": attempt.attempt,
                     "outcome": attempt.outcome},
                    "succeeded" if ok else "failed", error="" if ok else attempt.detail.get("error", attempt.outcome),
                    grounding=attempt.detail, screenshot=attempt.screenshot, url=attempt.url,
                    started_at=gate_started, act_ms=attempt.elapsed_ms,
                ))

            async def ask_captcha(self, **question) -> dict[str, Any]:
                return await run.wait_for_person(run.recorder.ask_captcha(**question), *budgets)

        try:
            return await self.captcha.check(run.env, run.spec.captcha, allowed_domains=run.spec.allowed_domains,
                                            hooks=Hooks(), solved=run.captchas_solved)
        except (StepError, EnvironmentLost) as exc:
            where = f"{run.where()}, its CAPTCHA" if budgets else f"the CAPTCHA {before(run.where())}"
            raise RunFailed(where, run.secrets.scrub(str(exc)), index=max(run.next_index - 1, 0)) from None

    async def _agent_step(self, run: RunState, step: S.AgentStep, resume: dict[str, Any] | None = None) -> dict[str, Any]:
        """Run one agent step; returns its output or raises RunFailed."""
        assert self.agent is not None  # noqa: S101 -- type narrowing: agent steps are refused without one
        label, where = step.name or "agent step", run.where(step)
        position = run.positions.get(id(step), -1)
        try:
            step = S.render_step(step, run.context())
        except (KeyError, ValueError) as exc:
            message = fill_error(exc)
            record = run.emit(StepRecord(0, "agent", step.name, step.model_dump(exclude_none=True), "failed",
                                         error=message, started_at=time.time()))
            raise RunFailed(where, message, index=record.index) from None
        budget = StepBudget((resume or {}).get("budget_s", step.timeout_s))
        runner = self
        emitted = [0]
        last_status = ["succeeded"]

        class Hooks:
            def emit(self, turn) -> None:
                emitted[0] += 1
                last_status[0] = turn.status
                files = getattr(run.env, "files", None)
                downloads = files.take_finished() if files is not None else []  # a turn that clicked an export
                record = run.emit(StepRecord(
                    0, "agent", step.name or step.goal[:200], turn.action, turn.status, error=turn.error,
                    grounding={**(turn.grounding or {}), **({"downloads": downloads} if downloads else {})}, screenshot=turn.observation.screenshot, url=turn.observation.url,
                    started_at=time.time(), act_ms=turn.act_ms, observe_ms=turn.observe_ms,
                    model_ms=turn.model_ms, thought=turn.thought, model=turn.model,
                ))
                looked = (turn.grounding or {}).get("judge") or {}
                if looked.get("needs_a_look"):  # surfaced on the run's verdict (step_judge_looks)
                    run.step_looks.append(f"step #{record.index}: {looked.get('look_reason', '')}")

            async def ask_user(self, question: str) -> str:
                return await run.wait_for_person(run.recorder.ask_user(question), budget)

            async def before_turn(self) -> bool:
                """Run the CAPTCHA gate; True if it acted on the page (a new screenshot is due)."""
                emitted_before = run.next_index
                await runner._captcha_gate(run, budget)
                return run.next_index != emitted_before

            async def before_action(self, action, *, thought: str = ""):
                if run.guard is None:
                    return None
                run.guard.step = {"index": run.next_index, "name": label, "kind": "agent", "goal": step.goal[:500],
                                 **run.gate_facts()}
                return await run.guard.check_action(run.env, action, thought=thought, budgets=(budget,))

        key = step_key(position, step.goal)
        saved_replay = (resume or {}).get("replay")
        replay = (StepReplay.from_json(saved_replay) if saved_replay
                  else await step_replay(run.replay_store, run.env, key, run_id=run.run_id))
        try:
            output = await self.agent.run_step(step, run.env, Hooks(), deadline=budget.deadline,
                                               repeat_limit=step.repeat_limit, resume=resume, replay=replay)
        except Parked as parked:
            if parked.agent is not None:
                parked.agent["budget_s"] = max(budget.deadline() - time.monotonic(), 1.0)
            raise
        except (StepError, EnvironmentLost) as exc:
            error = run.secrets.scrub(str(exc))
            if not emitted[0] or last_status[0] != "failed":  # the trace ends on the failure itself
                run.emit(StepRecord(0, "agent", step.name or step.goal[:200], step.model_dump(exclude_none=True),
                                    "failed", error=error, started_at=time.time()))
            raise RunFailed(where, error, index=run.next_index - 1) from None
        path = replay.path() if replay is not None else None
        if path:
            run.replay_paths[key] = path
        return scrub_output(output, run.secrets)

