"""Two-step sign-in end to end: a real Celery worker types the practice site's one-time code.

The credential holds the account's TOTP secret; `{{credentials.NAME.totp}}` types the code of the
moment. Neither the secret nor any code around the run's time reaches a step record, the run's
API answer or the worker's log.
"""

from __future__ import annotations

import json
import time

import pyotp
import pytest
from django.utils import timezone

from tests.e2e.conftest import wait_for_run
from tests.helpers.worker import celery_worker

pytestmark = pytest.mark.e2e
TERMINAL = {"succeeded", "failed", "cancelled", "timed_out"}
SECRET = "VQZ3DYJ7NCMX4LHWT5EKGRAUBP2SIO6F"  # practice/settings.py PRACTICE_2FA_SECRET
QUEUE = "two-step"


@pytest.fixture(scope="module")
def totp_worker(django_db_setup, django_db_blocker, tmp_path_factory):
    log = tmp_path_factory.mktemp("totp-worker") / "worker.log"
    with celery_worker(queues=QUEUE, name=QUEUE, log_path=log):
        yield log


def two_step_definition(practice_url: str) -> dict:
    cred = "{{credentials.otp-login.%s}}"
    return {
        "surface": "web", "start_url": practice_url.rstrip("/") + "/login", "allowed_domains": ["127.0.0.1"],
        "credentials": ["otp-login"],
        "steps": [
            {"kind": "fill", "target": "Username", "value": cred % "username"},
            {"kind": "fill", "target": "Password", "value": cred % "password"},
            {"kind": "click", "target": "Sign in"},
            {"kind": "fill", "name": "Type the one-time code", "target": "One-time code", "value": cred % "totp"},
            {"kind": "click", "target": "Verify"},
            {"kind": "wait_for", "url_contains": "/expenses/new"},
        ],
        "success_criteria": {"text_visible": "otp-demo", "url_contains": "/expenses/new"},
    }


def test_a_run_signs_in_with_the_current_one_time_code_and_never_records_it(totp_worker, demo, practice_url):
    from venus_rpa.automations.services import automation_create, credential_set
    from venus_rpa.runs.models import Run
    from venus_rpa.runs.tasks import run_execute_task

    workspace = demo["workspace"]
    credential_set(workspace=workspace, name="otp-login", domains=["127.0.0.1"],
                   fields={"username": "otp-demo", "password": "otp-demo-password",
                           "totp": " ".join(SECRET[i:i + 4] for i in range(0, len(SECRET), 4)).lower()})
    automation = automation_create(workspace=workspace, user=None, slug="two-step", name="Two-step sign-in",
                                   definition=two_step_definition(practice_url))
    started = time.time()
    run = Run.objects.create(workspace=workspace, automation=automation, version=automation.current_version,
                             params={}, admitted_at=timezone.now())
    run_execute_task.apply_async(args=[run.pk], queue=QUEUE)
    run = wait_for_run(run.pk, statuses=TERMINAL, timeout=90)
    assert run.status == "succeeded", run.status_reason

    code_step = run.steps.get(name="Type the one-time code")
    assert code_step.action["value"] == "{{credentials.otp-login.totp}}"
    totp = pyotp.TOTP(SECRET)
    codes = {totp.at(t) for t in range(int(started) - 60, int(time.time()) + 61, 30)}
    records = json.dumps([[s.action, s.grounding, s.error, s.thought, s.output, s.url] for s in run.steps.all()],
                         default=str)
    log = totp_worker.read_text()
    for leaked in (*codes, SECRET, "otp-demo-password"):
        assert leaked not in records, leaked
        assert leaked not in log, leaked
        assert leaked not in (run.status_reason or "")
