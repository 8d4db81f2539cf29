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


@dataclass
class RunResult:
    status: Status
    reason: str = ""
    output: dict[str, Any] = field(default_factory=dict)
    verdict: dict[str, Any] = field(default_factory=dict)


class RunRecorder(Protocol):
    async def record_step(self, record: StepRecord) -> None: ...

    async def heartbeat(self) -> bool: ...


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


class Runner:
    """Runs automations on browsers of one `BrowserHost`."""

    def __init__(self, host: BrowserHost, *, heartbeat_s: float = 5.0) -> None:
        self.host = host
        self.heartbeat_s = heartbeat_s

    async def run(self, spec: S.AutomationSpec, *, params: dict[str, Any], secrets: SecretBox,
                  recorder: RunRecorder) -> RunResult:
        try:
            self._preflight(spec)
        except ConfigurationError as exc:
            return RunResult("failed", str(exc))
        secrets.default_domains = list(spec.allowed_domains)
        pipe = _RecordPipe(recorder)
        work = asyncio.create_task(self._run_steps(spec, params, secrets, pipe))
        beat = asyncio.create_task(self._heartbeat(recorder, work))
        try:
            async with asyncio.timeout(spec.limits.max_seconds):
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
        if any(isinstance(step, S.AgentStep) for step in spec.steps):
            raise ConfigurationError("agent steps need a model server: set VENUS_MODEL_URL")
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
                         pipe: _RecordPipe) -> RunResult:
        env = await self.host.new_environment(allowed_domains=spec.allowed_domains, secrets=secrets)
        try:
            executor = ExplicitExecutor(env, start_url=spec.start_url)
            steps: list = list(spec.steps)
            if spec.start_url:
                steps.insert(0, S.GotoStep(url=spec.start_url, name="Open the start URL"))
            output: dict[str, Any] = {}
            for index, step in enumerate(steps):
                record = await self._one_step(index, step, params, secrets, executor, env)
                output.update(record.output)
                pipe.put(record)
                if record.status == "failed":
                    label = step.name or step.kind
                    return RunResult("failed", f"step {index} ({label}): {record.error}", output)
            return await self._verdict(spec, env, output)
        finally:
            await env.close()

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
