"""Retry and re-run: a new run of an automation with the parameters of an earlier one, linked to
it (`Run.retry_of`); and bulk cancel/retry with one result per run.

A run's params never hold a secret (credentials are referenced by name in the version and typed
by the worker; `params_validate` refuses templates in params), so copying them copies no secret.
The new run uses the automation's current version: params that no longer validate are refused
with the field that fails, and an archived automation is refused by `run_start`.
"""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction

from venus_rpa.accounts.models import Workspace
from venus_rpa.audit.models import AuditAction
from venus_rpa.audit.services import audit_record
from venus_rpa.core.bulk import BulkResult, bulk_apply, bulk_ids_check
from venus_rpa.core.errors import Conflict, InvalidInput
from venus_rpa.runs.item_files import ItemsError, Limits, items_from_json
from venus_rpa.runs.items import RETRYABLE_ITEMS, ItemsInput, PreparedItems, items_columns_check, items_sheet
from venus_rpa.runs.models import TERMINAL, Run, RunItem, RunStatus, Trigger
from venus_rpa.runs.services import run_cancel, run_start, version_spec

RETRYABLE = {RunStatus.FAILED, RunStatus.CANCELLED, RunStatus.TIMED_OUT}
NOT_FOUND = "No such run in this workspace."


def rerun_label(run: Run) -> str:
    """“Retry” for a run that did not succeed, “Re-run” for one that did; “Retry failed items” for a
    run with items (its succeeded items are never run again)."""
    if run.item_columns:
        return "Retry failed items"
    return "Retry" if run.status in RETRYABLE else "Re-run"


def run_rerun(*, run: Run, user, trigger: str = Trigger.API) -> Run:
    """Start a new run of `run`'s automation with `run`'s parameters, linked to it. Only a run that
    has ended may be retried (failed, cancelled, timed out) or re-run (succeeded). A run with
    items is retried item by item (`run_items_retry`): its succeeded items are never run again."""
    if run.status not in TERMINAL:
        raise Conflict(f"Run #{run.pk} has not ended yet ({run.get_status_display()}); "
                       "only a finished run can be retried or re-run.")
    if run.items.exists():
        return run_items_retry(run=run, user=user, trigger=trigger)
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
            run = run_cancel(run=run, user=user)
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


def run_items_retry(*, run: Run, user, trigger: str = Trigger.API, corrected: ItemsInput | None = None,
                    changes: dict[int, dict[str, Any]] | None = None) -> Run:
    """Retry the failed items of a finished run (and the ones it never reached) in a new run, linked
    to it and each to the item it retries; succeeded and skipped items are never run again, and an
    item already retried is not retried twice (RunItem.retry_of is one-to-one).

    `corrected`: the whole sheet again, fixed (same rows in the same order): each retried item takes
    its row's data. `changes`: {item number: {field: value}} merged into those items' data. Both
    are checked like items at launch; a change for an item that is not retried is an error."""
    if run.status not in TERMINAL:
        raise Conflict(f"Run #{run.pk} has not ended yet ({run.get_status_display()}); its items can be retried "
                       "once it has.")
    spec = version_spec(version=run.automation.current_version) if run.automation.current_version else None
    if spec is None:
        raise Conflict("This automation has no version to run.")
    sheet = items_sheet(corrected) if corrected is not None else None
    with transaction.atomic():
        Run.objects.select_for_update().filter(pk=run.pk).first()  # one retry of this run at a time
        todo = list(RunItem.objects.filter(run=run, status__in=RETRYABLE_ITEMS, retry__isnull=True).order_by("number"))
        if not todo:
            raise Conflict(f"Run #{run.pk} has no failed items left to retry (succeeded and skipped items are never "
                           "run again; an item already retried is retried from its newer run).")
        of = todo[0].of
        if sheet is not None and len(sheet.rows) != of:
            raise InvalidInput("The corrected sheet does not match the run's items.", fields={corrected.field: [
                f"It has {len(sheet.rows)} row(s); the run had {of}. Rows are matched by position: keep every row, "
                "fix the ones that failed."]})
        numbers = {item.number for item in todo}
        unknown = sorted(set(changes or {}) - numbers)
        if unknown:
            raise InvalidInput("Only failed items can be changed.", fields={"changes": [
                f"Item(s) {', '.join(map(str, unknown))} are not being retried (retried here: "
                f"{', '.join(map(str, sorted(numbers)))})."]})
        entries = []
        for item in todo:
            data = dict(sheet.rows[item.number - 1]) if sheet is not None else dict(item.data)
            data.update({str(k): str(v) for k, v in ((changes or {}).get(item.number) or {}).items()})
            entries.append((item.number, data, item))
        columns = list(dict.fromkeys([*(sheet.columns if sheet else run.item_columns),
                                      *(k for _, data, _ in entries for k in data)]))
        try:  # the same checks as at launch: field names, cell sizes, no templates
            items_from_json([data for _, data, _ in entries], limits=Limits(rows=len(entries)))
        except ItemsError as exc:
            raise InvalidInput(f"The corrected items cannot be used: {exc}",
                               fields={corrected.field if corrected else "changes": [str(exc)]}) from None
        items_columns_check(spec=spec, columns=columns, field_name=corrected.field if corrected else "changes")
        try:
            new = run_start(automation=run.automation, params=run.params, user=user, trigger=trigger, retry_of=run,
                            items=PreparedItems(columns, entries, of))
        except IntegrityError:  # another retry took these items first
            raise Conflict(f"The failed items of run #{run.pk} are being retried already.") from None
        audit_record(workspace=run.workspace, actor=user, action=AuditAction.RUN_RETRIED,
                     automation=run.automation, version_number=new.version.number,
                     changes=[f"run #{new.pk} retries {len(entries)} item(s) of run #{run.pk}: "
                              f"{', '.join(str(n) for n, _, _ in entries)}"],
                     before={"run": run.pk, "status": run.status}, after={"run": new.pk})
    return new
