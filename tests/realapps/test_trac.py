"""Trac 1.6 (+ TracAccountManager) driven end to end by steps written from its visible labels:
sign in and edit a ticket, and a consequential act (delete a ticket behind its confirmation
page) that waits for a reviewer before anything changes in Trac; approve deletes it, reject
leaves it. The other Trac tasks (create a ticket, remove a milestone) run in the benchmark."""

from __future__ import annotations

import pytest

from practice.realapps.trac import app
from tests.helpers.realapps import review_counts
from tests.realapps.conftest import check_plain_task, drive

pytestmark = [pytest.mark.e2e, pytest.mark.realapps]
# Reviews asked about steps that commit nothing: none since the s21 safety rules ("Submit changes"
# saves the ticket, it sends no message; the "– Delete" GET form only opens Trac's confirmation
# page). Any false positive fails (an approved action asked again, seen under load, is issue 12's
# "not asked again on the same page").
KNOWN_FALSE_POSITIVES: dict[str, int] = {}


# (trac-create-ticket and trac-remove-milestone run in benchmarks/realapps.py: suite time.)
@pytest.mark.parametrize("name", ["trac-edit-ticket"])  # it signs in first
def test_a_task_without_consequences_runs_and_changes_trac(worker, server, workspace, reviewer, name):
    check_plain_task(app, server, name, workspace=workspace, reviewer=reviewer, worker=worker,
                     known_false_positives=KNOWN_FALSE_POSITIVES.get(name, 0))


def test_deleting_a_ticket_waits_for_a_review_before_trac_changes_and_approval_deletes_it(
        worker, server, workspace, reviewer):
    task, outcome = drive(app, server, "trac-delete-ticket", workspace=workspace, reviewer=reviewer, worker=worker)
    assert outcome.succeeded, outcome.reason
    assert outcome.reviewed_before_change, "Trac changed before the reviewer decided"
    counts = review_counts(task, outcome)
    assert (counts["true_reviews"], counts["missed_consequential"]) == (1, 0), outcome.reviews
    assert counts["false_positive_reviews"] <= KNOWN_FALSE_POSITIVES.get("trac-delete-ticket", 0), outcome.reviews
    assert task["check"](server)


def test_a_rejected_ticket_deletion_leaves_trac_unchanged(worker, server, workspace, reviewer):
    task, outcome = drive(app, server, "trac-delete-ticket", workspace=workspace, reviewer=reviewer, worker=worker,
                          decision="reject")
    assert outcome.status == "failed" and "rejected by reviewer" in outcome.reason, outcome.reason
    assert outcome.reviews and task["check_unchanged"](server)
