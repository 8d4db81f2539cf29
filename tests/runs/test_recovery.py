"""The runs sweep against the real Redis broker and PostgreSQL (no worker consumes the
`agent` queue here, so messages stay where the sweep can see them)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from venus_rpa.runs.models import ActionStatus, Run, RunAction, RunStatus
from tests.helpers.worker import celery_worker

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def empty_broker(settings):
    import redis

    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    client.flushdb()
    settings.VENUS_HEARTBEAT_STALE_SECONDS = 3
    settings.VENUS_QUEUED_STALE_SECONDS = 5
    settings.VENUS_REQUEUE_MAX = 3
    settings.VENUS_RUN_MAX_ATTEMPTS = 2
    yield client
    client.flushdb()


@pytest.fixture
def automation(pay_automation):
    return pay_automation


def queued_run(automation, **fields) -> Run:
    from venus_rpa.runs.services import run_enqueue

    # Admitted, as every run sent to the broker is (fair admission): the sweep re-sends only those.
    run = Run.objects.create(workspace=automation.workspace, automation=automation, version=automation.current_version,
                             admitted_at=timezone.now())
    run_enqueue(run_id=run.pk)
    Run.objects.filter(pk=run.pk).update(**fields)
    return Run.objects.get(pk=run.pk)


def ago(seconds: float):
    return timezone.now() - timedelta(seconds=seconds)


def test_a_queued_run_whose_message_is_still_waiting_is_left_alone(automation, empty_broker):
    run = queued_run(automation, enqueued_at=ago(60))
    from venus_rpa.runs.recovery import runs_sweep

    assert runs_sweep()["resent"] == []
    assert Run.objects.get(pk=run.pk).enqueue_count == 1


def test_a_queued_run_whose_message_vanished_is_sent_again(automation, empty_broker):
    from venus_rpa.runs.recovery import broker_messages, runs_sweep

    run = queued_run(automation, enqueued_at=ago(60))
    empty_broker.flushdb()  # a broker restarted without its data

    assert runs_sweep()["resent"] == [run.pk]
    run.refresh_from_db()
    assert run.status == "queued" and run.enqueue_count == 2 and run.task_id == f"run-{run.pk}-2"
    assert run.task_id in {m.task_id for m in broker_messages()}


def test_a_recently_sent_run_is_given_time_before_it_counts_as_lost(automation, empty_broker):
    from venus_rpa.runs.recovery import runs_sweep

    queued_run(automation)
    empty_broker.flushdb()
    assert runs_sweep()["resent"] == []


def test_a_run_whose_message_keeps_vanishing_ends_failed_with_the_reason(automation, empty_broker):
    from venus_rpa.runs.recovery import runs_sweep

    run = queued_run(automation, enqueued_at=ago(60), enqueue_count=3)
    empty_broker.flushdb()
    assert runs_sweep()["abandoned"] == [run.pk]
    run.refresh_from_db()
    assert run.status == "failed" and "its task was lost 3 times" in run.status_reason and run.finished_at


def test_a_message_taken_by_a_dead_worker_is_sent_again_and_the_parked_one_dropped(automation, empty_broker, tmp_path):
    from venus_rpa.runs.recovery import broker_messages, runs_sweep

    run = queued_run(automation, enqueued_at=ago(60))
    # A worker took the message (kombu moves it to `unacked`, stamped) and was killed before starting it.
    raw = empty_broker.rpop("agent")
    empty_broker.hset("unacked", "tag-1", json.dumps([json.loads(raw), "agent", "agent"]))
    empty_broker.zadd("unacked_index", {"tag-1": timezone.now().timestamp() - 60})
    assert runs_sweep()["resent"] == []  # no live worker answers: it may still hold it; wait
    with celery_worker(queues="idle", name="idle", log_path=tmp_path / "idle.log"):  # a live worker that holds nothing
        assert runs_sweep()["resent"] == [run.pk]
    run.refresh_from_db()
    assert run.enqueue_count == 1  # a duplicate is harmless and never counts towards giving up
    assert [m.task_id for m in broker_messages()] == [run.task_id] != [f"run-{run.pk}-1"]  # the old one dropped


def running_run(automation, *, attempt: int = 1) -> Run:
    return Run.objects.create(workspace=automation.workspace, automation=automation, version=automation.current_version,
                              status=RunStatus.RUNNING, started_at=ago(30), heartbeat_at=ago(10), attempt=attempt,
                              task_id="run-x-1")


def test_a_lost_run_with_nothing_done_is_retried_from_the_start(automation, django_capture_on_commit_callbacks):
    from venus_rpa.runs.recovery import run_resume_point, runs_sweep

    run = running_run(automation)
    with django_capture_on_commit_callbacks(execute=True):
        assert runs_sweep()["retried"] == [run.pk]
    run.refresh_from_db()
    assert run.status == "queued" and run.attempt == 2 and run.task_id == f"run-{run.pk}-1"
    assert "retrying (attempt 2) from the start" in run.status_reason
    assert run_resume_point(run=run) is None


def test_a_lost_run_with_steps_recorded_but_nothing_done_starts_again_after_those_records(automation):
    """The lost attempt recorded its first steps (opening the page, typing) but clicked nothing:
    the retry starts from the beginning in a fresh session, and its records follow the old ones
    (the trace keeps both attempts; an index taken twice would crash the retry)."""
    from venus_rpa.runs.models import Step
    from venus_rpa.runs.recovery import run_resume_point

    run = running_run(automation)
    for index, name in enumerate(("Open the start URL", "Amount")):
        Step.objects.create(run=run, index=index, kind="goto" if index == 0 else "fill", name=name, status="succeeded",
                            started_at=ago(20))
    resume = run_resume_point(run=run)
    assert (resume.position, resume.url, resume.storage_state, resume.output, resume.next_index) == (0, "", None, {}, 2)


def test_a_lost_run_resumes_after_its_last_done_action(automation, django_capture_on_commit_callbacks):
    from venus_rpa.automations.crypto import encrypt_fields
    from venus_rpa.runs.recovery import run_resume_point, runs_sweep

    run = running_run(automation)
    state = {"cookies": [{"name": "sid", "value": "s3cret", "domain": "shop.example.com", "path": "/"}], "origins": []}
    RunAction.objects.create(run=run, position=1, name="Pay now", kind="click", status=ActionStatus.DONE,
                             url_before="https://shop.example.com/", url_after="https://shop.example.com/paid",
                             session=encrypt_fields({"data": json.dumps({"state": state, "output": {"a": 1}})}),
                             next_index=2, intent_at=ago(12), done_at=ago(11))
    with django_capture_on_commit_callbacks(execute=True):
        assert runs_sweep()["retried"] == [run.pk]
    run.refresh_from_db()
    assert "after 'Pay now', which was done" in run.status_reason
    assert "s3cret" not in RunAction.objects.get(run=run).session  # cookies are stored encrypted
    resume = run_resume_point(run=run)
    assert (resume.position, resume.url, resume.output, resume.next_index) == (2, "https://shop.example.com/paid",
                                                                                {"a": 1}, 2)
    assert resume.storage_state == state


def test_a_lost_run_with_an_action_in_doubt_fails_without_repeating_it(automation):
    from venus_rpa.runs.recovery import runs_sweep

    run = running_run(automation)
    RunAction.objects.create(run=run, position=1, name="Pay now", kind="click", status=ActionStatus.INTENT,
                             intent_at=ago(11))
    assert runs_sweep()["failed"] == [run.pk]
    run.refresh_from_db()
    assert run.status == "failed"
    assert "while 'Pay now'" in run.status_reason and "not repeated" in run.status_reason


def test_a_lost_run_is_not_retried_past_its_attempts(automation):
    from venus_rpa.runs.recovery import runs_sweep

    run = running_run(automation, attempt=2)
    assert runs_sweep()["failed"] == [run.pk]
    run.refresh_from_db()
    assert run.status == "failed" and "gave up after 2 attempt(s)" in run.status_reason


def test_a_lost_run_someone_asked_to_stop_ends_cancelled_instead_of_being_retried(automation):
    from venus_rpa.runs.recovery import runs_sweep
    from venus_rpa.runs.services import run_cancel

    run = running_run(automation)
    run_cancel(run=run)  # the worker that would have stopped it is gone
    assert runs_sweep()["cancelled"] == [run.pk]
    run.refresh_from_db()
    assert run.status == "cancelled" and run.attempt == 1
    assert run.status_reason.startswith("cancelled by user; worker lost")


def test_a_lost_run_someone_asked_to_stop_names_who_asked(automation, personas):
    from venus_rpa.runs.recovery import runs_sweep
    from venus_rpa.runs.services import run_cancel

    run = running_run(automation)
    run_cancel(run=run, user=personas.owner)
    assert runs_sweep()["cancelled"] == [run.pk]
    run.refresh_from_db()
    assert run.status == "cancelled" and run.status_reason.startswith("cancelled by alice; worker lost")


def test_a_run_with_a_fresh_heartbeat_is_left_alone(automation):
    from venus_rpa.runs.recovery import runs_sweep

    run = running_run(automation)
    Run.objects.filter(pk=run.pk).update(heartbeat_at=timezone.now())
    assert not any(runs_sweep().values())


def test_a_parked_run_is_neither_failed_nor_retried_by_the_sweep(automation):
    from venus_rpa.runs.models import RunContinuation
    from venus_rpa.runs.recovery import runs_sweep
    from venus_rpa.runs.waits import run_park

    run = running_run(automation)
    assert run_park(run_id=run.pk, status=RunStatus.AWAITING_REVIEW, reason="waiting for a reviewer; parked",
                    continuation={"position": 1}, wait="review")
    Run.objects.filter(pk=run.pk).update(heartbeat_at=ago(3600))  # parked long ago: no worker, no heartbeat
    assert not any(runs_sweep().values())
    run.refresh_from_db()
    assert run.status == RunStatus.AWAITING_REVIEW and RunContinuation.objects.filter(run=run).exists()

    RunContinuation.objects.filter(run=run).delete()  # the same run held by a worker that died: lost
    assert runs_sweep()["failed"] == [run.pk]


@pytest.mark.django_db(transaction=True)  # the recorder writes from its own database thread
def test_a_worker_whose_run_was_retried_after_a_late_heartbeat_can_neither_act_nor_record_nor_end_it(automation):
    """The worker was alive, only late: once the sweep has retried its run, its next heartbeat,
    intent, step or finish is refused, so the click is never made twice and the retry's end stands."""
    import asyncio

    from venus_rpa.runs.execution import DjangoRecorder
    from venus_rpa.runs.recovery import runs_sweep
    from venus_rpa.runs.services import run_finish
    from workers.items import ItemRecord
    from workers.journal import ActionEntry, Superseded
    from workers.runner import RunResult, StepRecord

    run = running_run(automation)  # its heartbeat is 10 s old: the sweep takes its worker for lost
    late = DjangoRecorder(run.pk, attempt=1)
    assert runs_sweep()["retried"] == [run.pk]

    async def the_late_worker_goes_on():
        refused = []
        for call in (late.heartbeat(), late.action_intent(ActionEntry(1, "click", "Pay now")),
                     late.record_step(StepRecord(index=3, kind="click", name="Pay now", action={}, status="succeeded")),
                     late.record_item(ItemRecord(number=1, status="failed", error="cancelled"))):
            try:
                await call
                refused.append("")
            except Superseded as exc:
                refused.append(str(exc))
        await late.finish([], RunResult("succeeded", "paid"))
        await late.close()
        return refused

    refused = asyncio.run(the_late_worker_goes_on())
    assert all("retried as attempt 2 while this worker still ran attempt 1" in reason for reason in refused), refused
    run.refresh_from_db()
    assert (run.status, run.attempt) == ("queued", 2)  # the retry's to run, and to end
    assert not RunAction.objects.filter(run=run).exists() and not run.steps.exists()
    assert not run_finish(run_id=run.pk, status="failed", reason="internal error", attempt=1)


@pytest.mark.django_db(transaction=True)
def test_an_intent_stored_before_the_sweep_decides_makes_the_run_in_doubt_not_retried(automation):
    """The other order: the late worker journaled its click first; the sweep must not retry it."""
    import asyncio

    from venus_rpa.runs.execution import DjangoRecorder
    from venus_rpa.runs.recovery import runs_sweep
    from workers.journal import ActionEntry, Superseded

    run = running_run(automation)
    late = DjangoRecorder(run.pk, attempt=1)

    async def intend():
        await late.action_intent(ActionEntry(1, "click", "Pay now"))

    asyncio.run(intend())
    assert runs_sweep()["failed"] == [run.pk]
    run.refresh_from_db()
    assert run.status == "failed" and "not repeated" in run.status_reason

    async def beat():
        try:
            await late.heartbeat()
        finally:
            await late.close()

    with pytest.raises(Superseded, match="ended \\(failed\\)"):
        asyncio.run(beat())
