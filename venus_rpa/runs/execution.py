"""The worker side of a run: claim it, hand it to the runtime, record what happens.

`run_execute` (a queued run) and `run_resume` (a parked run whose person answered) are the
services the Celery tasks call. The runtime (workers/) knows nothing of Django; `DjangoRecorder`
is its bridge to the database, the live event stream and the review queue (the `ReviewPort` the
`reviews` app registers: `runs` does not import `reviews`).

Surfaces: the runner gets this process's hosts (`venus_rpa.runs.hosts`), one per surface it
serves; the web's browser pool, the model loop and the CAPTCHA gate are built once per worker
process in `venus_rpa.runs.process`; other surfaces register from their own apps.
"""

from __future__ import annotations

import asyncio
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone as dt_timezone

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import (DatabaseError, InterfaceError, OperationalError, close_old_connections, connection,
                       transaction)
from django.utils import timezone

from venus_rpa.automations.letter_case import site_letter_case, site_letter_case_add
from venus_rpa.automations.replay import replay_store_for
from venus_rpa.automations.sessions import login_sessions_for
from venus_rpa.runs.events import apublish_run_event, publish_run_changed, publish_run_event, step_event
from venus_rpa.runs.items import run_item_record, run_items_for_worker
from venus_rpa.runs.journal import JournalingRecorder
from venus_rpa.runs.judging import judge_with
from venus_rpa.runs.models import Run, RunStatus, Step
from venus_rpa.runs.ports import ReviewPort, review_port
from venus_rpa.runs.hosts import hosts
from venus_rpa.runs.process import agent_loop, captcha_gate
from venus_rpa.runs.recovery import run_resume_point
from venus_rpa.runs.services import (
    answer_key, cancel_reason, run_claim, run_finish, run_slot_release, run_status_set, secrets_for, spec_for,
)
from venus_rpa.runs.waits import run_continue, run_park, run_resume_claim
from workers.durable import Continuation, Parked
from workers.errors import StepError
from workers.gates.guard import SafetyGate
from workers.gates.review import ReviewDecision, ReviewQuestion
from workers.items import ItemRecord
from workers.journal import Resume, Superseded
from workers.loop import runtime_loop
from workers.run_state import StepRecord, scrub_record
from workers.runner import Runner
from workers.secrets import SecretBox, install_log_scrubbing, scrubbing_logs

