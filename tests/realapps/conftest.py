"""Real applications end to end: one real Celery worker of their own, on a queue of their own
(other workers of the session, some of which live through the fault tests' restarts of Redis
and PostgreSQL, never take these runs), the server of each test module's `app`
(practice/realapps/<app>/app.py) per module, reset before every test. An app that cannot be
installed FAILS its module's tests with the reason (a skip would hide a broken setup in CI, which
installs them: scripts/setup.sh runs scripts/realapps.sh)."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import model_server, worker_env  # noqa: F401 — the model test double these runs use

QUEUE = "realapps"


@pytest.fixture(scope="session")
def worker(django_db_setup, django_db_blocker, tmp_path_factory, model_server):  # noqa: F811
    """The real worker these tests drive, configured as the e2e one, on the realapps queue."""
    from tests.helpers.worker import celery_worker

    log = tmp_path_factory.mktemp("realapps-worker") / "worker.log"
    env = {**worker_env(model_server), "VENUS_AGENT_QUEUE": QUEUE}
    with celery_worker(queues=QUEUE, name=QUEUE, log_path=log, extra_env=env) as proc:
        yield proc
    print(f"worker log: {log}")


@pytest.fixture(autouse=True)
def realapps_queue(settings):
    """This directory's runs (and their continuations) go to its own worker: web runs are routed
    to `VENUS_AGENT_QUEUE` (venus_rpa.runs.queues)."""
    settings.VENUS_AGENT_QUEUE = QUEUE


@pytest.fixture(scope="module")
def server(request):
    """The test module's `app` installed (or its tests failed with why) and served."""
    from practice.realapps._support import InstallError

    app = request.module.app
    try:
        app.ensure_installed()
    except InstallError as exc:
        pytest.fail(f"{app.NAME} could not be installed: {exc} (install it with scripts/realapps.sh)", pytrace=False)
    with app.Server() as served:
        yield served


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


def drive(app, server, name: str, *, workspace, reviewer, decision: str = "approve", worker=None):
    """Reset the app, run the task and return (task, outcome). A run still going at the harness's
    time limit has `worker` (the real worker it ran on) write where it waits into its log, and
    the outcome's reason quotes it."""
    from tests.helpers.realapps import run_task, task_automation

    task = task_named(app, name)
    server.reset()
    automation = task_automation(workspace=workspace, app=app, server=server, task=task)
    outcome = run_task(automation=automation, task=task, server=server, reviewer=reviewer, decision=decision)
    if outcome.status == "timeout" and worker is not None:
        outcome.reason += "\n" + worker_dump(worker)
    return task, outcome


def worker_dump(worker) -> str:
    """Where the worker's runs wait now (SIGUSR2: venus_rpa.runs.process), from its log."""
    import os
    import signal
    import time

    from tests.helpers.worker import log_tail

    os.kill(worker.pid, signal.SIGUSR2)
    time.sleep(3)
    return log_tail(worker, chars=12000)


def check_plain_task(app, server, name: str, *, workspace, reviewer, known_false_positives: int = 0, worker=None):
    """A task without consequences: it succeeds, asks no more distinct reviews than the known false
    positives, changes the app as its check says, and its sign-in steps signed in. Returns the
    outcome."""
    task, outcome = drive(app, server, name, workspace=workspace, reviewer=reviewer, worker=worker)
    assert outcome.succeeded, outcome.reason
    assert len({r["title"] for r in outcome.reviews}) <= known_false_positives, outcome.reviews
    assert task["check"](server)
    assert task_named(app, f"{app.NAME}-sign-in")["check"](server)  # the sign-in steps every task starts with
    return outcome
