"""The browser pool in a real Celery worker: Chromium killed under a run, the worker SIGKILLed."""

from __future__ import annotations

import os
import signal
import time

import psutil
import pytest
from django.utils import timezone

from tests.e2e.conftest import wait_for_run
from tests.e2e.test_runs_end_to_end import add_steps
from tests.helpers.worker import celery_worker
from workers.envs import chromium

pytestmark = pytest.mark.e2e
TERMINAL = {"succeeded", "failed", "cancelled", "timed_out"}
PARAMS = {"title": "Hotel", "amount": "99", "date": "2026-11-30", "category": "Lodging", "notes": ""}


def browsers_of(worker_pid: int) -> list[psutil.Process]:
    """The Chromium browser processes a worker process launched (found by their marker)."""
    return [p for p in chromium.marked_processes(worker_pid) if p.name() != "chrome_crashpad_handler"]


def parked_run(demo):
    """A demo run that files nothing and then waits (for a minute) on its last page."""
    from venus_rpa.runs.models import Run

    automation = add_steps(demo["automation"], [{"kind": "wait_for", "text": "This never appears", "timeout_s": 60}])
    automation.refresh_from_db()
    return Run.objects.create(workspace=demo["workspace"], automation=automation, version=automation.current_version,
                              params=PARAMS, admitted_at=timezone.now())  # sent below, past the dispatcher


def wait_for_steps(run, count: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while run.steps.count() < count and time.monotonic() < deadline:
        time.sleep(0.1)
    assert run.steps.count() >= count


def gone(proc: psutil.Process) -> bool:
    try:
        return proc.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def test_chromium_killed_mid_run_fails_the_run_as_browser_lost_and_the_next_run_succeeds(worker, demo):
    from venus_rpa.runs.models import Run
    from venus_rpa.runs.tasks import run_execute_task

    demo_version = demo["automation"].current_version
    run = parked_run(demo)
    run_execute_task.delay(run.pk)
    run = wait_for_run(run.pk, statuses={"running"})
    wait_for_steps(run, 15)  # on the parked step
    victims = browsers_of(worker.pid)
    assert victims, "the worker's Chromium carries no marker"
    for browser in victims:
        browser.kill()

    run = wait_for_run(run.pk, statuses=TERMINAL, timeout=60)
    assert run.status == "failed"
    assert "browser lost" in run.status_reason

    after = Run.objects.create(workspace=demo["workspace"], automation=demo["automation"], version=demo_version,
                               params=PARAMS, admitted_at=timezone.now())
    run_execute_task.delay(after.pk)
    after = wait_for_run(after.pk, statuses=TERMINAL, timeout=90)
    assert after.status == "succeeded", after.status_reason
    assert {p.pid for p in browsers_of(worker.pid)}.isdisjoint({v.pid for v in victims})


def test_a_sigkilled_worker_leaves_no_chromium_behind(demo, tmp_path):
    from venus_rpa.runs.tasks import run_execute_task

    runs = [parked_run(demo) for _ in range(2)]
    with celery_worker(queues="pooldoomed", name="pooldoomed", log_path=tmp_path / "doomed.log") as doomed:
        for run in runs:
            run_execute_task.apply_async(args=[run.pk], queue="pooldoomed")
        for run in runs:
            wait_for_steps(wait_for_run(run.pk, statuses={"running"}), 15)
        worker = psutil.Process(doomed.pid)
        browsers = browsers_of(doomed.pid)
        assert browsers
        # Everything the worker started: the Playwright driver, each Chromium and all its
        # zygotes, renderers and helpers, plus the crash handlers Chromium detaches.
        tree = worker.children(recursive=True) + chromium.marked_processes(doomed.pid)
        assert len(tree) > 6
        os.kill(doomed.pid, signal.SIGKILL)  # the worker alone: its children must notice by themselves
        doomed.wait()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and not all(gone(p) for p in tree):
            time.sleep(0.2)
        survivors = [(p.pid, p.name()) for p in tree if not gone(p)]
    assert survivors == []
    assert chromium.marked_processes(doomed.pid) == []
    orphaned = [p for p in psutil.process_iter(["name", "ppid"]) if p.info["ppid"] == doomed.pid]
    assert orphaned == []
