"""Items: a 25-row expense sheet filed in ONE run against the same rows as 25 separate runs. Prints JSON.

Production path, as `benchmarks/throughput.py`: a throwaway PostgreSQL and Redis, the practice
site, one real `celery worker` (threads pool, the production runner with the CAPTCHA and safety
gates on every step, the settings' browser pool), runs started with `run_start` (the service the
API calls) from an XLSX sheet read by `runs.items`. Both series use the same automation
(`demo_expense_items_definition`: sign in, then per row: open the list, skip the row when it is
already filed, fill the two-step form, read the reference) and the same 25 rows (3 of them filed
beforehand, 2 with data the form refuses); the separate runs take one row each, so each signs in
and opens its browser context once per row. The worker has `--slots` threads (1 by default): a run
with items holds one worker slot for all its rows, so the fair comparison is per slot. The sheet's
block has the demo's `lanes` (2: two rows filed at once in two signed-in browser contexts of the
one run, docs/workflows.md "Lanes"; `--lanes` sets another count); a separate run has one row, so
it opens one context whatever the block says. With `--slots 2` the separate runs go two at a time
too: that compares the sheet with separate runs given the same parallelism.

Figures:
- `items_per_min`: rows of the sheet handled per minute by its one run (created → finished);
- `separate_runs_per_min`: the same rows as 25 runs of one row, first created → last finished;
- `cpu_s_per_item` / `cpu_s_per_separate_run`: CPU seconds of the worker and every Chromium it
  started (its cpuacct cgroup, as `throughput.py` measures) per row in each mode; unlike the rates
  they do not move when other processes share the machine (null where cgroups cannot be made);
- `per_item_overhead_ms`: mean per item of (its time from running to done) − (the act and observe
  time of its steps): the loop's own bookkeeping per item (condition reads, item records);
- `step_costs`: per step kind of the sheet run, the steps and their mean act and observe ms;
- `items`: the sheet run's items by status; `retried_ok`: failed rows that succeeded when retried
  alone after the sheet was fixed; `duplicated`: expenses filed more than once (both series).

    .venv/bin/python benchmarks/items.py [--slots 1] [--lanes 2]

About 8 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import tempfile
import time
from pathlib import Path

from _stack import practice_site, setup_django, start_postgres
from throughput import CpuMeter

CATEGORIES = ["Travel", "Meals", "Lodging", "Office supplies", "Other"]
FILED = (4, 12, 21)
BAD = {8: {"amount": "twelve"}, 17: {"date": "2030-01-15"}}
TERMINAL = ("succeeded", "failed", "cancelled", "timed_out")


def rows(prefix: str, *, fixed: bool = False) -> list[dict[str, str]]:
    out = []
    for n in range(1, 26):
        row = {"title": f"{prefix}-{n:04d} Client visit", "amount": f"{10 + n}.25", "date": f"2026-11-{n:02d}",
               "category": CATEGORIES[n % len(CATEGORIES)]}
        out.append({**row, **(BAD.get(n, {}) if not fixed else {})})
    return out


def xlsx(sheet: list[dict[str, str]]) -> bytes:
    from openpyxl import Workbook

    book = Workbook()
    page = book.active
    page.append(["Title", "Amount", "Date", "Category"])
    for row in sheet:
        page.append(list(row.values()))
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def start(automation, sheet: list[dict[str, str]]) -> int:
    from venus_rpa.runs.items import ItemsInput
    from venus_rpa.runs.services import run_start

    return run_start(automation=automation, params={}, items=ItemsInput(file=xlsx(sheet), field="items_file")).pk


def wait(run_ids: list[int], *, timeout: float) -> None:
    from venus_rpa.runs.models import Run

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if Run.objects.filter(pk__in=run_ids, status__in=TERMINAL).count() == len(run_ids):
            return
        time.sleep(0.3)
    raise TimeoutError(f"runs {run_ids} did not end within {timeout:g}s")


def span_minutes(run_ids: list[int]) -> float:
    from venus_rpa.runs.models import Run

    runs = Run.objects.filter(pk__in=run_ids)
    first = min(r.created_at for r in runs)
    last = max(r.finished_at for r in runs)
    return (last - first).total_seconds() / 60


def overhead_ms(run_id: int) -> float:
    from django.db.models import Sum

    from venus_rpa.runs.models import RunItem, Step

    values = []
    for item in RunItem.objects.filter(run_id=run_id, started_at__isnull=False, finished_at__isnull=False):
        steps = Step.objects.filter(run_id=run_id, item=item.number).aggregate(a=Sum("act_ms"), o=Sum("observe_ms"))
        spent = (item.finished_at - item.started_at).total_seconds() * 1000
        values.append(spent - (steps["a"] or 0) - (steps["o"] or 0))
    return round(sum(values) / len(values), 1) if values else 0.0


def step_costs(run_id: int) -> dict[str, dict[str, float]]:
    """Per step kind of the sheet run: how many steps, and their mean act and observe milliseconds."""
    from django.db.models import Avg, Count

    from venus_rpa.runs.models import Step

    rows = Step.objects.filter(run_id=run_id).values("kind").annotate(n=Count("id"), act=Avg("act_ms"), obs=Avg("observe_ms"))
    return {r["kind"]: {"steps": r["n"], "act_ms": round(r["act"] or 0, 1), "observe_ms": round(r["obs"] or 0, 1)}
            for r in rows.order_by("kind")}


def filed(practice_url: str) -> list[str]:
    import httpx

    return [e["title"] for e in httpx.get(practice_url + "/api/expenses").json()]


def series(automation, prefix: str, *, separate: bool, meter) -> tuple[list[int], float, float | None]:
    sheet = rows(prefix)
    wait([start(automation, [sheet[n - 1] for n in FILED])], timeout=300)  # filed beforehand: skipped later
    cpu_before = meter.read()
    ids = [start(automation, [row]) for row in sheet] if separate else [start(automation, sheet)]
    wait(ids, timeout=60 * 30)
    cpu = meter.read() - cpu_before if cpu_before is not None else None
    return ids, span_minutes(ids), cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--slots", type=int, default=1, help="worker threads (runs at once)")
    parser.add_argument("--lanes", type=int, default=2, help="rows of the sheet's run filed at once")
    args = parser.parse_args()
    os.environ.setdefault("DATABASE_URL", start_postgres())
    setup_django()
    from django.core.management import call_command

    from tests.helpers.worker import celery_worker
    from venus_rpa.automations.services import automation_create
    from venus_rpa.core.demo import demo_expense_items_definition
    from venus_rpa.runs.items import run_items_summary
    from venus_rpa.runs.models import Run, RunItem
    from venus_rpa.runs.reruns import run_items_retry
    from venus_rpa.runs.items import ItemsInput

    logs = Path(tempfile.mkdtemp(prefix="venus-bench-items-"))
    with practice_site(quiet=True) as base:
        call_command("seed_demo", practice_url=base, stdout=open(os.devnull, "w"))
        from venus_rpa.accounts.models import Workspace

        automation = automation_create(workspace=Workspace.objects.get(slug="demo"), user=None, slug="expense-sheet",
                                       name="Expense sheet", definition=demo_expense_items_definition(base, lanes=args.lanes))
        env = {"VENUS_HEARTBEAT_SECONDS": "5", "VENUS_HEARTBEAT_STALE_SECONDS": "60", "LOG_LEVEL": "WARNING"}
        with celery_worker(name="bench-items", concurrency=args.slots, extra_env=env,
                           log_path=logs / "worker.log") as proc:
            meter = CpuMeter(proc.pid, "items")  # before the first Chromium starts
            wait([start(automation, rows("WARM")[:1])], timeout=300)  # imports, Chromium, first connections
            separate_ids, separate_min, separate_cpu = series(automation, "SEP", separate=True, meter=meter)
            (sheet_id,), sheet_min, sheet_cpu = series(automation, "ONE", separate=False, meter=meter)
            sheet_run = Run.objects.get(pk=sheet_id)
            retry = run_items_retry(run=sheet_run, user=None, corrected=ItemsInput(file=xlsx(rows("ONE", fixed=True)),
                                                                                  field="items_file"))
            wait([retry.pk], timeout=600)
        meter.close()
        titles = filed(base)
    counts = run_items_summary(run=sheet_run)
    separate_statuses: dict[str, int] = {}
    for status in RunItem.objects.filter(run_id__in=separate_ids).values_list("status", flat=True):
        separate_statuses[status] = separate_statuses.get(status, 0) + 1
    items_per_min = 25 / sheet_min
    separate_per_min = 25 / separate_min
    figures = {
        "benchmark": "items", "cores": os.cpu_count(), "worker_slots": args.slots, "lanes": args.lanes,
        "items_per_min": round(items_per_min, 1), "separate_runs_per_min": round(separate_per_min, 1),
        "speedup": round(items_per_min / separate_per_min, 2),
        "cpu_s_per_item": round(sheet_cpu / 25, 2) if sheet_cpu is not None else None,
        "cpu_s_per_separate_run": round(separate_cpu / 25, 2) if separate_cpu is not None else None,
        "per_item_overhead_ms": overhead_ms(sheet_id),
        "step_costs": step_costs(sheet_id),
        "items": {"total": counts["total"], "succeeded": counts["succeeded"], "skipped": counts["skipped"],
                  "failed": counts["failed"], "pending": counts["pending"],
                  "retried_ok": RunItem.objects.filter(run=retry, status="succeeded").count(),
                  "duplicated": sum(1 for t in set(titles) if titles.count(t) > 1)},
        "separate_runs_items": separate_statuses,
        "sheet_run": {"id": sheet_id, "status": sheet_run.status, "minutes": round(sheet_min, 2)},
        "retry_run": {"status": Run.objects.get(pk=retry.pk).status},
        "targets": {"items_per_min_vs_separate": 2.0, "duplicated": 0},
    }
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
