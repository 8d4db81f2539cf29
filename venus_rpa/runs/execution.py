"""The worker side of a run: claim it, hand it to the runtime, record what happens.

`run_execute` is the one service the Celery task calls. The runtime (workers/) knows nothing
of Django; `DjangoRecorder` is its bridge to the database and the live event stream.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone as dt_timezone

from celery.signals import worker_process_shutdown, worker_shutdown
from django.conf import settings
from django.core.files.base import ContentFile
from django.db import close_old_connections, connection
from django.utils import timezone

from venus_rpa.runs.events import apublish_run_event
from venus_rpa.runs.models import Run, RunStatus, Step
from venus_rpa.runs.services import answer_key, run_claim, run_finish, secrets_for, spec_for
from workers.agent import AgentConfig, AgentLoop
from workers.captcha.gate import CaptchaGate
from workers.captcha.local import LocalCaptchaSolver
from workers.captcha.model import ModelCaptchaSolver
from workers.envs.browser import BrowserConfig
from workers.envs.pool import BrowserPool, PoolSettings
from workers.policies.client import ModelClient, ModelSettings, Sampling
from workers.errors import StepError
from workers.gates.guard import SafetyGate
from workers.gates.review import ReviewDecision, ReviewQuestion
from workers.loop import runtime_loop
from workers.runner import Runner, StepRecord
from workers.secrets import SecretBox, install_log_scrubbing, scrubbing_logs

log = logging.getLogger(__name__)
_host: BrowserPool | None = None


_agent: AgentLoop | None = None


def agent_loop() -> AgentLoop | None:
    """This worker process's UI-Venus loop (one pooled model client), or None without a model."""
    global _agent
    if not settings.VENUS_MODEL_URL:
        return None
    if _agent is None:
        client = ModelClient(ModelSettings(
            url=settings.VENUS_MODEL_URL, model=settings.VENUS_MODEL, api_key=settings.VENUS_API_KEY,
            timeout_s=settings.VENUS_MODEL_TIMEOUT, tries=settings.VENUS_MODEL_TRIES,
        ))
        _agent = AgentLoop(client, AgentConfig(
            history_images=settings.VENUS_HISTORY_IMAGES, max_pixels=settings.VENUS_MAX_PIXELS,
            sampling=Sampling(temperature=settings.VENUS_NAV_TEMPERATURE, max_tokens=settings.VENUS_NAV_MAX_TOKENS),
            prompt_dir=settings.VENUS_PROMPT_DIR or None,
        ))
    return _agent


_captcha: CaptchaGate | None = None


def captcha_gate() -> CaptchaGate:
    """This worker process's CAPTCHA gate: local solvers always, the model's CAPTCHA mode when a
    model server is configured, a person through the review queue."""
    global _captcha
    if _captcha is None:
        agent = agent_loop()
        model = ModelCaptchaSolver(agent.client, prompt_dir=settings.VENUS_PROMPT_DIR or None) if agent else None
        _captcha = CaptchaGate(local=LocalCaptchaSolver(), model=model)
    return _captcha


def browser_host() -> BrowserPool:
    """This worker process's browser pool (Chromium launched on first use, closed at exit)."""
    global _host
    if _host is None:
        _host = BrowserPool(
            BrowserConfig(executable_path=settings.VENUS_CHROMIUM_PATH, headless=settings.VENUS_HEADLESS,
                          egress_allow_private=tuple(settings.VENUS_EGRESS_ALLOW_PRIVATE)),
            PoolSettings(max_browsers=settings.VENUS_BROWSERS_PER_WORKER,
                         contexts_per_browser=settings.VENUS_CONTEXTS_PER_BROWSER,
                         recycle_after_runs=settings.VENUS_BROWSER_RECYCLE_RUNS,
                         memory_ceiling_mb=settings.VENUS_BROWSER_MEMORY_CEILING_MB,
                         crash_policy=settings.VENUS_BROWSER_CRASH_POLICY,
                         health_interval_s=settings.VENUS_BROWSER_HEALTH_SECONDS,
                         acquire_timeout_s=settings.VENUS_BROWSER_ACQUIRE_TIMEOUT_SECONDS,
                         idle_close_s=settings.VENUS_BROWSER_IDLE_CLOSE_SECONDS))
        atexit.register(browser_pool_close)
    return _host


