"""Fair concurrency with a real Celery worker, Chromium and PostgreSQL: a workspace that queues
many runs does not starve one that queues a single run afterwards."""

from __future__ import annotations

import json
import statistics

import pytest
from rest_framework.test import APIClient

from tests.e2e.conftest import wait_for_run

pytestmark = pytest.mark.e2e
TERMINAL = {"succeeded", "failed", "cancelled", "timed_out"}
A_RUNS = 12


def workspace_with_job(name: str, practice_url: str) -> tuple:
    """A workspace, its owner's API client and a short automation (about a second in Chromium)."""
    from tests.factories import MembershipFactory, UserFactory, WorkspaceFactory
    from venus_rpa.accounts.services import api_token_create
    from venus_rpa.automations.services import automation_create

    workspace, owner = WorkspaceFactory(name=name), UserFactory(username=f"owner-{name.lower()}")
    MembershipFactory(workspace=workspace, user=owner, role="owner")
    automation_create(workspace=workspace, user=owner, slug="load-data", name="Load data", definition={
        "start_url": practice_url + "/lab/delayed", "allowed_domains": ["127.0.0.1"],
        "steps": [{"kind": "click", "target": {"role": "button", "name": "Load data"}},
                  {"kind": "wait_for", "text": "Data loaded"}],
    })
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_token_create(workspace=workspace, user=owner, name='e2e')[1]}")
    return workspace, client


def test_a_workspace_with_one_run_is_not_starved_by_one_with_many(worker, transactional_db, practice_url):
    from venus_rpa.runs.models import Run

    a, a_client = workspace_with_job("Acme", practice_url)
    b, b_client = workspace_with_job("Bravo", practice_url)
    # The worker has 4 threads; A may hold all of them (its owner's limit), B keeps the default.
    assert a_client.patch("/api/workspace/", {"max_concurrent_runs": 4}, format="json").status_code == 200

    a_ids = [a_client.post("/api/automations/load-data/runs/", {}, format="json").json()["id"] for _ in range(A_RUNS)]
    positions = [a_client.get(f"/api/runs/{run_id}/").json()["queue_position"] for run_id in a_ids]
    in_line = [p for p in positions if p]  # 0: admitted, None: started; the rest wait in line, in order
    assert len(in_line) >= A_RUNS - 8 and in_line == list(range(in_line[0], in_line[0] + len(in_line))), positions
    b_id = b_client.post("/api/automations/load-data/runs/", {}, format="json").json()["id"]

    runs = [wait_for_run(run_id, statuses=TERMINAL, timeout=180) for run_id in [*a_ids, b_id]]
    assert all(run.status == "succeeded" for run in runs), [run.status_reason for run in runs]
    order = list(Run.objects.filter(pk__in=[*a_ids, b_id]).order_by("started_at", "pk").values_list("pk", flat=True))
    b = next(run for run in runs if run.pk == b_id)
    b_place = order.index(b_id)
    waits = {run.pk: (run.started_at - run.created_at).total_seconds() for run in runs}
    # A's runs still waiting when B arrived, and those of them that started before B. Measured from
    # B's arrival, not by places in the whole order: how many of A's runs start before B is posted
    # depends on how fast this test posts (a loaded machine posts slowly), not on the dispatcher.
    waiting = [run for run in runs if run.pk != b_id and run.started_at > b.created_at]
    ahead = [run for run in waiting if run.started_at < b.started_at]
    figures = {
        "start_order": ["B" if pk == b_id else "A" for pk in order], "b_started_as": b_place + 1,
        "a_wait_p50_s": round(statistics.median(waits[pk] for pk in a_ids), 2), "b_wait_s": round(waits[b_id], 2),
        "a_after_b": len(order) - 1 - b_place, "a_waiting_when_b_came": len(waiting), "a_of_them_before_b": len(ahead),
    }
    print("fairness:", json.dumps(figures))
    # B started as soon as a slot freed: of A's runs still waiting when B came, at most the four
    # already admitted (A's limit, one per worker thread) started before it; every other one after.
    assert len(ahead) <= 4, figures
    assert len(waiting) >= 2, figures  # the test posted fast enough to measure something
    assert waits[b_id] < statistics.median(waits[pk] for pk in a_ids), figures
