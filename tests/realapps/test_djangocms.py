"""django CMS 3.11 behind django-two-factor-auth, driven end to end by a real Celery worker with
steps written from what is on screen (practice/realapps/djangocms/tasks.py): every task signs in
with the one-time code of the moment; create a page, edit a page's title and description, publish
a page (approved) and delete a user (rejected). A consequential act waits for a reviewer before
anything changes in django CMS. How many reviews each act takes is measured by the benchmark
(benchmarks/realapps.py) and recorded in FIRST_TRY.md."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field

import pyotp
import pytest

from practice.realapps.djangocms import app
from practice.realapps.djangocms.tasks import TASKS
from tests.e2e.conftest import model_server, worker  # noqa: F401 — the real worker these tests drive

pytestmark = [pytest.mark.e2e]
TERMINAL = {"succeeded", "failed", "cancelled", "timed_out"}


@dataclass
class Outcome:
    run: object
    reviews: list = field(default_factory=list)  # (step name, review title)
    unchanged_while_waiting: bool = True


@pytest.fixture(scope="module")
def cms():
    try:
        app.ensure_installed()
    except app.InstallError as exc:
        pytest.skip(f"django CMS could not be installed: {exc} (scripts/realapps_djangocms.sh)")
    with app.Server() as server:
        yield server


@pytest.fixture
def workspace(transactional_db):
    from tests.factories import WorkspaceFactory

    return WorkspaceFactory(name="Real apps")


@pytest.fixture
def reviewer(workspace):
    from venus_rpa.accounts.models import Membership, Role
    from tests.factories import UserFactory

    user = UserFactory(username="rita")
    Membership.objects.create(workspace=workspace, user=user, role=Role.REVIEWER)
    return user


def task_named(name: str) -> dict:
    return next(t for t in TASKS if t["name"] == name)


def drive(cms, name: str, *, workspace, reviewer, commit: str = "approve", timeout: float = 90) -> Outcome:
    """Reset the site, run the task through the production path (run_start → dispatcher → the
    worker) and decide each review, checking first that the site is unchanged: the task's commit
    steps get `commit`, any other review (a lead-in) is approved."""
    from venus_rpa.automations.services import automation_create, credential_set
    from venus_rpa.reviews.models import ReviewRequest
    from venus_rpa.reviews.services import review_decide
    from venus_rpa.runs.models import Run
    from venus_rpa.runs.services import run_start

    task = task_named(name)
    cms.reset()
    credential_set(workspace=workspace, name="realapp-djangocms", fields=cms.credential_fields(),
                   domains=["127.0.0.1"])
    definition = {**task["definition"], "start_url": cms.base_url + task["definition"]["start_url"],
                  "allowed_domains": ["127.0.0.1"], "credentials": ["realapp-djangocms"],
                  "param_schema": {"type": "object", "properties": {
                      k: {"type": "string", "default": v} for k, v in task["params"].items()}}}
    automation = automation_create(workspace=workspace, user=None, slug=name, name=name, definition=definition)
    run = run_start(automation=automation, params=task["params"])
    outcome = Outcome(run=run)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run = Run.objects.get(pk=run.pk)
        if run.status in TERMINAL:
            outcome.run = run
            return outcome
        review = ReviewRequest.objects.filter(run=run, kind="risky_action", status="pending").first()
        if run.status == "awaiting_review" and review is not None:
            if "check_unchanged" in task and not task["check_unchanged"](cms):
                outcome.unchanged_while_waiting = False
            step = (review.detail.get("step") or {}).get("name", "")
            outcome.reviews.append((step, review.title))
            decision = commit if step in task["commit_steps"] else "approve"
            review_decide(review=review, user=reviewer, decision=decision, comment=f"{decision} (test)")
        time.sleep(0.2)
    raise AssertionError(f"run {run.pk} still {run.status} after {timeout}s")


def test_creating_a_page_signs_in_with_the_current_one_time_code_and_records_no_secret(
        worker, cms, workspace, reviewer):
    started = time.time()
    outcome = drive(cms, "djangocms-create-page", workspace=workspace, reviewer=reviewer)
    run = outcome.run
    assert run.status == "succeeded", run.status_reason
    assert outcome.reviews == []
    assert task_named("djangocms-sign-in")["check"](cms)  # the site's TOTP device accepted a code
    assert task_named("djangocms-create-page")["check"](cms)
    assert run.steps.get(name="Type the one-time code").action["value"] == "{{credentials.realapp-djangocms.totp}}"
    totp = pyotp.TOTP(cms.totp_secret)
    codes = {totp.at(t) for t in range(int(started) - 60, int(time.time()) + 61, 30)}
    records = json.dumps([[s.action, s.grounding, s.error, s.thought, s.output, s.url] for s in run.steps.all()],
                         default=str)
    for leaked in (*codes, cms.totp_secret, cms.password):
        assert leaked not in records and leaked not in (run.status_reason or "")


def test_editing_a_page_runs_without_a_review(worker, cms, workspace, reviewer):
    outcome = drive(cms, "djangocms-edit-page", workspace=workspace, reviewer=reviewer)
    assert outcome.run.status == "succeeded", outcome.run.status_reason
    assert outcome.reviews == []
    assert task_named("djangocms-edit-page")["check"](cms)


def test_publishing_waits_for_a_review_before_anything_changed_and_approval_publishes(
        worker, cms, workspace, reviewer):
    outcome = drive(cms, "djangocms-publish-page", workspace=workspace, reviewer=reviewer, commit="approve")
    assert outcome.run.status == "succeeded", outcome.run.status_reason
    assert outcome.reviews[-1][0] == "Publish the page", outcome.reviews
    assert outcome.unchanged_while_waiting  # still unpublished while every review waited
    assert task_named("djangocms-publish-page")["check"](cms)


def test_a_rejected_user_deletion_leaves_the_user(worker, cms, workspace, reviewer):
    outcome = drive(cms, "djangocms-delete-user", workspace=workspace, reviewer=reviewer, commit="reject")
    assert outcome.run.status == "failed" and "rejected by reviewer rita" in outcome.run.status_reason
    assert outcome.reviews[-1][0] == "Confirm the deletion", outcome.reviews
    assert outcome.unchanged_while_waiting
    assert task_named("djangocms-delete-user")["check_unchanged"](cms)
