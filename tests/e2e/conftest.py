from __future__ import annotations

import json
import time

import httpx
import pytest

from tests.helpers.fake_model import FakeModel
from tests.helpers.worker import celery_worker


def judges_config(model_server) -> str:
    """A second judge, "strict", served by the same test double (the first is "ui-venus" itself)."""
    return json.dumps([{"name": "strict", "url": model_server.url, "model": model_server.model}])


def worker_env(model_server) -> dict:
    """How the e2e workers reach the model test double (and its second judge)."""
    return {"VENUS_MODEL_URL": model_server.url, "VENUS_MODEL": model_server.model, "VENUS_MODEL_TRIES": "2",
            "VENUS_MODEL_TIMEOUT": "10", "VENUS_JUDGES": judges_config(model_server)}


@pytest.fixture(scope="session")
def model_server():
    """The UI-Venus test double: a real OpenAI-compatible HTTP server answering from a script."""
    with FakeModel() as fake:
        yield fake


@pytest.fixture
def fake_model(model_server):
    model_server.clear()
    model_server.default = None
    return model_server


@pytest.fixture(scope="session")
def worker(django_db_setup, django_db_blocker, tmp_path_factory, model_server):
    """One real Celery worker process (agent + default queues) for the e2e session, configured
    with the model test double."""
    log = tmp_path_factory.mktemp("worker") / "worker.log"
    with celery_worker(log_path=log, extra_env=worker_env(model_server)) as proc:
        yield proc
    print(f"worker log: {log}")


@pytest.fixture
def demo(transactional_db, practice_url):
    """The seeded demo workspace (committed, so the worker sees it) and a clean practice site."""
    from django.core.management import call_command

    from venus_rpa.accounts.models import ApiToken, Workspace
    from venus_rpa.automations.models import Automation

    httpx.post(practice_url + "/api/reset")
    call_command("seed_demo", practice_url=practice_url, stdout=open("/dev/null", "w"))
    workspace = Workspace.objects.get(slug="demo")
    return {"workspace": workspace, "automation": Automation.objects.get(workspace=workspace, slug="demo-expense"),
            "token": ApiToken.objects.filter(workspace=workspace).first()}


def wait_for_run(run_id: int, *, statuses, timeout: float = 60.0):
    from venus_rpa.runs.models import Run

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run = Run.objects.get(pk=run_id)
        if run.status in statuses:
            return run
        time.sleep(0.1)
    run = Run.objects.get(pk=run_id)
    waiting = [(r.kind, r.title, r.detail.get("reason") or r.detail.get("verdict")) for r in run.review_requests.all()]
    raise AssertionError(f"run {run_id} still {run.status} after {timeout}s ({run.status_reason}; reviews: {waiting})")
