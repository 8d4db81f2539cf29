"""Real applications end to end: one real Celery worker (the e2e one), each app's server per
module, reset before every test. Skipped with a clear reason when an app cannot be installed."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import model_server, worker  # noqa: F401 — the real worker these tests drive


def app_server(app):
    """A module fixture body: the app installed (or the module skipped with why) and served."""
    from practice.realapps._support import InstallError

    try:
        app.ensure_installed()
    except InstallError as exc:
        pytest.skip(f"{app.NAME} could not be installed: {exc} (scripts/realapps.sh)")
    with app.Server() as server:
        yield server


@pytest.fixture
def workspace(transactional_db):
    from tests.factories import WorkspaceFactory

    return WorkspaceFactory(name="Real apps")


@pytest.fixture
def reviewer(workspace):
    from tests.helpers.realapps import reviewer_in

    return reviewer_in(workspace)


def task_named(app, name: str) -> dict:
    from practice.realapps import tasks_of

    return next(t for t in tasks_of(app) if t["name"] == name)


def drive(app, server, name: str, *, workspace, reviewer, decision: str = "approve"):
    """Reset the app, run the task and return (task, outcome)."""
    from tests.helpers.realapps import run_task, task_automation

    task = task_named(app, name)
    server.reset()
    automation = task_automation(workspace=workspace, app=app, server=server, task=task)
    return task, run_task(automation=automation, task=task, server=server, reviewer=reviewer, decision=decision)
