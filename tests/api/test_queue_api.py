"""Queue position and wait in the runs API, and the workspace settings endpoint (owners only)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.api.conftest import assert_error
from tests.reviews.conftest import make_automation
from tests.runs.conftest import queue_runs
from venus_rpa.runs import admission, services
from venus_rpa.runs.models import Run

pytestmark = pytest.mark.django_db


def by_id(response) -> dict[int, dict]:
    assert response.status_code == 200, response.json()
    return {run["id"]: run for run in response.json()["results"]}


def test_runs_show_their_place_in_their_workspaces_queue(owner, automation, personas, settings):
    settings.VENUS_RUNS_PER_WORKSPACE = 1
    queue_runs(make_automation(personas.other_workspace), 3)  # another workspace's queue is not counted
    first, second, third = queue_runs(automation, 3)
    admission.runs_admit()

    runs = by_id(owner.get("/api/runs/"))
    assert [runs[r.pk]["queue_position"] for r in (first, second, third)] == [0, 1, 2]
    assert owner.get(f"/api/runs/{third.pk}/").json()["queue_position"] == 2

    services.run_claim(run_id=first.pk)
    runs = by_id(owner.get("/api/runs/"))
    assert runs[first.pk]["queue_position"] is None  # started
    assert [runs[r.pk]["queue_position"] for r in (second, third)] == [1, 2]

    services.run_cancel(run=second)
    assert owner.get(f"/api/runs/{third.pk}/").json()["queue_position"] == 1


def test_a_run_shows_how_long_it_waited_for_a_worker(owner, automation):
    waiting, started = queue_runs(automation, 2)
    ten_s_ago = timezone.now() - timedelta(seconds=10)
    Run.objects.filter(pk=waiting.pk).update(created_at=ten_s_ago)
    Run.objects.filter(pk=started.pk).update(created_at=ten_s_ago, started_at=ten_s_ago + timedelta(seconds=4),
                                             status="running", admitted_at=ten_s_ago)

    runs = by_id(owner.get("/api/runs/"))
    assert 10 <= runs[waiting.pk]["queued_for_s"] < 20  # still waiting: counts on
    assert runs[started.pk]["queued_for_s"] == 4.0


def test_the_start_answer_carries_the_queue_position(owner, automation, settings):
    settings.VENUS_RUNS_PER_WORKSPACE = 1
    queue_runs(automation, 2)
    admission.runs_admit()

    response = owner.post(f"/api/automations/{automation.slug}/runs/", {"params": {}}, format="json")

    assert response.status_code == 202
    assert response.json()["queue_position"] == 2 and response.json()["queued_for_s"] >= 0


def test_any_member_reads_the_workspace_concurrency(viewer, automation, settings):
    settings.VENUS_RUNS_PER_WORKSPACE = 2
    queue_runs(automation, 3)
    admission.runs_admit()

    body = viewer.get("/api/workspace/").json()

    assert body == {"name": "Acme", "slug": body["slug"], "max_concurrent_runs": None,
                    "effective_max_concurrent_runs": 2, "default_max_concurrent_runs": 2, "runs_active": 2,
                    "runs_waiting": 1}


def test_an_owner_sets_and_resets_the_limit(owner, personas):
    response = owner.patch("/api/workspace/", {"max_concurrent_runs": 3}, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["effective_max_concurrent_runs"] == 3
    personas.workspace.refresh_from_db()
    assert personas.workspace.max_concurrent_runs == 3

    response = owner.patch("/api/workspace/", {"max_concurrent_runs": None}, format="json")
    assert response.json()["max_concurrent_runs"] is None
    personas.workspace.refresh_from_db()
    assert personas.workspace.max_concurrent_runs is None


@pytest.mark.parametrize("role", ["editor", "viewer"])
def test_editors_and_viewers_cannot_change_the_limit(request, personas, role):
    client = request.getfixturevalue(role)

    response = client.patch("/api/workspace/", {"max_concurrent_runs": 50}, format="json")

    assert_error(response, 403)
    personas.workspace.refresh_from_db()
    assert personas.workspace.max_concurrent_runs is None


def test_an_outsider_changes_only_their_own_workspace(outsider, personas):
    assert outsider.patch("/api/workspace/", {"max_concurrent_runs": 2}, format="json").status_code == 200

    personas.workspace.refresh_from_db()
    personas.other_workspace.refresh_from_db()
    assert personas.workspace.max_concurrent_runs is None and personas.other_workspace.max_concurrent_runs == 2


@pytest.mark.parametrize("value", [0, -1, 10_000, "4", 2.5, True])
def test_a_limit_out_of_range_or_not_a_whole_number_is_a_400(owner, personas, value):
    response = owner.patch("/api/workspace/", {"max_concurrent_runs": value}, format="json")

    error = assert_error(response, 400, "invalid")
    assert "max_concurrent_runs" in error["fields"]
    personas.workspace.refresh_from_db()
    assert personas.workspace.max_concurrent_runs is None