log = logging.getLogger(__name__)
class DjangoRecorder(JournalingRecorder):
    """Stores steps and heartbeats of one run, journals its actions and carries its waits for a
    person. All ORM calls go through one thread of its own, in order, so the runtime loop never
    blocks on the database."""

    def __init__(self, run_id: int, *, secrets: SecretBox | None = None, reviews: ReviewPort | None = None,
                 hold_s: float | None = None, pending: dict | None = None, attempt: int | None = None) -> None:
        """`secrets`: the run's vault values; every string this recorder stores or publishes is
        scrubbed of them again here (the runtime scrubs first; this is the last door out).
        `reviews`: the review queue (the port `reviews` registers). `hold_s`: how long a wait
        keeps the run's thread before it parks (`workers.durable.Parked`). `pending`: the wait a
        resumed run was parked on; the wait point asking it again gets the answer at once.
        `attempt`: the run's attempt this execution took; heartbeats, intents and the finish are
        fenced by it (`JournalingRecorder.attempt`)."""
        self.run_id = run_id
        self.attempt = attempt
        self.secrets = secrets or SecretBox()
        self.reviews = reviews or review_port()
        self.hold_s = settings.VENUS_REVIEW_HOLD_SECONDS if hold_s is None else hold_s
        self.pending = pending
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"run-{run_id}-db")
        self._review_deadlines: dict[int, float] = {}

    async def _db(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self.pool, fn, *args)

    async def record_step(self, record: StepRecord) -> None:
        step = await self._db(self._save_step, record)
        await apublish_run_event(self.run_id, {"type": "run.step", "step": step_event(step)})

    def _save_step(self, record: StepRecord) -> Step:
        # Fenced (the run still this execution's) and a heartbeat in the same query.
        if not self._mine().update(heartbeat_at=timezone.now()) and self.attempt is not None:
            raise Superseded(self._superseded_reason())
        scrub_record(record, self.secrets)  # the same as the runtime does, once more: the last door out
        step = Step(
            run_id=self.run_id, index=record.index, kind=record.kind, name=record.name, status=record.status,
            error=record.error, action=record.action, grounding=record.grounding, output=record.output,
            url=record.url[:2000], act_ms=record.act_ms, observe_ms=record.observe_ms, model_ms=record.model_ms,
            thought=record.thought, model=record.model, item=record.item, called_in=record.called_in[:300],
            started_at=datetime.fromtimestamp(record.started_at, tz=dt_timezone.utc),
        )
        if record.screenshot:
            step.screenshot.save(f"run{self.run_id}-step{record.index}.jpg", ContentFile(record.screenshot), save=False)
        if record.screenshot_before:
            step.screenshot_before.save(f"run{self.run_id}-step{record.index}-before.jpg",
                                        ContentFile(record.screenshot_before), save=False)
        step.save()
        return step

    async def record_item(self, record: ItemRecord) -> None:
        """Store an item's new status (runs.items) and tell the run's live page."""
        record.error, record.output = self.secrets.scrub(record.error), self.secrets.scrub_data(record.output)
        await self._db(self._save_item, record)
        await apublish_run_event(self.run_id, {"type": "run.item", "item": {
            "number": record.number, "status": record.status, "error": record.error[:500]}})

    def _save_item(self, record: ItemRecord) -> None:
        with transaction.atomic():  # fenced: an item's status is the run's current execution's to write
            self._fence()
            run_item_record(run_id=self.run_id, record=record)

    async def heartbeat(self) -> bool:
        return await self._db(self._beat)

    def _beat(self) -> bool:
        if not self._mine().update(heartbeat_at=timezone.now()) and self.attempt is not None:
            raise Superseded(self._superseded_reason())
        return not Run.objects.filter(pk=self.run_id, cancel_requested_at__isnull=False).exists()

    async def _wait_signalled(self, key: str, check, deadline: float):
        """Wait until `check()` (run in the DB thread) returns something other than None, or the
        monotonic `deadline` passes (then None). A Redis BLPOP on `key` wakes the wait at once;
        the database is re-read after every wake-up and at least every 2 s, so a lost signal costs
        at most 2 s and Redis being down only slows the wait."""
        import redis.asyncio as aredis

        # Bounded socket reads: a connection lost without a reset cannot hold the wait (BLPOP's own
        # timeout is at most 2 s, well inside them).
        client = aredis.Redis.from_url(settings.REDIS_URL, socket_timeout=10, socket_connect_timeout=5)
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

    def _take_pending(self, kind: str) -> dict | None:
        pending = self.pending if self.pending and self.pending.get("kind") == kind else None
        if pending is not None:
            self.pending = None
        return pending

    # -- what sites' verdicts taught about their text CAPTCHAs: letter case, answers' format ----
    # (workers.captcha.site_memory; a store that fails only costs the learning, never the run)
    async def captcha_site(self, host: str) -> dict | None:
        try:
            return await self._db(lambda: site_letter_case(automation_id=self._automation_id(), host=host))
        except (DatabaseError, Run.DoesNotExist):
            log.warning("run %s: what the sites taught could not be read", self.run_id, exc_info=True)
            return None

    async def captcha_site_add(self, host: str, loglik: list | None, accepted: bool, answer: str = "",
                               applied: bool = False, kind: str | None = None) -> None:
        try:
            await self._db(lambda: site_letter_case_add(automation_id=self._automation_id(), host=host, loglik=loglik,
                                                        accepted=accepted, answer=answer, applied=applied, kind=kind,
                                                        fence=self._fence))
        except (DatabaseError, Superseded, Run.DoesNotExist):
            log.warning("run %s: a site's CAPTCHA verdict was not stored", self.run_id, exc_info=True)

    def _automation_id(self) -> int:
        if not hasattr(self, "_automation"):
            self._automation = Run.objects.values_list("automation_id", flat=True).get(pk=self.run_id)
        return self._automation

    # -- the agent's question (CallUser) ---------------------------------------------------
    async def ask_user(self, question: str) -> str:
        """Put the run in awaiting_user with the question; wait for the answer (in place for the
        hold window, then parked)."""
        question = self.secrets.scrub(question)
        if self._take_pending("answer") is not None:  # resumed: the answer is stored
            answer = await self._db(self._stored_answer)
            if not answer:
                raise StepError(f"nobody answered the agent's question: {question}")
        else:
            await self._db(self._set_question, question)
            await apublish_run_event(self.run_id, {"type": "run.status", "status": "awaiting_user", "question": question})
            deadline = time.monotonic() + settings.VENUS_ANSWER_TIMEOUT_SECONDS
            answer = await self._wait_signalled(answer_key(self.run_id), lambda: self._stored_answer() or None,
                                                min(deadline, time.monotonic() + self.hold_s))
            if answer is None and time.monotonic() < deadline:
                raise Parked({"kind": "answer", "question": question})
            if answer is None:
                raise StepError(
                    f"nobody answered the agent's question within {settings.VENUS_ANSWER_TIMEOUT_SECONDS:g}s: {question}")
        await self._db(self._resume)
        await apublish_run_event(self.run_id, {"type": "run.status", "status": "running"})
        return answer

    # -- CAPTCHA for a person --------------------------------------------------------------
    async def ask_captcha(self, *, kind: str, instruction: str, screenshot: bytes, width: int,
                          height: int, challenge: str = "") -> dict:
        """Open a `captcha` review with the widget's screenshot and wait for a person's answer.
        A resumed run uses the answer given while it was parked when the page shows the same
        challenge; a site that issued a new one on reload gets a new review."""
        pending = self._take_pending("captcha")
        if pending is not None:
            state = await self._db(self.reviews.get, int(pending["ref"]))
            if state.decision == "answered" and state.detail.get("challenge") == challenge:
                await self._db(self._set_status, RunStatus.RUNNING)
                return state.response
            if state.decision in ("expired", "cancelled", ""):
                await self._db(self.reviews.expire, state.id)
                raise StepError(f"nobody solved the CAPTCHA within {settings.VENUS_CAPTCHA_REVIEW_SECONDS:g}s")
            await self._db(self.reviews.note, state.id, {"stale": "the restored page showed a new challenge"})
        title = f"Solve a CAPTCHA ({kind.replace('_', ' ')})"
        detail = {"captcha_kind": kind, "instruction": self.secrets.scrub(instruction[:500]), "width": width,
                  "height": height, "challenge": self.secrets.scrub(challenge)[:1000]}
        review = await self._db(lambda: self.reviews.create_captcha(
            run_id=self.run_id, title=title, detail=detail, screenshot=screenshot,
            ttl_s=settings.VENUS_CAPTCHA_REVIEW_SECONDS))
        await self._db(self._set_status, RunStatus.AWAITING_USER)
        await apublish_run_event(self.run_id, {"type": "review.created", "review": review.id, "kind": "captcha"})

        def settled():  # the review once it is no longer pending
            fresh = self.reviews.get(review.id)
            return fresh if fresh.decision else None

        deadline = time.monotonic() + settings.VENUS_CAPTCHA_REVIEW_SECONDS
        try:
            outcome = await self._wait_signalled(self.reviews.key(review.id), settled,
                                                 min(deadline, time.monotonic() + self.hold_s))
        except asyncio.CancelledError:
            await self._db(self.reviews.cancel, review.id)
            raise
        if outcome is None and time.monotonic() < deadline:
            raise Parked({"kind": "captcha", "ref": str(review.id), "challenge": challenge})
        await self._db(self._set_status, RunStatus.RUNNING)
        if outcome is not None and outcome.decision == "answered":
            return outcome.response
        await self._db(self.reviews.expire, review.id)
        raise StepError(f"nobody solved the CAPTCHA within {settings.VENUS_CAPTCHA_REVIEW_SECONDS:g}s")

    # -- risky actions ---------------------------------------------------------------------
    async def open_review(self, question: ReviewQuestion) -> str:
        """File a `risky_action` review (marked screenshot, action, verdict, fingerprint, expiry)
        and put the run in awaiting_review. A resumed run gets back the review it was parked on
        while the decision still applies: always for a rejection or an expiry, and for an
        approval or an edit only on the page it was given for (same fingerprint)."""
        pending = self._take_pending("review")
        if pending is not None:
            state = await self._db(self.reviews.get, int(pending["ref"]))
            if state.decision not in ("approve", "edit") or state.fingerprint == question.fingerprint[:64]:
                self._review_deadlines[state.id] = time.monotonic() + max(
                    (state.expires_at - timezone.now()).total_seconds(), 0)
                return str(state.id)
            await self._db(self.reviews.note, state.id, {"superseded": "the page changed after the session was restored"})
        clean = self.secrets.scrub_data
        review = await self._db(lambda: self.reviews.create_risky(
            run_id=self.run_id, title=clean(question.description), detail=clean(question.detail()),
            screenshot=question.screenshot, ttl_s=question.timeout_s, action=question.action, verdict=clean(question.verdict),
            fingerprint=question.fingerprint))
        self._review_deadlines[review.id] = time.monotonic() + question.timeout_s
        await self._db(self._set_status, RunStatus.AWAITING_REVIEW)
        await apublish_run_event(self.run_id, {"type": "run.status", "status": "awaiting_review", "review": review.id})
        await apublish_run_event(self.run_id, {"type": "review.created", "review": review.id, "kind": "risky_action",
                                               "title": clean(question.description)[:300],
                                               "category": str(question.verdict.get("category", "")),
                                               "level": str(question.verdict.get("level", ""))})
        return str(review.id)

    async def wait_review(self, review: str, *, timeout_s: float | None) -> ReviewDecision | None:
        """Wait for the decision (see `_wait_signalled`). Returns None when `timeout_s` runs out
        first; "expired" once the review's expiry has passed."""
        review_id = int(review)
        expiry = self._review_deadlines.get(review_id, float("inf"))
        deadline = min(expiry, time.monotonic() + timeout_s if timeout_s is not None else float("inf"))

        def decided() -> ReviewDecision | None:
            decision = self._review_decision(review_id)
            if decision is None and time.monotonic() >= expiry and self.reviews.expire(review_id):
                decision = ReviewDecision("expired")
            return decision

        try:
            decision = await self._wait_signalled(self.reviews.key(review_id), decided, deadline)
        except asyncio.CancelledError:
            await self._db(self.reviews.cancel, review_id)
            raise
        if decision is not None:
            await self._db(self._set_status, RunStatus.RUNNING)
            await apublish_run_event(self.run_id, {"type": "run.status", "status": "running"})
        return decision

    def _review_decision(self, review_id: int) -> ReviewDecision | None:
        state = self.reviews.get(review_id)
        if state.decision not in ("approve", "reject", "edit", "expired", "cancelled"):
            return None
        return ReviewDecision(state.decision, comment=state.comment, action=state.edited_action or None,
                              decided_by=state.decided_by)

    async def note_review(self, review: str, facts: dict) -> None:
        await self._db(self.reviews.note, int(review), facts)
        await apublish_run_event(self.run_id, {"type": "review.updated", "review": int(review), **facts})

    def _set_status(self, status: str) -> None:
        run_status_set(run_id=self.run_id, status=status)

    def _set_question(self, question: str) -> None:
        Run.objects.filter(pk=self.run_id).update(
            status=RunStatus.AWAITING_USER, question=question, answer="", question_asked_at=timezone.now()
        )
        publish_run_changed(self.run_id)

    def _stored_answer(self) -> str:
        return Run.objects.filter(pk=self.run_id).values_list("answer", flat=True).first() or ""

    def _resume(self) -> None:
        if Run.objects.filter(pk=self.run_id, status__in=[RunStatus.AWAITING_USER, RunStatus.RUNNING]).update(
                status=RunStatus.RUNNING, question=""):
            publish_run_changed(self.run_id)

    async def close(self) -> None:
        await self._db(_close_connection)
        self.pool.shutdown(wait=False)