@worker_shutdown.connect
@worker_process_shutdown.connect
def browser_pool_close(**_: object) -> None:
    """Close this process's browser pool (worker shutdown, interpreter exit); idempotent."""
    global _host
    pool, _host = _host, None
    if pool is not None:
        try:
            runtime_loop.run(asyncio.wait_for(pool.close(), 30))
        except Exception:  # shutting down: Chromium still dies with this process (workers.envs.chromium)
            log.warning("closing the browser pool failed", exc_info=True)


class DjangoRecorder:
    """Stores steps and heartbeats of one run. All ORM calls go through one thread of its own,
    in order, so the runtime loop never blocks on the database."""

    def __init__(self, run_id: int, *, secrets: SecretBox | None = None) -> None:
        """`secrets`: the run's vault values; every string this recorder stores or publishes is
        scrubbed of them again here (the runtime scrubs first; this is the last door out)."""
        self.run_id = run_id
        self.secrets = secrets or SecretBox()
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"run-{run_id}-db")
        self._review_deadlines: dict[int, float] = {}

    async def _db(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self.pool, fn, *args)

    async def record_step(self, record: StepRecord) -> None:
        step = await self._db(self._save_step, record)
        await apublish_run_event(self.run_id, {"type": "run.step", "step": step_event(step)})

    def _save_step(self, record: StepRecord) -> Step:
        clean = self.secrets.scrub_data  # the same fields as the runtime scrubs (`workers.runner._scrub_record`)
        record.grounding, record.output, record.model = clean(record.grounding), clean(record.output), clean(record.model)
        record.error, record.url, record.thought = clean(record.error), clean(record.url), clean(record.thought)
        if record.kind == "agent":
            record.action = clean(record.action)
        step = Step(
            run_id=self.run_id, index=record.index, kind=record.kind, name=record.name, status=record.status,
            error=record.error, action=record.action, grounding=record.grounding, output=record.output,
            url=record.url[:2000], act_ms=record.act_ms, observe_ms=record.observe_ms, model_ms=record.model_ms,
            thought=record.thought, model=record.model,
            started_at=datetime.fromtimestamp(record.started_at, tz=dt_timezone.utc),
        )
        if record.screenshot:
            step.screenshot.save(f"run{self.run_id}-step{record.index}.jpg", ContentFile(record.screenshot), save=False)
        step.save()
        Run.objects.filter(pk=self.run_id).update(heartbeat_at=timezone.now())
        return step

    async def heartbeat(self) -> bool:
        return await self._db(self._beat)

    def _beat(self) -> bool:
        Run.objects.filter(pk=self.run_id).update(heartbeat_at=timezone.now())
        return not Run.objects.filter(pk=self.run_id, cancel_requested_at__isnull=False).exists()

    async def _wait_signalled(self, key: str, check, deadline: float):
        """Wait until `check()` (run in the DB thread) returns something other than None, or the
        monotonic `deadline` passes (then None). A Redis BLPOP on `key` wakes the wait at once;
        the database is re-read after every wake-up and at least every 2 s, so a lost signal costs
        at most 2 s and Redis being down only slows the wait."""
        import redis.asyncio as aredis

        client = aredis.Redis.from_url(settings.REDIS_URL)
        try:
            while True:
                result = await self._db(check)
                if result is not None:
                    return result
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                try:
                    await client.blpop([key], timeout=min(2.0, max(remaining, 0.05)))
                except Exception:
                    log.warning("waiting on %s through Redis failed; polling the database", key, exc_info=True)
                    await asyncio.sleep(min(2.0, max(remaining, 0.05)))
        finally:
            await client.aclose()

    async def ask_user(self, question: str) -> str:
        """Put the run in awaiting_user with the question; wait for the answer."""
        question = self.secrets.scrub(question)
        await self._db(self._set_question, question)
        await apublish_run_event(self.run_id, {"type": "run.status", "status": "awaiting_user", "question": question})
        deadline = time.monotonic() + settings.VENUS_ANSWER_TIMEOUT_SECONDS
        answer = await self._wait_signalled(answer_key(self.run_id), lambda: self._stored_answer() or None, deadline)
        if answer is None:
            raise StepError(
                f"nobody answered the agent's question within {settings.VENUS_ANSWER_TIMEOUT_SECONDS:g}s: {question}")
        await self._db(self._resume)
        await apublish_run_event(self.run_id, {"type": "run.status", "status": "running"})
        return answer

    async def ask_captcha(self, *, kind: str, instruction: str, screenshot: bytes, width: int,
                          height: int) -> dict:
        """Open a `captcha` review with the widget's screenshot and wait for a person's answer."""
        from venus_rpa.reviews.models import ReviewKind, ReviewRequest, ReviewStatus
        from venus_rpa.reviews.services import review_create, review_expire, review_key

        title = f"Solve a CAPTCHA ({kind.replace('_', ' ')})"
        detail = {"captcha_kind": kind, "instruction": self.secrets.scrub(instruction[:500]), "width": width,
                  "height": height}
        review = await self._db(lambda: review_create(run_id=self.run_id, kind=ReviewKind.CAPTCHA, title=title,
                                                      detail=detail, screenshot=screenshot,
                                                      ttl_s=settings.VENUS_CAPTCHA_REVIEW_SECONDS))
        await self._db(self._set_status, RunStatus.AWAITING_USER)
        await apublish_run_event(self.run_id, {"type": "review.created", "review": review.pk, "kind": "captcha"})

        def settled():  # (status, response) once the review is no longer pending
            fresh = ReviewRequest.objects.get(pk=review.pk)
            return None if fresh.status == ReviewStatus.PENDING else (fresh.status, fresh.response)

        deadline = time.monotonic() + settings.VENUS_CAPTCHA_REVIEW_SECONDS
        try:
            outcome = await self._wait_signalled(review_key(review.pk), settled, deadline)
        except asyncio.CancelledError:
            await self._db(lambda: ReviewRequest.objects.filter(pk=review.pk, status=ReviewStatus.PENDING)
                           .update(status=ReviewStatus.CANCELLED))
            raise
        await self._db(self._set_status, RunStatus.RUNNING)
        if outcome is not None and outcome[0] == ReviewStatus.ANSWERED:
            return outcome[1]
        await self._db(lambda: review_expire(review_id=review.pk))
        raise StepError(f"nobody solved the CAPTCHA within {settings.VENUS_CAPTCHA_REVIEW_SECONDS:g}s")

    async def open_review(self, question: ReviewQuestion) -> str:
        """File a `risky_action` review (marked screenshot, action, verdict, fingerprint, expiry)
        and put the run in awaiting_review."""
        from venus_rpa.reviews.services import review_create_risky

        clean = self.secrets.scrub_data
        review = await self._db(lambda: review_create_risky(
            run_id=self.run_id, title=clean(question.description), detail=clean(question.detail()),
            screenshot=question.screenshot, ttl_s=question.timeout_s, action=question.action, verdict=clean(question.verdict),
            fingerprint=question.fingerprint))
        self._review_deadlines[review.pk] = time.monotonic() + question.timeout_s
        await self._db(self._set_status, RunStatus.AWAITING_REVIEW)
        await apublish_run_event(self.run_id, {"type": "run.status", "status": "awaiting_review", "review": review.pk})
        await apublish_run_event(self.run_id, {"type": "review.created", "review": review.pk, "kind": "risky_action",
                                               "title": review.title, "category": review.category, "level": review.level})
        return str(review.pk)

    async def wait_review(self, review: str, *, timeout_s: float | None) -> ReviewDecision | None:
        """Wait for the decision (see `_wait_signalled`). Returns None when `timeout_s` runs out
        first; "expired" once the review's expiry has passed."""
        from venus_rpa.reviews.services import review_cancel, review_expire, review_key

        review_id = int(review)
        expiry = self._review_deadlines.get(review_id, float("inf"))
        deadline = min(expiry, time.monotonic() + timeout_s if timeout_s is not None else float("inf"))

        def decided() -> ReviewDecision | None:
            decision = self._review_decision(review_id)
            if decision is None and time.monotonic() >= expiry and review_expire(review_id=review_id):
                decision = ReviewDecision("expired")
            return decision

        try:
            decision = await self._wait_signalled(review_key(review_id), decided, deadline)
        except asyncio.CancelledError:
            await self._db(lambda: review_cancel(review_id=review_id))
            raise
        if decision is not None:
            await self._db(self._set_status, RunStatus.RUNNING)
            await apublish_run_event(self.run_id, {"type": "run.status", "status": "running"})
        return decision

    def _review_decision(self, review_id: int) -> ReviewDecision | None:
        from venus_rpa.reviews.models import ReviewRequest, ReviewStatus

        review = ReviewRequest.objects.select_related("decided_by").get(pk=review_id)
        kinds = {ReviewStatus.APPROVED: "approve", ReviewStatus.REJECTED: "reject", ReviewStatus.EDITED: "edit",
                 ReviewStatus.EXPIRED: "expired", ReviewStatus.CANCELLED: "cancelled"}
        if review.status not in kinds:
            return None
        return ReviewDecision(kinds[review.status], comment=review.comment, action=review.edited_action or None,
                              decided_by=review.decided_by.username if review.decided_by else "")

    async def note_review(self, review: str, facts: dict) -> None:
        from venus_rpa.reviews.services import review_note

        await self._db(lambda: review_note(review_id=int(review), facts=facts))
        await apublish_run_event(self.run_id, {"type": "review.updated", "review": int(review), **facts})

    def _set_status(self, status: str) -> None:
        Run.objects.filter(pk=self.run_id, status__in=[RunStatus.RUNNING, RunStatus.AWAITING_USER,
                                                       RunStatus.AWAITING_REVIEW]).update(status=status)

    def _set_question(self, question: str) -> None:
        Run.objects.filter(pk=self.run_id).update(
            status=RunStatus.AWAITING_USER, question=question, answer="", question_asked_at=timezone.now()
        )

    def _stored_answer(self) -> str:
        return Run.objects.filter(pk=self.run_id).values_list("answer", flat=True).first() or ""

    def _resume(self) -> None:
        Run.objects.filter(pk=self.run_id, status=RunStatus.AWAITING_USER).update(status=RunStatus.RUNNING, question="")

    async def close(self) -> None:
        await self._db(_close_connection)
        self.pool.shutdown(wait=False)


