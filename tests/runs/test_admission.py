"""Admission: per-workspace limits, fairness across workspaces, slots given back, PostgreSQL safety."""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from django.db import connection

from tests.runs.conftest import queue_runs
from venus_rpa.runs import admission, services
from venus_rpa.runs.models import Run, RunStatus


def admitted_ids(runs) -> list[int]:
    return list(Run.objects.filter(pk__in=[r.pk for r in runs], admitted_at__isnull=False)
                .order_by("pk").values_list("pk", flat=True))


def start(run_ids) -> None:
    for run_id in run_ids:
        assert services.run_claim(run_id=run_id) is not None


@pytest.mark.django_db
def test_a_workspace_gets_no_more_slots_than_its_limit_oldest_runs_first(two_workspaces, settings):
    settings.VENUS_RUNS_PER_WORKSPACE = 2
    runs = queue_runs(two_workspaces["a"], 5)

    assert admission.runs_admit() == [runs[0].pk, runs[1].pk]
    assert admission.runs_admit() == []  # full: nothing more until a slot frees
    assert admitted_ids(runs) == [runs[0].pk, runs[1].pk]


@pytest.mark.django_db
def test_an_owners_limit_overrides_the_default(two_workspaces, settings):
    settings.VENUS_RUNS_PER_WORKSPACE = 2
    workspace = two_workspaces["a"].workspace
    workspace.max_concurrent_runs = 3
    workspace.save()
    queue_runs(two_workspaces["a"], 5)

    assert len(admission.runs_admit()) == 3


@pytest.mark.django_db
def test_the_next_free_slot_goes_to_the_workspace_with_fewer_runs_in_flight(two_workspaces, settings, sent,
                                                                             django_capture_on_commit_callbacks):
    settings.VENUS_RUNS_PER_WORKSPACE, settings.VENUS_RUNS_MAX_ACTIVE = 8, 2
    many = queue_runs(two_workspaces["a"], 10)
    with django_capture_on_commit_callbacks(execute=True):
        services.runs_dispatch()
    start(sent)
    assert sent == [many[0].pk, many[1].pk]  # the platform cap holds A to two

    (one,) = queue_runs(two_workspaces["b"], 1)  # B submits after A's hundred-run backlog
    with django_capture_on_commit_callbacks(execute=True):
        assert services.runs_dispatch() == []  # no free slot yet
        services.run_finish(run_id=many[0].pk, status=RunStatus.SUCCEEDED, reason="done")

    assert sent[-1] == one.pk  # B (nothing in flight) before A's third run (one in flight)
    assert admitted_ids(many) == [many[0].pk, many[1].pk]


@pytest.mark.django_db
def test_slots_are_shared_round_robin_when_both_workspaces_have_a_backlog(two_workspaces, settings):
    settings.VENUS_RUNS_PER_WORKSPACE, settings.VENUS_RUNS_MAX_ACTIVE = 8, 5
    a_runs = queue_runs(two_workspaces["a"], 10)
    b_runs = queue_runs(two_workspaces["b"], 10)

    admission.runs_admit()

    assert len(admitted_ids(a_runs)) == 3 and len(admitted_ids(b_runs)) == 2  # A's oldest run is older: it breaks the tie


@pytest.mark.django_db
def test_a_cancelled_admitted_run_gives_its_slot_to_the_next(two_workspaces, settings, sent,
                                                            django_capture_on_commit_callbacks):
    settings.VENUS_RUNS_PER_WORKSPACE = 1
    first, second = queue_runs(two_workspaces["a"], 2)
    with django_capture_on_commit_callbacks(execute=True):
        services.runs_dispatch()
    assert sent == [first.pk]

    with django_capture_on_commit_callbacks(execute=True):
        services.run_cancel(run=first)

    assert sent == [first.pk, second.pk]
    assert services.run_claim(run_id=first.pk) is None  # its message, still in the queue, does nothing


@pytest.mark.django_db
def test_a_parked_wait_gives_back_its_slot_and_a_held_one_keeps_it(two_workspaces, settings, sent,
                                                                  django_capture_on_commit_callbacks):
    settings.VENUS_RUNS_PER_WORKSPACE = 1
    waiting_for_review, next_run = queue_runs(two_workspaces["a"], 2)
    with django_capture_on_commit_callbacks(execute=True):
        services.runs_dispatch()
    start(sent)
    Run.objects.filter(pk=waiting_for_review.pk).update(status=RunStatus.AWAITING_REVIEW)
    assert admission.runs_admit() == []  # held by its worker: still in its slot

    with django_capture_on_commit_callbacks(execute=True):
        assert services.run_slot_release(run_id=waiting_for_review.pk)

    assert sent == [waiting_for_review.pk, next_run.pk]
    assert not services.run_slot_release(run_id=waiting_for_review.pk)  # once