def _close_connection() -> None:
    # Resolve the connection proxy in the DB thread itself: it is per-thread.
    connection.close()


def build_runner() -> Runner:
    """The runner as workers use it: this process's hosts, model loop and every gate."""
    install_log_scrubbing()  # log lines written while a run is in progress lose its secrets
    return Runner(hosts(), heartbeat_s=settings.VENUS_HEARTBEAT_SECONDS, agent=agent_loop(),
                  captcha=captcha_gate(), safety=SafetyGate(hold_s=settings.VENUS_REVIEW_HOLD_SECONDS))


def run_execute(*, run_id: int) -> None:
    """Execute a queued run until it ends or parks. Safe to call twice: only a queued run is taken."""
    close_old_connections()
    run = run_claim(run_id=run_id)
    if run is None:
        log.info("run %s is not queued any more; nothing to do", run_id)
        return
    _drive(run, resume=None)


def run_resume(*, run_id: int) -> None:
    """Go on with a parked run whose person has answered (or whose wait expired). Safe to call
    twice: only a parked run is taken, once."""
    close_old_connections()
    claimed = run_resume_claim(run_id=run_id)
    if claimed is None:
        log.info("run %s is not parked any more; nothing to resume", run_id)
        return
    run, data = claimed
    try:
        resume = Continuation.from_json(data)
    except TypeError as exc:
        run_finish(run_id=run_id, status=RunStatus.FAILED, reason=f"could not resume the run: {exc}")
        return
    _drive(run, resume=resume)


