"""Runs with items (issue 14): an automation with a `for_each` block runs its steps once per item
of one run, each item with its own status, error and output (`RunItem`).

- At launch (`items_prepare`, called by `runs.services.run_start` before anything is written):
  the items come as a JSON array or a CSV/XLSX file (`runs.item_files`, bounded and sniffed);
  every `{{item.FIELD}}` the automation uses must be a column. Any problem is an InvalidInput on
  `items` (or `items_file`) and no run is created: never a half-run.
- The worker reads them (`run_items_for_worker`) and records each status change
  (`run_item_record`); when the run ends, an item still `running` fails with the run's reason
  (`run_items_settle`) and the items never reached stay `pending`.
- Retry (`runs.reruns.run_items_retry`) starts a new run with only the failed (and never-run)
  items, each linked one-to-one to the item it retries: succeeded and skipped items are never
  run again, and the same item cannot be retried twice (a database constraint, not a check).
- Results download as CSV or XLSX (`run_items_export`), formulas neutralised.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field
from datetime import datetime, timezone as dt_timezone
from typing import Any

from django.conf import settings
from django.db.models import Count
from django.utils import timezone

from venus_rpa.core.errors import InvalidInput
from venus_rpa.runs.item_files import ItemsError, Limits, Sheet, items_from_json, items_read, results_csv, \
    results_table, results_xlsx
from venus_rpa.runs.models import ItemStatus, Run, RunItem
from workers import flow as F
from workers.items import Item, ItemRecord
from workers.steps import AutomationSpec

RETRYABLE_ITEMS = (ItemStatus.FAILED, ItemStatus.PENDING)


def limits() -> Limits:
    return Limits(file_bytes=settings.VENUS_ITEMS_FILE_MAX_BYTES, rows=settings.VENUS_ITEMS_MAX)


@dataclass
class ItemsInput:
    """Items as given at launch, before they are checked: a JSON array, or a file's bytes."""

    array: Any = None
    file: bytes | None = None
    field: str = "items"  # the request field a problem is reported on

    @classmethod
    def from_base64(cls, text: str) -> "ItemsInput":
        try:
            return cls(file=base64.b64decode(text, validate=True), field="items_file")
        except (binascii.Error, ValueError):
            raise InvalidInput("The items file is not valid base64.",
                               fields={"items_file": ["Not valid base64."]}) from None


@dataclass
class PreparedItems:
    """Checked items, ready to be stored with the run: (number, data, retried item) per item."""

    columns: list[str]
    entries: list[tuple[int, dict[str, str], RunItem | None]]
    of: int
    extra: dict[str, Any] = field(default_factory=dict)


def items_sheet(given: ItemsInput) -> Sheet:
    """Read the given items (InvalidInput on the field they came in)."""
    try:
        if given.file is not None:
            return items_read(given.file, limits=limits())
        return items_from_json(given.array, limits=limits())
    except ItemsError as exc:
        raise InvalidInput(f"The items cannot be used: {exc}", fields={given.field: [_cap(str(exc))]}) from None


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def items_prepare(*, spec: AutomationSpec, given: ItemsInput | None) -> PreparedItems | None:
    """Check the items against the automation (see the module's contract); None if it takes none."""
    takes = F.for_each_block(spec.steps) is not None
    if given is None:
        if takes:
            raise InvalidInput("This automation works through items: give them as a JSON array (items) or a CSV/XLSX "
                               "file (items_file).", fields={"items": ["This automation needs items."]})
        return None
    if not takes:
        raise InvalidInput("This automation has no for_each block, so it takes no items.",
                           fields={given.field: ["This automation takes no items."]})
    sheet = items_sheet(given)
    items_columns_check(spec=spec, columns=sheet.columns, field_name=given.field)
    return PreparedItems(sheet.columns, [(n, row, None) for n, row in enumerate(sheet.rows, start=1)], len(sheet.rows))


def items_columns_check(*, spec: AutomationSpec, columns: list[str], field_name: str = "items") -> None:
    missing = sorted(F.item_fields_used(spec.steps) - set(columns))
    if missing:
        used = ", ".join("{{item.%s}}" % name for name in missing)
        raise InvalidInput(f"The items lack field(s) the automation uses: {', '.join(missing)}.",
                           fields={field_name: [f"Missing column(s) {', '.join(missing)} (used as {used}); the items "
                                                f"have: {', '.join(columns) or 'none'}."]})


def run_items_create(*, run: Run, prepared: PreparedItems) -> None:
    """Store the run's items (inside the transaction that creates the run)."""
    Run.objects.filter(pk=run.pk).update(item_columns=prepared.columns)
    run.item_columns = prepared.columns
    RunItem.objects.bulk_create([RunItem(run=run, number=number, of=prepared.of, data=data, retry_of=source)
                                 for number, data, source in prepared.entries])


# -- worker side --------------------------------------------------------------------------------

def run_items_for_worker(*, run_id: int) -> list[Item]:
    return [Item(i.number, dict(i.data), status=i.status, of=i.of, error=i.error)
            for i in RunItem.objects.filter(run_id=run_id).order_by("number")]


def run_item_record(*, run_id: int, record: ItemRecord) -> None:
    """Store one change of an item's status (from the runtime, through the run's recorder)."""
    at = datetime.fromtimestamp(record.at, tz=dt_timezone.utc)
    changes: dict[str, Any] = {"status": record.status}
    if record.status == ItemStatus.RUNNING:
        changes.update(started_at=at, finished_at=None, error="", output={})
    elif record.status == ItemStatus.PENDING:  # put back untouched (workers.lanes): it runs again later
        changes.update(started_at=None, finished_at=None, error="", output={})
    else:
        changes.update(finished_at=at, error=record.error, output=record.output)
    RunItem.objects.filter(run_id=run_id, number=record.number).update(**changes)


def run_items_settle(*, run_id: int, reason: str) -> None:
    """The run ended: an item still running fails with the run's reason (it may be partly done)."""
    RunItem.objects.filter(run_id=run_id, status=ItemStatus.RUNNING).update(
        status=ItemStatus.FAILED, error=f"the run ended while this item was under way: {reason}"[:2000],
        finished_at=timezone.now())


# -- reads --------------------------------------------------------------------------------------

def run_items_summary(*, run: Run) -> dict[str, int]:
    """Items of the run by status, and how many were retried (in a later run)."""
    counts = {status: 0 for status in ItemStatus.values}
    for row in RunItem.objects.filter(run=run).values("status").annotate(n=Count("pk")):
        counts[row["status"]] = row["n"]
    counts["total"] = sum(counts[s] for s in ItemStatus.values)
    counts["retried"] = RunItem.objects.filter(run=run, retry__isnull=False).count()
    return counts


def run_items_list(*, run: Run):
    return RunItem.objects.filter(run=run).select_related("retry__run").order_by("number")


def run_items_export(*, run: Run, fmt: str) -> tuple[bytes, str, str]:
    """The run's per-item results as (content, content type, file name); fmt is "csv" or "xlsx"."""
    items = [{"number": i.number, "status": i.status, "error": i.error, "data": i.data, "output": i.output}
             for i in run_items_list(run=run)]
    columns = list(run.item_columns) or sorted({k for i in items for k in i["data"]})
    table = results_table(columns, items)
    if fmt == "xlsx":
        return (results_xlsx(table), "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                f"run-{run.pk}-items.xlsx")
    return results_csv(table), "text/csv; charset=utf-8", f"run-{run.pk}-items.csv"
