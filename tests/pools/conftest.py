"""Fixtures for pools: resources to lease and a run to hold them."""

from __future__ import annotations

import pytest


def make_run(workspace, *, slug: str = "lease-holder", status: str = "running"):
    """A run of a one-step automation, created directly (nothing is enqueued)."""
    from venus_rpa.automations.services import automation_create
    from venus_rpa.runs.models import Run

    automation = automation_create(workspace=workspace, user=None, slug=slug, name=slug, definition={
        "start_url": "http://127.0.0.1:8765/", "allowed_domains": ["127.0.0.1"],
        "steps": [{"kind": "goto", "url": "http://127.0.0.1:8765/"}],
    })
    return Run.objects.create(workspace=workspace, automation=automation, version=automation.current_version,
                              status=status)


@pytest.fixture
def workspace(db):
    from tests.factories import WorkspaceFactory

    return WorkspaceFactory(name="Acme")


@pytest.fixture
def run(workspace):
    return make_run(workspace)
