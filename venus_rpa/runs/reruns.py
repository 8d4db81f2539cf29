"""Retry and re-run: a new run of an automation with the parameters of an earlier one, linked to
it (`Run.retry_of`); and bulk cancel/retry with one result per run.

A run's params never hold a secret (credentials are referenced by name in the version and typed
by the worker; `params_validate` refuses templates in params), so copying them copies no secret.
The new run uses the automation's current version: params that no longer validate are refused
with the field that fails, and an archived automation is refused by `run_start`.
"""

from __future__ import annotations

from django.db import transaction

from venus_rpa.accounts.models import Workspace
from venus_rpa.audit.models import AuditAction
from venus_rpa.audit.services import audit_record
from venus_rpa.core.bulk import BulkResult, bulk_apply, bulk_ids_check
from venus_rpa.core.errors import Conflict, InvalidInput
from venus_rpa.runs.models import TERMINAL, Run, RunStatus, Trigger
from venus_rpa.runs.services import run_cancel, run_start

RETRYABLE = {RunStatus.FAILED, RunStatus.CANCELLED, RunStatus.TIMED_OUT}
NOT_FOUND = "No such run in this workspace."


def rerun_label(run: Run) -> str:
    """“Retry” for a run that did not succeed, “Re-run” for one that did."""
    return "Retry" if run.status in RETRYABLE else "Re-run"


def run_rerun(*, run: Run, user, trigger: str = Trigger.API) -> Run:
    """Start a new run of `run`'s automation with `run`'s parameters, linked to it. Only a run that
    has ended may be retried (failed, cancelled, timed out) or re-run (succeeded)."""
    if run.status not in TERMINAL:
        raise Conflict(f"Run #{run.pk} has not ended yet ({run.get_status_display()}); "
                       "only a finished run can be retried or re-run.")
    try:
        with transaction.atomic():
            new = run_start(automation=run.automation, params=run.params, user=user, trigger=trigger, retry_of=run)
            audit_record(workspace=run.workspace, actor=user, action=AuditAction.RUN_RETRIED,
                         automation=run.automation, version_number=new.version.number,
                         changes=[f"run #{new.pk} {'retries' if run.status in RETRYABLE else 're-runs'} run #{run.pk}"],
                         before={"run": run.pk, "status": run.status}, after={"run": new.pk})
    except InvalidInput as exc:
        fields = dict(exc.fields)
        names = ", ".join(k.removeprefix("params.") for k in fields) or "params"
        raise InvalidInput(f"Run #{run.pk}'s parameters no longer fit the automation's current version "
                           f"({names}). Start a new run with corrected values instead.", fields=fields) from None
    return new


def _runs(workspace: Workspace, ids: list[int]):
    return Run.objects.filter(workspace=workspace, pk__in=bulk_ids_check(ids)).select_related("automation", "version")


def runs_bulk_cancel(*, workspace: Workspace, ids: list[int], user) -> list[BulkResult]:
    """Cancel each run that has not ended; the others say why not."""

    def cancel(run: Run) -> BulkResult:
        with transaction.atomic():
            run = run_cancel(run=run)
            audit_record(workspace=workspace, actor=user, action=AuditAction.RUN_CANCELLED, automation=run.automation,
                         changes=[f"run #{run.pk} cancelled (bulk)"], before={"run": run.pk}, after={"status": run.status})
        stopping = "cancelled" if run.status == RunStatus.CANCELLED else "asked to stop"
        return BulkResult(run.pk, True, f"Run #{run.pk} {stopping}.")

    return bulk_apply(ids=ids, found=_runs(workspace, ids), act=cancel, not_found=NOT_FOUND)


def runs_bulk_retry(*, workspace: Workspace, ids: list[int], user, trigger: str = Trigger.API) -> list[BulkResult]:
    """Retry or re-run each finished run (see `run_rerun`); the others say why not."""

    def retry(run: Run) -> BulkResult:
        new = run_rerun(run=run, user=user, trigger=trigger)
        return BulkResult(run.pk, True, f"Run #{new.pk} started ({rerun_label(run).lower()} of #{run.pk}).",
                          new_run_id=new.pk)

    return bulk_apply(ids=ids, found=_runs(workspace, ids), act=retry, not_found=NOT_FOUND)