def _drive(run: Run, *, resume: Continuation | None) -> None:
    """Run (or resume) `run` on this worker's runner and record how it ended or where it parked."""
    run_id = run.pk
    try:
        spec, secrets = spec_for(run=run), secrets_for(run=run)
    except Exception as exc:
        run_finish(run_id=run_id, status=RunStatus.FAILED, reason=f"could not prepare the run: {exc}")
        return
    runner = build_runner()
    retry: Resume | None = None
    if resume is None and run.attempt > 1:  # a retry after a lost worker: after its last done action
        retry = run_resume_point(run=run)
    sessions = login_sessions_for(run=run)  # persistent logins (automations.sessions)
    items = run_items_for_worker(run_id=run_id)  # with their statuses: done ones are never run again
    replay = replay_store_for(run=run)  # the version's replay cache (automations.replay)

    async def go():
        recorder = DjangoRecorder(run_id, secrets=secrets, pending=resume.wait if resume else None,
                                  attempt=run.attempt)
        recorder.judge = judge_with(run, spec)  # trace-level judges, when the automation names some
        recorder.replay = replay  # its paths land with the run's end, if the final verdict verifies
        try:
            return await runner.run(spec, params=run.params, secrets=secrets, recorder=recorder, resume=resume or retry,
                                    sessions=sessions, run_id=run_id, items=items, replay=replay)
        finally:
            await recorder.close()
            await sessions.close()
            await replay.close()

    try:
        result = runtime_loop.run(go())
    except (OperationalError, InterfaceError):
        # The database went away mid-run. Ending the run now could turn work already done into a
        # failure; its heartbeat stops, and the sweep retries it from its journal or fails it
        # with a reason once the database is back (venus_rpa.runs.recovery).
        log.warning("run %s lost its database; leaving it to the sweep", run_id, exc_info=True)
        return
    except Exception as exc:  # a bug: still end the run with a reason
        with scrubbing_logs(secrets):
            log.exception("run %s crashed", run_id)
        run_finish(run_id=run_id, status=RunStatus.FAILED,
                   reason=secrets.scrub(f"internal error: {type(exc).__name__}: {exc}"), attempt=run.attempt)
        return
    if result.status == "superseded":  # retried or ended elsewhere while this worker still ran it
        return
    if result.status == "parked" and result.continuation is not None:
        _park(run_id, result.continuation)
        return
    run_finish(run_id=run_id, status=result.status, reason=secrets.scrub(result.reason),
               output=secrets.scrub_data(result.output, fragments=True),
               verdict=secrets.scrub_data(result.verdict, fragments=True), attempt=run.attempt)