def _close_connection() -> None:
    # Resolve the connection proxy in the DB thread itself: it is per-thread.
    connection.close()


def step_event(step: Step) -> dict:
    return {
        "index": step.index, "kind": step.kind, "name": step.name, "status": step.status, "error": step.error,
        "action": step.action, "grounding": step.grounding, "url": step.url, "thought": step.thought,
        "model": step.model,
        "screenshot": step.screenshot.url if step.screenshot else None,
        "timings": {"act_ms": round(step.act_ms, 1), "observe_ms": round(step.observe_ms, 1), "model_ms": round(step.model_ms, 1)},
    }


def build_runner() -> Runner:
    """The runner as workers use it: this process's browser, model loop and every gate."""
    install_log_scrubbing()  # log lines written while a run is in progress lose its secrets
    return Runner(browser_host(), heartbeat_s=settings.VENUS_HEARTBEAT_SECONDS, agent=agent_loop(),
                  captcha=captcha_gate(), safety=SafetyGate(hold_s=settings.VENUS_REVIEW_HOLD_SECONDS))


def run_execute(*, run_id: int) -> None:
    """Execute a queued run to a terminal state. Safe to call twice: only a queued run is taken."""
    close_old_connections()
    run = run_claim(run_id=run_id)
    if run is None:
        log.info("run %s is not queued any more; nothing to do", run_id)
        return
    try:
        spec, secrets = spec_for(run=run), secrets_for(run=run)
    except Exception as exc:
        run_finish(run_id=run_id, status=RunStatus.FAILED, reason=f"could not prepare the run: {exc}")
        return
    runner = build_runner()

    async def go():
        recorder = DjangoRecorder(run_id, secrets=secrets)
        try:
            return await runner.run(spec, params=run.params, secrets=secrets, recorder=recorder)
        finally:
            await recorder.close()

    try:
        result = runtime_loop.run(go())
    except Exception as exc:  # a bug or a lost database: still end the run with a reason
        with scrubbing_logs(secrets):
            log.exception("run %s crashed", run_id)
        run_finish(run_id=run_id, status=RunStatus.FAILED,
                   reason=secrets.scrub(f"internal error: {type(exc).__name__}: {exc}"))
        return
    run_finish(run_id=run_id, status=result.status, reason=secrets.scrub(result.reason),
               output=secrets.scrub_data(result.output), verdict=secrets.scrub_data(result.verdict))
