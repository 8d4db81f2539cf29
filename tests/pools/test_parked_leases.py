"""Leases kept for parked runs: a display or device stays the run's while no worker holds it, is
taken over by the worker that resumes it, and is given back when the run ends without resuming."""

from __future__ import annotations

import pytest
from django.db import transaction

from venus_rpa.pools import services
from venus_rpa.pools.models import Lease, ReleaseReason

pytestmark = pytest.mark.django_db


def _display_lease(run, host: str = "desk-1") -> Lease:
    services.pool_resource_register(kind="display", key=":99", tags={"host": host})
    return services.lease_acquire(kind="display", holder="worker@desk-1:1", run_id=run.pk, ttl_s=30.0,
                                  tags={"host": host})


def test_a_parked_lease_stays_the_runs_and_is_adopted_by_the_resuming_worker(run):
    lease = _display_lease(run)
    assert services.lease_park(lease_id=lease.pk, run_id=run.pk, ttl_s=3600)
    lease.refresh_from_db()
    assert lease.holder == f"parked:run-{run.pk}" and (lease.expires_at - lease.heartbeat_at).total_seconds() == 3600
    assert services.lease_acquire(kind="display", holder="other", run_id=None, ttl_s=30.0) is None  # not free
    adopted = services.lease_adopt(lease_id=lease.pk, run_id=run.pk, holder="worker@desk-1:2", ttl_s=30.0)
    assert adopted.pk == lease.pk and adopted.holder == "worker@desk-1:2" and adopted.resource.key == ":99"


def test_another_run_can_neither_park_nor_adopt_the_lease(run, workspace):
    from tests.pools.conftest import make_run

    lease, other = _display_lease(run), make_run(workspace, slug="other")
    assert not services.lease_park(lease_id=lease.pk, run_id=other.pk, ttl_s=60)
    assert services.lease_adopt(lease_id=lease.pk, run_id=other.pk, holder="x", ttl_s=30) is None
    services.lease_release(lease_id=lease.pk)
    assert services.lease_adopt(lease_id=lease.pk, run_id=run.pk, holder="x", ttl_s=30) is None  # released: gone


def test_a_parked_run_that_ends_without_resuming_gives_its_display_back_and_its_machine_cleans_it(
        run, django_capture_on_commit_callbacks, monkeypatch):
    from venus_rpa.pools import displays
    from venus_rpa.runs.services import run_finish

    lease = _display_lease(run, host="desk-7")
    services.lease_park(lease_id=lease.pk, run_id=run.pk, ttl_s=3600)
    sent = []
    monkeypatch.setattr(displays, "_send_discard", lambda lease_id, queue: sent.append((lease_id, queue)))
    with django_capture_on_commit_callbacks(execute=True):
        with transaction.atomic():
            run_finish(run_id=run.pk, status="cancelled", reason="cancelled while waiting for a person")
    lease.refresh_from_db()
    assert lease.released_at and lease.release_reason == ReleaseReason.RUN_ENDED
    assert sent == [(lease.pk, "desktop.desk-7")]  # the session is discarded on the display's machine


def test_the_continuation_of_a_run_with_a_kept_display_goes_to_its_machines_queue(run):
    from venus_rpa.runs.queues import route_run_task

    resume, start = "venus_rpa.runs.tasks.run_resume_task", "venus_rpa.runs.tasks.run_execute_task"
    assert route_run_task(resume, [run.pk], {}, {}) == {"queue": "agent"}  # a web run keeps nothing
    lease = _display_lease(run, host="desk-3")
    services.lease_park(lease_id=lease.pk, run_id=run.pk, ttl_s=3600)
    assert route_run_task(resume, [run.pk], {}, {}) == {"queue": "desktop.desk-3"}
    assert route_run_task(start, [run.pk], {}, {}) == {"queue": "agent"}


def test_a_desktop_workers_own_queue_does_not_make_it_serve_the_web():
    from venus_rpa.runs.queues import surfaces_served

    assert surfaces_served({"desktop", "desktop.desk-3"}) == {"desktop"}
