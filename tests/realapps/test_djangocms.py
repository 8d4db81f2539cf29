"""django CMS 3.11 behind django-two-factor-auth, driven end to end by a real Celery worker with
steps written from what is on screen (practice/realapps/djangocms/tasks.py): every task signs in
with the one-time code of the moment; create a page, edit a page's title and description, publish
a page (approved) and delete a user (rejected). A consequential act waits for a reviewer before
anything changes in django CMS. How many reviews each act takes is measured by the benchmark
(benchmarks/realapps.py) and recorded in FIRST_TRY.md."""

from __future__ import annotations

import json
import time

import pyotp
import pytest

from practice.realapps.djangocms import app
from tests.realapps.conftest import check_plain_task, drive

pytestmark = [pytest.mark.e2e, pytest.mark.realapps]


def test_creating_a_page_signs_in_with_the_current_one_time_code_and_records_no_secret(
        worker, server, workspace, reviewer):
    from venus_rpa.runs.models import Run

    started = time.time()
    # the sign-in's check: the site's TOTP device accepted a code
    outcome = check_plain_task(app, server, "djangocms-create-page", workspace=workspace, reviewer=reviewer, worker=worker)
    run = Run.objects.get(pk=outcome.run_id)
    assert run.steps.get(name="Type the one-time code").action["value"] == "{{credentials.realapp-djangocms.totp}}"
    totp = pyotp.TOTP(server.totp_secret)
    codes = {totp.at(t) for t in range(int(started) - 60, int(time.time()) + 61, 30)}
    records = json.dumps([[s.action, s.grounding, s.error, s.thought, s.output, s.url] for s in run.steps.all()],
                         default=str)
    for leaked in (*codes, server.totp_secret, server.password):
        assert leaked not in records and leaked not in (run.status_reason or "")


def test_editing_a_page_runs_without_a_review(worker, server, workspace, reviewer):
    check_plain_task(app, server, "djangocms-edit-page", workspace=workspace, reviewer=reviewer, worker=worker)


def test_publishing_waits_for_a_review_before_anything_changed_and_approval_publishes(
        worker, server, workspace, reviewer):
    task, outcome = drive(app, server, "djangocms-publish-page", workspace=workspace, reviewer=reviewer, worker=worker)
    assert outcome.succeeded, outcome.reason
    assert outcome.reviews[-1]["step"] == "Publish the page", outcome.reviews
    assert outcome.reviewed_before_change  # still unpublished while every review waited
    assert task["check"](server)


def test_a_rejected_user_deletion_leaves_the_user(worker, server, workspace, reviewer):
    task, outcome = drive(app, server, "djangocms-delete-user", workspace=workspace, reviewer=reviewer, worker=worker,
                          decision="reject")
    assert outcome.status == "failed" and "rejected by reviewer rita" in outcome.reason, outcome.reason
    assert outcome.reviews[-1]["step"] == "Confirm the deletion", outcome.reviews
    assert outcome.reviewed_before_change
    assert task["check_unchanged"](server)