_WAIT_STATUS = {"review": RunStatus.AWAITING_REVIEW, "answer": RunStatus.AWAITING_USER, "captcha": RunStatus.AWAITING_USER}
_WAIT_REASON = {"review": "waiting for a reviewer's decision on review {ref}",
                "answer": "waiting for an answer to the agent's question",
                "captcha": "waiting for a person to solve the CAPTCHA of review {ref}"}


def _park(run_id: int, continuation: Continuation) -> None:
    """Store the continuation and end the task. A decision that was taken while the run was
    parking (its `run_continue` found nothing parked yet) is seen here, after the commit."""
    wait = continuation.wait
    kind, ref = wait["kind"], wait.get("ref")
    hold = settings.VENUS_REVIEW_HOLD_SECONDS
    kept = continuation.kept
    released = ("worker released; display {display} kept for the run".format(**kept) if "display" in kept
                else "worker released; device {serial} kept for the run".format(**kept) if "serial" in kept
                else "browser and worker released")
    reason = _WAIT_REASON[kind].format(ref=ref) + f"; parked after {hold:g}s ({released})"
    if not run_park(run_id=run_id, status=_WAIT_STATUS[kind], reason=reason, continuation=continuation.to_json(),
                    wait=kind, review_id=int(ref) if ref else None):
        # Cancelled while parking: end it here (nothing else would).
        run_finish(run_id=run_id, status=RunStatus.CANCELLED,
                   reason=cancel_reason(run=Run.objects.get(pk=run_id), waiting="waiting for a person"))
        return
    run_slot_release(run_id=run_id)  # its worker slot goes to the next waiting run (fair admission)
    publish_run_event(run_id, {"type": "run.status", "status": _WAIT_STATUS[kind], "parked": True, "reason": reason})
    if ref:
        settled = review_port().get(int(ref)).decision != ""
    else:
        settled = Run.objects.filter(pk=run_id).exclude(answer="").exists()
    if settled:
        run_continue(run_id=run_id)
