"""API → real Celery worker → Chromium → practice site, and what happens when things go wrong."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import httpx
import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from tests.e2e.conftest import wait_for_run
from tests.helpers.worker import ROOT, celery_worker, worker_database_url

pytestmark = pytest.mark.e2e
TERMINAL = {"succeeded", "failed", "cancelled", "timed_out"}


def api_client(workspace):
    from venus_rpa.accounts.models import Membership
    from venus_rpa.accounts.services import api_token_create

    owner = Membership.objects.filter(workspace=workspace, role="owner").first().user
    _, raw = api_token_create(workspace=workspace, user=owner, name="e2e")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


def add_steps(automation, extra_steps: list[dict]):
    from venus_rpa.automations.services import automation_update

    steps = automation.current_version.steps + extra_steps
    return automation_update(automation=automation, user=None, definition={"steps": steps}, change_note="test")


def test_api_run_files_the_expense_in_a_real_browser(worker, demo, practice_url):
    client = api_client(demo["workspace"])
    response = client.post("/api/automations/demo-expense/runs/",
                           {"params": {"title": "Conference hotel", "amount": "189.90", "category": "Lodging"}},
                           format="json")
    assert response.status_code == 202, response.content
    run = wait_for_run(response.json()["id"], statuses=TERMINAL)
    assert run.status == "succeeded", run.status_reason
    assert run.output["reference"].startswith("EXP-")
    assert run.verdict["passed"] is True

    detail = client.get(f"/api/runs/{run.pk}/").json()
    assert [s["index"] for s in detail["steps"]] == list(range(16))
    assert all(s["status"] == "succeeded" and s["screenshot"] for s in detail["steps"])
    password_step = detail["steps"][2]
    assert password_step["action"]["value"] == "{{credentials.practice-login.password}}"
    assert "demo-password" not in response.content.decode() + str(detail)

    expenses = httpx.get(practice_url + "/api/expenses").json()
    filed = [e for e in expenses if e["title"] == "Conference hotel"]
    assert len(filed) == 1
    assert filed[0]["amount"] == "189.90" and filed[0]["category"] == "Lodging"
    assert filed[0]["receipt_name"] == "receipt.txt"
    assert filed[0]["reference"] == run.output["reference"]


def test_a_missing_target_fails_the_run_with_the_step_error(worker, demo):
    from venus_rpa.runs.services import run_start

    add_steps(demo["automation"], [{"kind": "click", "name": "Press a button that is not there",
                                    "target": "Approve all", "timeout_s": 1}])
    run = run_start(automation=demo["automation"], params={"title": "Lunch", "amount": "12", "category": "Meals"})
    run = wait_for_run(run.pk, statuses=TERMINAL)
    assert run.status == "failed"
    assert "Press a button that is not there" in run.status_reason
    assert "'Approve all' not found" in run.status_reason
    last = run.steps.order_by("-index").first()
    assert last.status == "failed" and "not found" in last.error and last.screenshot


def test_cancelling_a_running_run_stops_it(worker, demo):
    from venus_rpa.runs.services import run_cancel, run_start

    add_steps(demo["automation"], [{"kind": "wait_for", "text": "This never appears", "timeout_s": 60}])
    run = run_start(automation=demo["automation"], params={"title": "Taxi", "amount": "30", "category": "Travel"})
    run = wait_for_run(run.pk, statuses={"running"})
    run_cancel(run=run)
    run = wait_for_run(run.pk, statuses=TERMINAL, timeout=30)
    assert run.status == "cancelled"
    # Where its worker stopped it, as the editor numbers the steps (runs.services.cancel_reason), not a trace
    # record: its browser may still have been opening.
    assert run.status_reason.startswith(("cancelled by user while running, at step ",
                                         "cancelled by user while running, before step 1 (",
                                         "cancelled by user while running, before its first step")), run.status_reason
    assert "#" not in run.status_reason


def test_a_worker_killed_after_filing_is_retried_after_the_filing_not_before(worker, demo, practice_url, tmp_path):
    from venus_rpa.runs.models import Run, RunAction
    from venus_rpa.runs.services import run_cancel
    from venus_rpa.runs.tasks import run_execute_task, runs_sweep_task

    add_steps(demo["automation"], [{"kind": "wait_for", "text": "This never appears", "timeout_s": 120}])
    automation = demo["automation"]
    automation.refresh_from_db()
    run = Run.objects.create(workspace=demo["workspace"], automation=automation, version=automation.current_version,
                             params={"title": "Hotel", "amount": "99", "date": "2026-11-30", "category": "Lodging",
                                     "notes": ""}, admitted_at=timezone.now())  # sent past the dispatcher below
    with celery_worker(queues="doomed", name="doomed", log_path=tmp_path / "doomed.log") as doomed:
        run_execute_task.apply_async(args=[run.pk], queue="doomed")
        run = wait_for_run(run.pk, statuses={"running"})
        deadline = time.monotonic() + 60
        while run.steps.count() < 16 and time.monotonic() < deadline:
            time.sleep(0.1)
        os.killpg(doomed.pid, signal.SIGKILL)
        doomed.wait()
    submit = RunAction.objects.get(run=run, name="Submit the report")
    assert submit.status == "done" and "/expenses/EXP-" in submit.url_after
    time.sleep(3.5)  # the test workers treat 3 s without a heartbeat as stale
    runs_sweep_task.delay()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not (run.attempt == 2 and run.status == "running"
                                                 and run.heartbeat_at and run.steps.filter(index__gte=16).exists()):
        time.sleep(0.2)
        run.refresh_from_db()
    assert run.attempt == 2 and run.status == "running", (run.status, run.status_reason)
    assert "retrying (attempt 2) after 'Submit the report'" in run.status_reason
    resumed = run.steps.filter(index__gte=16).order_by("index").first()
    assert resumed.kind == "wait_for" and "/expenses/EXP-" in resumed.url  # resumed after the filing, signed in
    run_cancel(run=run)
    run = wait_for_run(run.pk, statuses=TERMINAL, timeout=30)
    assert run.status == "cancelled"
    assert [e["title"] for e in httpx.get(practice_url + "/api/expenses").json()].count("Hotel") == 1


def test_cli_runs_the_demo_and_prints_each_step(worker, demo):
    env = {**os.environ, "DATABASE_URL": worker_database_url()}
    proc = subprocess.run(
        [sys.executable, "manage.py", "run_automation", "demo-expense", "--param", "title=Team lunch",
         "--param", "amount=18.20", "--param", "category=Meals", "--wait", "--timeout", "90"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert sum(1 for line in lines if line.strip().startswith("step")) == 16
    assert any("succeeded" in line for line in lines)


def test_cli_exits_nonzero_on_bad_params_and_on_failure(worker, demo):
    env = {**os.environ, "DATABASE_URL": worker_database_url()}
    bad = subprocess.run([sys.executable, "manage.py", "run_automation", "demo-expense", "--param", "category=Yachts"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2
    assert "params.category" in bad.stderr
    add_steps(demo["automation"], [{"kind": "assert", "text": "Refund approved", "timeout_s": 0.5}])
    failed = subprocess.run([sys.executable, "manage.py", "run_automation", "demo-expense", "--wait"],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert failed.returncode == 1
    assert "failed" in failed.stdout and "Refund approved" in failed.stdout
