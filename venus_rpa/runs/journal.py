"""The database side of the action journal and of atomic completion (see workers.journal).

`JournalingRecorder` is mixed into the worker's `DjangoRecorder`: it needs its `run_id`,
`secrets` and `_db` (the recorder's own database thread, so writes stay in order with steps).
"""

from __future__ import annotations

import json
import logging

from django.db import transaction
from django.utils import timezone

from venus_rpa.automations.crypto import encrypt_fields
from venus_rpa.runs.events import apublish_run_event, step_event
from venus_rpa.runs.models import ACTIVE, TERMINAL, ActionStatus, Run, RunAction, RunStatus, Step
from venus_rpa.runs.services import cancel_reason, run_finish
from workers.journal import ActionEntry, Superseded
from workers.runner import RunResult, StepRecord

log = logging.getLogger(__name__)


class JournalingRecorder:
    run_id: int
    # The run's attempt this execution was given when it took the run. A late heartbeat can let the sweep
    # retry (attempt + 1) or end a run this execution still holds: intents, heartbeats and the finish are
    # then refused (`Superseded`), so nothing is done or recorded twice. None: not fenced (tests, benchmarks).
    attempt: int | None = None

    def _mine(self):
        """The run's row while it is still this execution's (active, on its attempt)."""
        runs = Run.objects.filter(pk=self.run_id)
        return runs if self.attempt is None else runs.filter(status__in=ACTIVE, attempt=self.attempt)

    def _fence(self) -> None:
        """Inside a transaction: lock the run's row, or raise `Superseded` if it is not this execution's any more."""
        if self._mine().select_for_update().values_list("pk", flat=True).first() is None:
            raise Superseded(self._superseded_reason())

    def _superseded_reason(self) -> str:
        row = Run.objects.filter(pk=self.run_id).values("status", "attempt").first() or {}
        if row.get("status") in TERMINAL:
            return (f"run {self.run_id} ended ({row['status']}) while this worker still ran attempt {self.attempt} "
                    "(its heartbeat was late); stopped here, doing nothing more")
        return (f"run {self.run_id} was retried as attempt {row.get('attempt')} while this worker still ran attempt "
                f"{self.attempt} (its heartbeat was late); stopped here, doing nothing more")

    async def action_intent(self, entry: ActionEntry) -> None:
        """Commit the intent before the action runs (an intent without done is in doubt)."""
        await self._db(self._save_intent, entry)

    def _save_intent(self, entry: ActionEntry) -> None:
        """Fenced: the intent is stored only while the run is this execution's (the row locked, so a
        sweep deciding about this run either sees the intent or is seen by it)."""
        with transaction.atomic():
            self._fence()
            attempt = Run.objects.filter(pk=self.run_id).values_list("attempt", flat=True).first() or 1
            RunAction.objects.update_or_create(run_id=self.run_id, position=entry.position, defaults={
                "attempt": attempt, "name": entry.name[:200], "kind": entry.kind, "status": ActionStatus.INTENT,
                "risk": self.secrets.scrub_data(entry.risk), "url_before": self.secrets.scrub(entry.url_before)[:2000],
                "url_after": "", "session": "", "intent_at": timezone.now(), "done_at": None,
            })

    async def action_done(self, entry: ActionEntry) -> None:
        """Commit the outcome with the session to resume from (encrypted: it holds cookies)."""
        await self._db(self._save_done, entry)

    def _save_done(self, entry: ActionEntry) -> None:
        session = ""
        if entry.status == "done":
            session = encrypt_fields({"data": json.dumps({"state": entry.storage_state, "output": entry.output})})
        RunAction.objects.filter(run_id=self.run_id, position=entry.position).update(
            status=ActionStatus.DONE if entry.status == "done" else ActionStatus.FAILED,
            url_after=entry.url_after[:2000], session=session, next_index=entry.next_index, done_at=timezone.now())

    # Set by the caller: the trace-level judges (venus_rpa.runs.judging), asked before the final
    # transaction so the run ends with their votes; they return the result with its verdict completed.
    judge = None
    # Set by the caller: the run's replay cache (venus_rpa.automations.replay); the paths the runtime
    # handed it are written in the final transaction, if the run's final verdict (judges included) verifies.
    replay = None

    async def finish(self, records: list[StepRecord], result: RunResult) -> None:
        """Ask the judges (when set), then store the final step records and the run's terminal state (and
        the replay cache's paths of a verified run) in one transaction."""
        if self.judge is not None:
            result = await self.judge(self, records, result)
        saved = await self._db(self._finish, records, result)
        for step in saved:
            await apublish_run_event(self.run_id, {"type": "run.step", "step": step_event(step)})

    def _scrub_verdict(self, verdict: dict) -> dict:
        """Page evidence loses fragments of secrets too; the judges' words are model text, scrubbed of
        whole values only (as thoughts are), so "pass" survives a password that contains it."""
        judged = {k: verdict[k] for k in ("judges", "look_reason") if k in verdict}
        rest = {k: v for k, v in verdict.items() if k not in judged}
        return {**self.secrets.scrub_data(rest), **self.secrets.scrub_data(judged, fragments=False)}

    def _finish(self, records: list[StepRecord], result: RunResult) -> list[Step]:
        scrub = self.secrets.scrub_data
        with transaction.atomic():
            try:
                self._fence()
            except Superseded as exc:  # another execution (or the sweep) has the run now: its end is theirs
                log.warning("not finishing run %s as %s: %s", self.run_id, result.status, exc)
                return []
            saved = [self._save_step(record) for record in records]
            if result.status == RunStatus.CANCELLED:  # asked to stop (services.run_cancel): by whom, how far it got
                result.reason = cancel_reason(run=Run.objects.get(pk=self.run_id), at=result.at)
            run_finish(run_id=self.run_id, status=result.status, reason=self.secrets.scrub(result.reason),
                       output=scrub(result.output), verdict=self._scrub_verdict(result.verdict))
            if self.replay is not None:
                self.replay.commit(status=result.status, verdict=result.verdict or {})
        return saved
