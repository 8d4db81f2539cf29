"""Roundup 2.6 (classic template) driven end to end by steps written from what is on screen:
sign in, create an issue, change an issue's status, and retire a user — a consequential act that
waits for a reviewer before anything changes in Roundup."""

from __future__ import annotations

import pytest

from practice.realapps.roundup import app
from tests.helpers.realapps import review_counts
from tests.realapps.conftest import app_server, drive

pytestmark = [pytest.mark.e2e, pytest.mark.realapps]


@pytest.fixture(scope="module")
def roundup():
    yield from app_server(app)


@pytest.mark.parametrize("name", ["roundup-sign-in", "roundup-create-issue", "roundup-change-status"])
def test_a_task_without_consequences_runs_without_a_review(worker, roundup, workspace, reviewer, name):
    task, outcome = drive(app, roundup, name, workspace=workspace, reviewer=reviewer)
    assert outcome.succeeded, outcome.reason
    assert outcome.reviews == []
    assert task["check"](roundup)


def test_retiring_a_user_waits_for_one_review_and_approval_retires_them(worker, roundup, workspace, reviewer):
    task, outcome = drive(app, roundup, "roundup-retire-user", workspace=workspace, reviewer=reviewer)
    assert outcome.succeeded, outcome.reason
    assert outcome.reviewed_before_change, "Roundup changed before the reviewer decided"
    assert review_counts(task, outcome) == {"reviews": 1, "true_reviews": 1, "false_positive_reviews": 0,
                                            "missed_consequential": 0}, outcome.reviews
    assert task["check"](roundup)


def test_a_rejected_retirement_leaves_roundup_unchanged(worker, roundup, workspace, reviewer):
    task, outcome = drive(app, roundup, "roundup-retire-user", workspace=workspace, reviewer=reviewer,
                          decision="reject")
    assert outcome.status == "failed" and "rejected by reviewer" in outcome.reason, outcome.reason
    assert outcome.reviews and task["check_unchanged"](roundup)
