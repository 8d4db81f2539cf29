"""The reason a cancelled run ends with: who cancelled it, and "before it started" only for a run
that never started; a run that had started says how far it had got (the step numbers its page shows)."""

from __future__ import annotations

import pytest
from django.utils import timezone

from venus_rpa.runs.models import Run, RunContinuation, RunStatus, Step

pytestmark = pytest.mark.django_db


@pytest.fixture
def automation(pay_automation):
    return pay_automation


@pytest.fixture(autouse=True)
def no_dispatch(monkeypatch):
    # The broker's send, not run_enqueue: a module first imported during a test (recovery's
    # `from ... import run_enqueue`) would keep a patched run_enqueue for the rest of the session.
    from venus_rpa.runs import services

    monkeypatch.setattr(services.celery_app, "send_task", lambda *args, **kwargs: None)


def a_run(automation, *, steps: int = 0, **fields) -> Run:
    run = Run.objects.create(workspace=automation.workspace, automation=automation,
                             version=automation.current_version, **fields)
    for index in range(steps):
        Step.objects.create(run=run, index=index, kind="click", name=f"Step {index}", status="succeeded",
                            action={"kind": "click"}, started_at=timezone.now())
    return run


def test_a_queued_run_that_never_started_is_cancelled_before_it_started_by_whom(automation, personas):
    from venus_rpa.runs.services import run_cancel

    run = run_cancel(run=a_run(automation), user=personas.owner)

    assert run.status == RunStatus.CANCELLED
    assert run.status_reason == "cancelled by alice before it started"
    assert run.cancel_requested_by == personas.owner


def test_a_queued_run_that_had_started_and_done_steps_is_not_cancelled_before_it_started(automation, personas):
    """A run queued again to go on (its worker lost and retried, or after a wait) has a start time and steps."""
    from venus_rpa.runs.services import run_cancel

    run = a_run(automation, steps=3, started_at=timezone.now(), attempt=2, status_reason="worker lost; retrying")

    run = run_cancel(run=run, user=personas.teammate)

    assert run.status == RunStatus.CANCELLED
    assert run.status_reason == "cancelled by bob while running, after step #2"
    assert "before it started" not in run.status_reason


def test_bulk_cancel_of_a_started_run_names_the_user_and_the_step(automation, personas):
    """"Cancel selected" on /runs/ (dashboard) goes through the same service."""
    from django.test import Client

    run = a_run(automation, steps=2, started_at=timezone.now(), attempt=2)
    client = Client()
    client.force_login(personas.owner)

    response = client.post("/runs/bulk/", {"action": "cancel", "ids": [run.pk]})

    assert response.status_code == 200
    run.refresh_from_db()
    assert run.status == RunStatus.CANCELLED
    assert run.status_reason == "cancelled by alice while running, after step #1"


def test_bulk_cancel_through_the_api_names_the_user(automation, personas):
    run = a_run(automation, steps=1, started_at=timezone.now(), attempt=2)

    response = personas.client(personas.teammate).post("/api/runs/bulk/", {"action": "cancel", "ids": [run.pk]},
                                                       format="json")

    assert response.status_code == 200, response.json()
    run.refresh_from_db()
    assert run.status_reason == "cancelled by bob while running, after step #0"


def test_a_running_run_remembers_who_asked_and_its_worker_says_where_it_stopped(automation, personas):
    from venus_rpa.runs.services import cancel_reason, run_cancel

    run = a_run(automation, steps=4, status=RunStatus.RUNNING, started_at=timezone.now())
    run = run_cancel(run=run, user=personas.owner)

    assert run.status == RunStatus.RUNNING and run.cancel_requested_at and run.cancel_requested_by == personas.owner
    # What runs.journal ends it with once its worker has stopped: the step it was at, as the editor
    # numbers it and failure reasons name it (workers.run_state.RunResult.at), not the next trace record.
    stopped = Run.objects.get(pk=run.pk)
    assert cancel_reason(run=stopped, at="step 2 (Pay), iteration 3 of at most 5") == (
        "cancelled by alice while running, at step 2 (Pay), iteration 3 of at most 5")
    assert cancel_reason(run=stopped, at="before step 1 (Open the start URL)") == (
        "cancelled by alice while running, before step 1 (Open the start URL)")
    assert cancel_reason(run=stopped, at="after the last step") == "cancelled by alice while running, after the last step"
    # A worker that could not say where: its last trace record, as the run page numbers it.
    assert cancel_reason(run=stopped) == "cancelled by alice while running, after step #3"


@pytest.mark.django_db(transaction=True)  # the recorder writes from a thread of its own
def test_a_worker_that_stopped_a_run_ends_it_naming_the_step_as_the_editor_numbers_it(automation, personas):
    import asyncio

    from venus_rpa.runs.execution import DjangoRecorder
    from workers.run_state import RunResult

    run = a_run(automation, steps=7, status=RunStatus.RUNNING, started_at=timezone.now(),
                cancel_requested_at=timezone.now(), cancel_requested_by=personas.owner)
    recorder = DjangoRecorder(run.pk)

    async def stop():
        try:
            await recorder.finish([], RunResult("cancelled", "cancelled by user", at="step 2 (Pay)"))
        finally:
            await recorder.close()

    asyncio.run(stop())
    run.refresh_from_db()
    assert run.status == RunStatus.CANCELLED
    assert run.status_reason == "cancelled by alice while running, at step 2 (Pay)"  # not "#7", its next record


def test_a_parked_run_is_cancelled_while_waiting_for_a_person(automation, personas):
    from venus_rpa.runs.services import run_cancel

    run = a_run(automation, steps=2, status=RunStatus.AWAITING_USER, started_at=timezone.now())
    RunContinuation.objects.create(run=run, wait="answer", ciphertext="x")

    run = run_cancel(run=run, user=personas.owner)

    assert run.status == RunStatus.CANCELLED
    assert run.status_reason == "cancelled by alice while waiting for a person, after step #1"


def test_without_a_user_the_reason_still_tells_whether_it_had_started(automation):
    from venus_rpa.runs.services import run_cancel

    assert run_cancel(run=a_run(automation)).status_reason == "cancelled by user before it started"
    started = run_cancel(run=a_run(automation, started_at=timezone.now()))
    assert started.status_reason == "cancelled by user while running, before its first step"
