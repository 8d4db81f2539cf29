"""“Approve all for this run”: only the run's pending risky actions within its policy are
approved; the rest stay pending and say why; roles and workspaces are checked; all audited."""

from __future__ import annotations

import pytest

from tests.dashboard.conftest import signed_in
from tests.notifications.conftest import file_review
from venus_rpa.audit.models import AuditEvent
from venus_rpa.core.errors import InvalidInput
from venus_rpa.reviews.bulk import review_outside_policy, reviews_approve_run
from venus_rpa.reviews.models import ReviewRequest


@pytest.fixture
def batch(personas, waiting_run):
    """Five pending actions of one run: two within policy, three that need their own look."""
    return {
        "pay": file_review(waiting_run, title="Pay 120 EUR"),
        "send": file_review(waiting_run, title="Send the report", category="SEND", level="R3"),
        "injected": file_review(waiting_run, title="Delete account (page said so)", category="DELETE",
                                modifiers=["injection"]),
        "unknown": file_review(waiting_run, title="Something unclear", category="UNKNOWN"),
        "nav": file_review(waiting_run, title="Open partner site", category="NAV-OUT", level="R2"),
    }


def test_within_policy_means_what_a_pre_approval_could_cover(batch):
    assert review_outside_policy(batch["pay"]) == "" and review_outside_policy(batch["send"]) == ""
    assert "injection" in review_outside_policy(batch["injected"])
    assert "UNKNOWN" in review_outside_policy(batch["unknown"]) and "NAV-OUT" in review_outside_policy(batch["nav"])


def test_a_level_above_r3_or_a_category_the_policy_blocks_is_left(personas, waiting_run):
    from venus_rpa.runs.models import Run

    assert "above R3" in review_outside_policy(file_review(waiting_run, level="R4"))
    version = Run.objects.get(pk=waiting_run.pk).version
    version.safety = {"blocked": ["PAY"]}
    type(version).objects.filter(pk=version.pk).update(safety=version.safety)
    assert "blocks" in review_outside_policy(ReviewRequest.objects.get(pk=file_review(waiting_run).pk))


def test_it_approves_only_the_in_policy_ones_and_says_why_for_the_rest(personas, reviewer, waiting_run, batch):
    results = reviews_approve_run(workspace=personas.workspace, run_id=waiting_run.pk, user=reviewer)
    approved = {r.id for r in results if r.ok}
    assert approved == {batch["pay"].pk, batch["send"].pk}
    left = {r.id: r.message for r in results if not r.ok}
    assert "injection" in left[batch["injected"].pk] and "UNKNOWN" in left[batch["unknown"].pk]
    statuses = dict(ReviewRequest.objects.values_list("pk", "status"))
    assert statuses[batch["pay"].pk] == "approved" and statuses[batch["injected"].pk] == "pending"
    events = AuditEvent.objects.filter(action="review_approved")
    assert events.count() == 2 and all("(bulk)" in e.changes[0] and e.actor_name == "rita" for e in events)


def test_an_editor_cannot_and_another_workspace_learns_nothing(personas, waiting_run, batch):
    results = reviews_approve_run(workspace=personas.workspace, run_id=waiting_run.pk, user=personas.teammate)
    assert not any(r.ok for r in results)  # editors do not decide risky actions
    with pytest.raises(InvalidInput, match="No such run"):
        reviews_approve_run(workspace=personas.other_workspace, run_id=waiting_run.pk, user=personas.outsider)
    # Through the page, another workspace's run is a 404, as a missing one.
    assert signed_in(personas.outsider).post(f"/reviews/runs/{waiting_run.pk}/approve-all/").status_code == 404
    assert signed_in(personas.owner).post("/reviews/runs/999999/approve-all/").status_code == 404
    assert signed_in(personas.viewer).post(f"/reviews/runs/{waiting_run.pk}/approve-all/").status_code == 403
    assert not ReviewRequest.objects.filter(status="approved").exists()


def test_the_queue_offers_it_with_the_count_and_the_page_approves(personas, reviewer, waiting_run, batch):
    client = signed_in(reviewer)
    queue = client.get("/reviews/").content.decode()
    assert f"Approve all 2 for run #{waiting_run.pk}" in queue and "3 others stay for a separate decision" in queue
    page = client.post(f"/reviews/runs/{waiting_run.pk}/approve-all/")
    html = page.content.decode()
    assert page.status_code == 200 and "Approved: Pay 120 EUR" in html and "Left for a separate decision" in html
    # A viewer sees the queue but not the button (and nothing to decide with).
    assert "Approve all" not in signed_in(personas.viewer).get("/reviews/").content.decode()
