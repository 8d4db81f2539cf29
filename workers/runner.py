"""The run loop: executes an automation's steps on an environment and reports every step.

Contract with the caller (the Celery task wires it to the database):
- `RunRecorder.record_step` receives each finished step; records are delivered in order from a
  background task, so database writes and event publishing overlap the next step's work.
- `RunRecorder.heartbeat` is called every `heartbeat_s`; returning False means "cancel".
- `Runner.run` always returns a `RunResult` with a terminal status and a reason; it raises
  only if the caller's own recorder fails.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import jsonschema

from workers import steps as S
from workers.agent import AgentLoop
from workers.envs.browser import BrowserHost
from workers.errors import ConfigurationError, EnvironmentLost, StepError
from workers.executor import ExplicitExecutor
from workers.secrets import SecretBox

log = logging.getLogger(__name__)
Status = Literal["succeeded", "failed", "cancelled", "timed_out"]


@dataclass
class StepRecord:
    index: int
    kind: str
    name: str
    action: dict[str, Any]
    status: Literal["succeeded", "failed"]
    error: str = ""
    grounding: dict[str, Any] = field(default_factory=dict)
    output: dict[str, Any] = field(default_factory=dict)
    screenshot: bytes | None = None
    url: str = ""
    started_at: float = 0.0
    act_ms: float = 0.0
    observe_ms: float = 0.0
    model_ms: float = 0.0
    thought: str = ""
    model: dict[str, Any] = field(default_factory=dict)


@dataclass
class RunResult:
    status: Status
    reason: str = ""
    output: dict[str, Any] = field(default_factory=dict)
    verdict: dict[str, Any] = field(default_factory=dict)


class RunRecorder(Protocol):
    async def record_step(self, record: StepRecord) -> None: ...

    async def heartbeat(self) -> bool: ...

    async def ask_user(self, question: str) -> str:
        """Put the run in awaiting_user and return the person's answer (raise StepError on expiry)."""
        ...


class _RecordPipe:
    """Delivers step records to the recorder in order, off the loop's critical path."""

    def __init__(self, recorder: RunRecorder) -> None:
        self.recorder = recorder
        self.queue: asyncio.Queue[StepRecord | None] = asyncio.Queue()
        self.task = asyncio.create_task(self._drain())

    async def _drain(self) -> None:
        while (record := await self.queue.get()) is not None:
            await self.recorder.record_step(record)

    def put(self, record: StepRecord) -> None:
        self.queue.put_nowait(record)

    async def close(self) -> None:
        self.queue.put_nowait(None)
        await self.task


