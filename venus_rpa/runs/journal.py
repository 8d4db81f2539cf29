"""The database side of the action journal and of atomic completion (see workers.journal).

`JournalingRecorder` is mixed into the worker's `DjangoRecorder`: it needs its `run_id`,
`secrets` and `_db` (the recorder's own database thread, so writes stay in order with steps).
"""

from __future__ import annotations

import json

from django.db import transaction
from django.utils import timezone

from venus_rpa.automations.crypto import encrypt_fields
from venus_rpa.runs.events import apublish_run_event, step_event
from venus_rpa.runs.models import ActionStatus, RunAction, Step
from venus_rpa.runs.services import run_finish
from workers.journal import ActionEntry
from workers.runner import RunResult, StepRecord


class JournalingRecorder:
    run_id: int

    async def action_intent(self, entry: ActionEntry) -> None:
        """Commit the intent before the action runs (an intent without done is in doubt)."""
        await self._db(self._save_intent, entry)

    def _save_intent(self, entry: ActionEntry) -> None:
        from venus_rpa.runs.models import Run

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
            saved = [self._save_step(record) for record in records]
            run_finish(run_id=self.run_id, status=result.status, reason=self.secrets.scrub(result.reason),
                       output=scrub(result.output), verdict=self._scrub_verdict(result.verdict))
            if self.replay is not None:
                self.replay.commit(status=result.status, verdict=result.verdict or {})
        return saved
