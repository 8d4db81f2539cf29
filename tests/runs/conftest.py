"""Fixtures for run dispatch: two workspaces with an automation each, runs created as run_start
creates them, and a recorder of what would be sent to the agent queue."""

from __future__ import annotations

import pytest


@pytest.fixture
def two_workspaces(db):
    from tests.factories import WorkspaceFactory
    from tests.reviews.conftest import make_automation

    a, b = WorkspaceFactory(name="Acme"), WorkspaceFactory(name="Bravo")
    return {"a": make_automation(a, slug="a-job"), "b": make_automation(b, slug="b-job")}


def queue_runs(automation, count: int) -> list:
    """`count` queued runs of the automation, oldest first (what run_start leaves before dispatch)."""
    from venus_rpa.runs.models import Run

    return [Run.objects.create(workspace=automation.workspace, automation=automation,
                               version=automation.current_version) for _ in range(count)]


@pytest.fixture
def sent(monkeypatch) -> list[int]:
    """Run ids `runs_dispatch` sends to the agent queue, recorded instead of sent (no agent worker
    runs in these tests; the e2e tests send them for real)."""
    ids: list[int] = []
    monkeypatch.setattr("venus_rpa.runs.services.run_enqueue", lambda run_id: ids.append(run_id) or True)
    return ids


@pytest.fixture
def pay_automation(personas):
    """An automation of one step that pays on shop.example.com (nothing is sent there: no worker)."""
    from venus_rpa.automations.services import automation_create

    return automation_create(
        workspace=personas.workspace, user=personas.owner, slug="pay", name="Pay",
        definition={"start_url": "https://shop.example.com/", "allowed_domains": ["shop.example.com"],
                    "steps": [{"kind": "click", "name": "Pay now", "target": "Pay"}]})