def _scrub_output(value: Any, secrets: SecretBox) -> Any:
    """Extracted data never carries a secret value (e.g. reading back a password field)."""
    if isinstance(value, str):
        return secrets.scrub(value)
    if isinstance(value, dict):
        return {k: _scrub_output(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub_output(v, secrets) for v in value]
    return value


class _RunClock:
    """The run's time limit; extended by the time spent waiting for a person."""

    timeout: asyncio.Timeout | None = None

    def extend(self, seconds: float) -> None:
        if self.timeout is not None and self.timeout.when() is not None:
            self.timeout.reschedule(self.timeout.when() + seconds)


class _StepBudget:
    def __init__(self, seconds: float) -> None:
        self._deadline = time.monotonic() + seconds

    def deadline(self) -> float:
        return self._deadline

    def extend(self, seconds: float) -> None:
        self._deadline += seconds


class Runner:
    """Runs automations on browsers of one `BrowserHost`."""

    def __init__(self, host: BrowserHost, *, heartbeat_s: float = 5.0, agent: AgentLoop | None = None) -> None:
        self.host = host
        self.heartbeat_s = heartbeat_s
        self.agent = agent

    async def run(self, spec: S.AutomationSpec, *, params: dict[str, Any], secrets: SecretBox,
                  recorder: RunRecorder) -> RunResult:
        try:
            self._preflight(spec)
        except ConfigurationError as exc:
            return RunResult("failed", str(exc))
        secrets.default_domains = list(spec.allowed_domains)
        pipe = _RecordPipe(recorder)
        clock = _RunClock()
        work = asyncio.create_task(self._run_steps(spec, params, secrets, pipe, recorder, clock))
        beat = asyncio.create_task(self._heartbeat(recorder, work))
        try:
            async with asyncio.timeout(spec.limits.max_seconds) as clock.timeout:
                result = await work
        except asyncio.CancelledError:
            if beat.done() and beat.result() is False:
                result = RunResult("cancelled", "cancelled by user")
            else:
                raise
        except TimeoutError:
            result = RunResult("timed_out", f"run exceeded its time limit of {spec.limits.max_seconds:g}s")
        finally:
            beat.cancel()
            await pipe.close()
        result.reason = secrets.scrub(result.reason)
        return result

    def _preflight(self, spec: S.AutomationSpec) -> None:
        if spec.surface != "web":
            raise ConfigurationError(f"surface {spec.surface!r} has no executor on this worker yet")
        if self.agent is None and any(isinstance(step, S.AgentStep) for step in spec.steps):
            raise ConfigurationError(
                "agent steps need a model server: set VENUS_MODEL_URL (and VENUS_MODEL) to a vLLM OpenAI-compatible "
                "endpoint serving UI-Venus"
            )
        if len(spec.steps) > spec.limits.max_steps:
            raise ConfigurationError(f"{len(spec.steps)} steps exceed the limit of {spec.limits.max_steps}")

    async def _heartbeat(self, recorder: RunRecorder, work: asyncio.Task) -> bool:
        while not work.done():
            await asyncio.sleep(self.heartbeat_s)
            if not await recorder.heartbeat():
                work.cancel()
                return False
        return True

    async def _run_steps(self, spec: S.AutomationSpec, params: dict[str, Any], secrets: SecretBox,
                         pipe: _RecordPipe, recorder: RunRecorder, clock: "_RunClock") -> RunResult:
        env = await self.host.new_environment(allowed_domains=spec.allowed_domains, secrets=secrets)
        try:
            grounder = self.agent.ground if (self.agent and spec.model_grounding) else None
            executor = ExplicitExecutor(env, start_url=spec.start_url, grounder=grounder)
            steps: list = list(spec.steps)
            if spec.start_url:
                steps.insert(0, S.GotoStep(url=spec.start_url, name="Open the start URL"))
            output: dict[str, Any] = {}
            index = 0
            for step in steps:
                if isinstance(step, S.AgentStep):
                    records, error = await self._agent_step(index, step, params, secrets, env, pipe, recorder, clock)
                    index += records
                    label = step.name or "agent step"
                    if isinstance(error, dict):
                        output.update(error)
                        continue
                    return RunResult("failed", f"step {index - 1} ({label}): {error}", output)
                record = await self._one_step(index, step, params, secrets, executor, env)
                index += 1
                output.update(record.output)
                pipe.put(record)
                if record.status == "failed":
                    label = step.name or step.kind
                    return RunResult("failed", f"step {record.index} ({label}): {record.error}", output)
            return await self._verdict(spec, env, output)
        finally:
            await env.close()

    async def _agent_step(self, index: int, step: S.AgentStep, params, secrets: SecretBox, env, pipe: _RecordPipe,
                          recorder: RunRecorder, clock: "_RunClock") -> tuple[int, dict | str]:
        """Run one agent step; returns (records emitted, output dict or an error message)."""
        assert self.agent is not None
        emitted = [0]
        try:
            step = S.render_step(step, params)
        except (KeyError, ValueError) as exc:
            message = f"parameter {exc.args[0]!r} is not set" if isinstance(exc, KeyError) else str(exc)
            pipe.put(StepRecord(index, "agent", step.name, step.model_dump(exclude_none=True), "failed", error=message))
            return 1, message
        budget = _StepBudget(step.timeout_s)

        class Hooks:
            def emit(self, turn) -> None:
                pipe.put(StepRecord(
                    index + emitted[0], "agent", step.name or step.goal[:200], turn.action, turn.status,
                    error=secrets.scrub(turn.error), grounding=turn.grounding, screenshot=turn.observation.screenshot,
                    url=turn.observation.url, started_at=time.time(), act_ms=turn.act_ms, observe_ms=turn.observe_ms,
                    model_ms=turn.model_ms, thought=turn.thought, model=turn.model,
                ))
                emitted[0] += 1

            async def ask_user(self, question: str) -> str:
                started = time.monotonic()
                try:
                    return await recorder.ask_user(question)
                finally:
                    waited = time.monotonic() - started  # a person's time is not the run's budget
                    budget.extend(waited)
                    clock.extend(waited)

        try:
            output = await self.agent.run_step(step, env, Hooks(), deadline=budget.deadline,
                                               repeat_limit=step.repeat_limit)
        except (StepError, EnvironmentLost) as exc:
            if emitted[0] == 0:
                pipe.put(StepRecord(index, "agent", step.name or step.goal[:200], step.model_dump(exclude_none=True),
                                    "failed", error=secrets.scrub(str(exc)), started_at=time.time()))
                emitted[0] = 1
            return emitted[0], secrets.scrub(str(exc))
        return emitted[0], _scrub_output(output, secrets)

    async def _one_step(self, index, step, params, secrets: SecretBox, executor: ExplicitExecutor, env) -> StepRecord:
        started = time.time()
        t0 = time.perf_counter()
        try:
            step = S.render_step(step, params)
        except (KeyError, ValueError) as exc:
            error = f"parameter {exc.args[0]!r} is not set" if isinstance(exc, KeyError) else str(exc)
            return StepRecord(index, step.kind, step.name, step.model_dump(exclude_none=True), "failed",
                              error=error, started_at=started)
        record = StepRecord(index, step.kind, step.name, step.model_dump(exclude_none=True), "succeeded", started_at=started)
        try:
            outcome = await executor.run(step)
            record.grounding, record.output = outcome.grounding, _scrub_output(outcome.output, secrets)
        except (StepError, EnvironmentLost) as exc:
            record.status, record.error = "failed", secrets.scrub(str(exc))
        t1 = time.perf_counter()
        try:
            observation = await env.observe()
            record.screenshot, record.url = observation.screenshot, observation.url
        except (StepError, EnvironmentLost) as exc:
            if record.status == "succeeded":
                record.status, record.error = "failed", secrets.scrub(str(exc))
        t2 = time.perf_counter()
        record.act_ms, record.observe_ms = (t1 - t0) * 1000, (t2 - t1) * 1000
        return record

    async def _verdict(self, spec: S.AutomationSpec, env, output: dict[str, Any]) -> RunResult:
        """Check the success criteria on the final page; keep the evidence either way."""
        criteria = spec.success_criteria
        evidence: dict[str, Any] = {"url": env.page.url}
        failures: list[str] = []
        if criteria.url_contains:
            ok = criteria.url_contains in env.page.url
            evidence["url_contains"] = {"expected": criteria.url_contains, "ok": ok}
            if not ok:
                failures.append(f"URL {env.page.url!r} does not contain {criteria.url_contains!r}")
        if criteria.text_visible:
            count = await env.page.get_by_text(criteria.text_visible).filter(visible=True).count()
            evidence["text_visible"] = {"expected": criteria.text_visible, "ok": count > 0}
            if not count:
                failures.append(f"text {criteria.text_visible!r} is not visible on the final page")
        if criteria.output_valid and spec.output_schema:
            errors = sorted(jsonschema.Draft202012Validator(spec.output_schema).iter_errors(output), key=str)
            evidence["output_valid"] = {"ok": not errors, "errors": [e.message for e in errors[:10]]}
            if errors:
                failures.append(f"output does not match the output schema: {errors[0].message}")
        verdict = {"passed": not failures, "evidence": evidence}
        if failures:
            return RunResult("failed", "success criteria not met: " + "; ".join(failures), output, verdict)
        return RunResult("succeeded", "all steps done and success criteria met", output, verdict)