@pytest.mark.django_db
def test_a_parked_run_resumed_by_a_decision_takes_a_slot_again_and_counts_against_the_limit(
        two_workspaces, settings, sent, monkeypatch, django_capture_on_commit_callbacks):
    from venus_rpa.runs import waits

    resumed: list[int] = []
    monkeypatch.setattr(waits, "_enqueue_resume", resumed.append)  # no agent worker here
    settings.VENUS_RUNS_PER_WORKSPACE = 1
    parked, later = queue_runs(two_workspaces["a"], 2)
    with django_capture_on_commit_callbacks(execute=True):
        services.runs_dispatch()
    start(sent)
    assert waits.run_park(run_id=parked.pk, status=RunStatus.AWAITING_REVIEW, reason="waiting", continuation={},
                          wait="review")
    with django_capture_on_commit_callbacks(execute=True):
        assert services.run_slot_release(run_id=parked.pk)  # what the worker does after parking
    assert sent == [parked.pk, later.pk]  # the slot went to the next run

    with django_capture_on_commit_callbacks(execute=True):
        assert waits.run_continue(run_id=parked.pk)  # the reviewer decided
    assert resumed == [parked.pk]
    assert admitted_ids([parked]) == [parked.pk]  # it holds a slot again (over the limit, by design)
    (another,) = queue_runs(two_workspaces["a"], 1)
    assert admission.runs_admit() == []  # the workspace is full until its runs end
    with django_capture_on_commit_callbacks(execute=True):
        services.run_finish(run_id=later.pk, status=RunStatus.SUCCEEDED, reason="done")
        assert admission.runs_admit() == []  # the resumed run still holds the one slot
        services.run_finish(run_id=parked.pk, status=RunStatus.SUCCEEDED, reason="done")
    assert sent[-1] == another.pk


@pytest.mark.django_db
def test_a_run_that_was_not_admitted_is_not_started_by_a_stray_message(two_workspaces):
    (run,) = queue_runs(two_workspaces["a"], 1)

    assert services.run_claim(run_id=run.pk) is None
    run.refresh_from_db()
    assert run.status == RunStatus.QUEUED and run.admitted_at is None  # it keeps its place in line


@pytest.mark.django_db
def test_raising_the_limit_admits_waiting_runs_at_once(two_workspaces, settings, sent,
                                                      django_capture_on_commit_callbacks):
    settings.VENUS_RUNS_PER_WORKSPACE = 1
    runs = queue_runs(two_workspaces["a"], 4)
    with django_capture_on_commit_callbacks(execute=True):
        services.runs_dispatch()
        services.workspace_run_limit_set(workspace=two_workspaces["a"].workspace, max_concurrent_runs=3)

    assert sent == [r.pk for r in runs[:3]]


@pytest.mark.django_db
def test_a_broker_that_does_not_answer_puts_the_runs_back_in_line(two_workspaces, monkeypatch,
                                                                 django_capture_on_commit_callbacks):
    from kombu.exceptions import OperationalError

    def broker_down(*args, **kwargs):  # fault injection: the broker refuses the connection
        raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(services.celery_app, "send_task", broker_down)  # run_enqueue sends by task name
    runs = queue_runs(two_workspaces["a"], 3)
    with django_capture_on_commit_callbacks(execute=True):
        assert len(services.runs_dispatch()) == 3

    assert admitted_ids(runs) == []  # back in line, admitted by the next dispatch once the broker answers
    assert set(Run.objects.values_list("status", flat=True)) == {RunStatus.QUEUED}


@pytest.mark.django_db(transaction=True)
def test_concurrent_dispatchers_never_admit_past_a_limit_nor_twice(two_workspaces, settings):
    assert connection.vendor == "postgresql"
    settings.VENUS_RUNS_PER_WORKSPACE, settings.VENUS_RUNS_MAX_ACTIVE = 3, 5
    for automation in two_workspaces.values():
        queue_runs(automation, 20)
    admitted: list[int] = []
    barrier = threading.Barrier(8)

    def dispatch():
        try:
            barrier.wait()
            for _ in range(3):
                admitted.extend(admission.runs_admit())
        finally:
            connection.close()

    threads = [threading.Thread(target=dispatch) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(admitted) == len(set(admitted)) == 5
    per_workspace = Counter(Run.objects.filter(admitted_at__isnull=False).values_list("workspace", flat=True))
    assert sorted(per_workspace.values()) == [2, 3]
