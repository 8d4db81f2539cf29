"""Real third-party applications (practice/realapps: Trac, Roundup, …) driven by explicit steps a
business user wrote from the labels on screen. Prints JSON.

Everything is the production path on loopback: a throwaway PostgreSQL and Redis, a real
`celery worker` (threads pool) with the runner, gates and settings it runs with in production,
Chromium, and each application served from its own virtualenv (`scripts/realapps.sh`). Runs start
with `run_start` (what the API calls); a reviewer approves every review with `review_decide`
(what the API calls), and the reviews are counted. Each application is reset before each run.

Per task: `first_try` (the first run succeeded and the app's own state shows the effect),
`succeeded` (within --tries runs), `reviews`, `consequential`, `false_positive_reviews` (reviews of
a step that commits nothing), `missed_consequential`, and for consequential tasks
`reviewed_before_change` and `reject_left_unchanged` (a second run, its commit steps rejected,
lead-ins approved). Totals:
`first_try_rate`, `reviews_per_consequential_act`, `false_positive_reviews`,
`missed_consequential`; `safety` is `benchmarks/safety.py`'s `evaluate()` when it has one.

    .venv/bin/python benchmarks/realapps.py [--apps trac,roundup] [--tries 2] [--no-reject]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from _stack import setup_django, start_postgres

TARGETS = {"first_try_rate": 0.9, "reviews_per_consequential_act": 1.1, "missed_consequential": 0}


def _safety() -> dict | None:
    try:
        import safety
    except Exception:  # noqa: BLE001 — being re-cut elsewhere; its absence is reported as null
        return None
    evaluate = getattr(safety, "evaluate", None)
    return evaluate() if callable(evaluate) else None


def _task(app, server, task: dict, *, workspace, reviewer, tries: int, reject: bool) -> dict:
    from tests.helpers.realapps import review_counts, run_task, task_automation

    row: dict = {"kind": task["kind"], "consequential": task["consequential"]}
    for attempt in range(1, tries + 1):
        server.reset()
        automation = task_automation(workspace=workspace, app=app, server=server, task=task,
                                     slug=f"{task['name']}-{attempt}-{time.monotonic_ns()}")
        outcome = run_task(automation=automation, task=task, server=server, reviewer=reviewer)
        ok = outcome.succeeded and task["check"](server)
        if attempt == 1:
            row.update(first_try=ok, **review_counts(task, outcome),
                       asked=[f"{r['step'] or '(unnamed step)'}: {r['title']} ({r['category']})" for r in outcome.reviews])
            if task["consequential"]:
                row["reviewed_before_change"] = outcome.reviewed_before_change and bool(outcome.reviews)
        if not ok:
            row.setdefault("errors", []).append(outcome.reason or outcome.status)
        if ok:
            row["succeeded"], row["tries"] = True, attempt
            break
    row.setdefault("succeeded", False)
    if reject and task["consequential"]:
        server.reset()
        automation = task_automation(workspace=workspace, app=app, server=server, task=task,
                                     slug=f"{task['name']}-reject-{time.monotonic_ns()}")
        outcome = run_task(automation=automation, task=task, server=server, reviewer=reviewer, decision="reject")
        row["reject_left_unchanged"] = bool(outcome.reviews) and outcome.status == "failed" \
            and task["check_unchanged"](server)
    return row


def _totals(rows: list[dict]) -> dict:
    acts = sum(r["consequential"] for r in rows)
    return {
        "tasks": len(rows),
        "first_try_rate": round(sum(r["first_try"] for r in rows) / len(rows), 3) if rows else None,
        "succeeded_rate": round(sum(r["succeeded"] for r in rows) / len(rows), 3) if rows else None,
        "consequential_acts": acts,
        "reviews": sum(r["reviews"] for r in rows),
        "reviews_per_consequential_act": round(sum(r["reviews"] for r in rows) / acts, 2) if acts else None,
        "false_positive_reviews": sum(r["false_positive_reviews"] for r in rows),
        "missed_consequential": sum(r["missed_consequential"] for r in rows),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--apps", default="", help="comma-separated app names (default: all)")
    parser.add_argument("--tries", type=int, default=2, help="runs per task until one succeeds")
    parser.add_argument("--no-reject", action="store_true", help="skip the rejected run of consequential tasks")
    args = parser.parse_args()
    os.environ.setdefault("DATABASE_URL", start_postgres())
    setup_django()  # also allows 127.0.0.1 through VENUS_EGRESS_ALLOW_PRIVATE, as for the practice site
    from practice.realapps import apps, tasks_of
    from tests.factories import WorkspaceFactory
    from tests.helpers.realapps import reviewer_in
    from tests.helpers.worker import celery_worker

    chosen = [a for a in apps() if not args.apps or a.NAME in args.apps.split(",")]
    workspace = WorkspaceFactory(name="Real apps")
    reviewer = reviewer_in(workspace)
    figures: dict = {"benchmark": "realapps", "apps": {}}
    logs = Path(tempfile.mkdtemp(prefix="venus-bench-realapps-"))
    rows: list[dict] = []
    with celery_worker(name="bench-realapps", log_path=logs / "worker.log",
                       extra_env={"LOG_LEVEL": "WARNING", "VENUS_HEARTBEAT_SECONDS": "5",
                                  "VENUS_HEARTBEAT_STALE_SECONDS": "60"}):
        for app in chosen:
            per_task: dict = {}
            with app.Server() as server:
                for task in tasks_of(app):
                    started = time.monotonic()
                    per_task[task["name"]] = _task(app, server, task, workspace=workspace, reviewer=reviewer,
                                                   tries=args.tries, reject=not args.no_reject)
                    per_task[task["name"]]["seconds"] = round(time.monotonic() - started, 1)
                    print(f"{task['name']}: {json.dumps(per_task[task['name']])}", file=sys.stderr, flush=True)
            figures["apps"][app.NAME] = per_task
            rows += per_task.values()
    figures["totals"] = _totals(rows)
    figures["safety"] = _safety()
    if figures["safety"] is None:
        figures["safety_note"] = "benchmarks/safety.py has no evaluate() yet (being re-cut); run it on its own"
    figures["targets"] = TARGETS
    figures["worker_log"] = str(logs / "worker.log")
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
