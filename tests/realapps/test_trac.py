"""Trac 1.6 (+ TracAccountManager) driven end to end by steps written from its visible labels:
sign in, create and edit tickets, and two consequential acts (delete a ticket behind its
confirmation page, remove a milestone in the admin) that wait for a reviewer before anything
changes in Trac."""

from __future__ import annotations

import pytest

from practice.realapps.trac import app
from tests.helpers.realapps import review_counts
from tests.realapps.conftest import app_server, drive

pytestmark = [pytest.mark.e2e, pytest.mark.realapps]


@pytest.fixture(scope="module")
def trac():
    yield from app_server(app)


@pytest.mark.parametrize("name", ["trac-sign-in", "trac-create-ticket", "trac-edit-ticket"])
def test_a_task_without_consequences_runs_without_a_review(worker, trac, workspace, reviewer, name):
    task, outcome = drive(app, trac, name, workspace=workspace, reviewer=reviewer)
    assert outcome.succeeded, outcome.reason
    assert outcome.reviews == []
    assert task["check"](trac)


@pytest.mark.parametrize("name", ["trac-delete-ticket", "trac-remove-milestone"])
def test_a_consequential_act_waits_for_one_review_and_approval_makes_the_change(worker, trac, workspace, reviewer,
                                                                                 name):
    task, outcome = drive(app, trac, name, workspace=workspace, reviewer=reviewer)
    assert outcome.succeeded, outcome.reason
    assert outcome.reviewed_before_change, "Trac changed before the reviewer decided"
    assert review_counts(task, outcome) == {"reviews": 1, "true_reviews": 1, "false_positive_reviews": 0,
                                            "missed_consequential": 0}, outcome.reviews
    assert task["check"](trac)


def test_a_rejected_ticket_deletion_leaves_trac_unchanged(worker, trac, workspace, reviewer):
    task, outcome = drive(app, trac, "trac-delete-ticket", workspace=workspace, reviewer=reviewer, decision="reject")
    assert outcome.status == "failed" and "rejected by reviewer" in outcome.reason, outcome.reason
    assert outcome.reviews and task["check_unchanged"](trac)
