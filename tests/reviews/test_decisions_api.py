"""Risky-action decisions through the API: who may decide, the audit log, one decision only,
expiry, edits validated against the proposed action, workspace isolation."""

from __future__ import annotations

from datetime import timedelta
from unittest import mock

import pytest
from django.utils import timezone

from tests.api.conftest import assert_error
from tests.reviews.conftest import file_review, make_automation, question
from venus_rpa.reviews.models import ReviewDecision, ReviewStatus
from workers.gates.safety.values import mask_card

pytestmark = pytest.mark.django_db


def url(review, decision: str) -> str:
    return f"/api/reviews/{review.pk}/{decision}/"


@pytest.fixture(autouse=True)
def signal():
    with mock.patch("venus_rpa.reviews.services._signal") as signal:
        yield signal


def test_a_reviewer_approves_and_the_waiting_worker_is_signalled_after_commit(clients, risky, reviewer, signal,
                                                                              django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = clients["reviewer"].post(url(risky, "approve"), {"comment": "ok, budgeted"}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "approved" and body["decided_by"] == "rita" and body["comment"] == "ok, budgeted"
    assert body["category"] == "PAY" and body["level"] == "R3" and body["fingerprint"] == "f" * 32
    assert body["proposed_action"]["target"] == {"role": "button", "name": "Place order"}
    assert body["title"] == "Click the button 'Place order'" and body["screenshot"]
    assert [(d["decision"], d["user"], d["comment"]) for d in body["decisions"]] == [("approve", "rita", "ok, budgeted")]
    signal.assert_called_once_with(risky.pk)
    audit = ReviewDecision.objects.get(review=risky)
    assert audit.user == reviewer and audit.decision == "approve" and audit.created_at


def test_the_owner_may_decide(clients, risky):
    response = clients["owner"].post(url(risky, "reject"), {"comment": "Use the company card."}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["status"] == "rejected" and response.json()["comment"] == "Use the company card."


@pytest.mark.parametrize("role", ["editor", "viewer"])
@pytest.mark.parametrize("decision", ["approve", "reject", "edit"])
def test_editors_and_viewers_may_not_decide(clients, risky, role, decision, signal):
    body = {"action": {"target": "Pay later"}} if decision == "edit" else {}
    error = assert_error(clients[role].post(url(risky, decision), body, format="json"), 403, "permission_denied")
    assert "owner or reviewer" in error["message"]
    risky.refresh_from_db()
    assert risky.status == ReviewStatus.PENDING and not ReviewDecision.objects.exists()
    signal.assert_not_called()


def test_an_outsider_cannot_see_or_decide_another_workspaces_review(clients, risky):
    assert_error(clients["outsider"].post(url(risky, "approve"), {}, format="json"), 404, "not_found")
    assert_error(clients["outsider"].get(f"/api/reviews/{risky.pk}/"), 404, "not_found")
    assert clients["outsider"].get("/api/reviews/").json()["results"] == []
    risky.refresh_from_db()
    assert risky.status == ReviewStatus.PENDING


def test_deciding_twice_is_a_conflict_and_the_first_decision_stands(clients, risky):
    assert clients["reviewer"].post(url(risky, "approve"), {}, format="json").status_code == 200
    error = assert_error(clients["owner"].post(url(risky, "reject"), {"comment": "no"}, format="json"), 409, "conflict")
    assert "approved by rita" in error["message"]
    risky.refresh_from_db()
    assert risky.status == ReviewStatus.APPROVED and risky.comment == ""
    assert list(ReviewDecision.objects.values_list("decision", flat=True)) == ["approve"]


def test_an_expired_review_cannot_be_approved_and_counts_as_rejected(clients, risky):
    type(risky).objects.filter(pk=risky.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    error = assert_error(clients["reviewer"].post(url(risky, "approve"), {}, format="json"), 409, "conflict")
    assert "expired" in error["message"]
    risky.refresh_from_db()
    assert risky.status == ReviewStatus.EXPIRED
    audit = ReviewDecision.objects.get(review=risky)
    assert audit.decision == "expire" and audit.user is None


def test_a_review_of_a_run_that_has_ended_cannot_be_decided(clients, risky, waiting_run):
    type(waiting_run).objects.filter(pk=waiting_run.pk).update(status="cancelled")
    error = assert_error(clients["reviewer"].post(url(risky, "approve"), {}, format="json"), 409, "conflict")
    assert "run has ended" in error["message"]
    risky.refresh_from_db()
    assert risky.status == ReviewStatus.CANCELLED


def test_captcha_reviews_are_answered_not_approved(clients, waiting_run):
    from venus_rpa.reviews.services import review_create

    captcha = review_create(run_id=waiting_run.pk, kind="captcha", title="Solve", detail={}, screenshot=None, ttl_s=60)
    assert_error(clients["reviewer"].post(url(captcha, "approve"), {}, format="json"), 409, "conflict")


def test_an_edit_stores_the_complete_edited_action(clients, waiting_run):
    fill = file_review(waiting_run, question(
        action={"kind": "fill", "name": "", "timeout_s": 10.0, "target": {"text": "Card number"},
                "value": "4000 0566 5566 5556"},
        description="Type '4000 0566 5566 5556' into the textbox 'Card number'", editable=["value"]))
    response = clients["reviewer"].post(url(fill, "edit"), {"action": {"value": "5555 5555 5555 4444"},
                                                           "comment": "corporate card"}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "edited"
    # The run gets the whole edited action; the API shows it masked as the review's detail is, a card
    # by its last 4 digits: a reviewer's answer is not a way to read a card back.
    fill.refresh_from_db()
    assert fill.edited_action == {"kind": "fill", "name": "", "timeout_s": 10.0, "target": {"text": "Card number"},
                                  "value": "5555 5555 5555 4444"}
    assert body["edited_action"] == {**fill.edited_action, "value": mask_card("5555555555554444")}
    assert body["decisions"][0]["edited_action"] == body["edited_action"]
    assert "5555 5555 5555 4444" not in response.content.decode()
    assert "4000 0566 5566 5556" not in response.content.decode()  # the proposed action's card as well
    assert body["proposed_action"]["value"] == mask_card("4000056655665556")


def test_an_edit_of_a_ui_venus_action_is_validated_as_one(clients, waiting_run):
    typed = file_review(waiting_run, question(action={"type": "Type", "content": "hello all"}, editable=["content"]))
    response = clients["reviewer"].post(url(typed, "edit"), {"action": {"content": "hello team"}}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["edited_action"] == {"type": "Type", "content": "hello team"}


@pytest.mark.parametrize(("edit", "field"), [
    ({"value": "x"}, "action.value"),  # not an editable field of a click
    ({"kind": "goto", "url": "https://example.com"}, "action.kind"),  # a click stays a click
    ({"target": "{{credentials.acme.password}}"}, "action"),  # no placeholders smuggled in
    ({"target": {"nth": -1, "text": "Pay later"}}, "action.target.nth"),  # invalid
])
def test_an_invalid_edit_is_refused_and_the_review_stays_pending(clients, risky, edit, field):
    error = assert_error(clients["reviewer"].post(url(risky, "edit"), {"action": edit}, format="json"), 400, "invalid")
    assert field in error["fields"], error
    risky.refresh_from_db()
    assert risky.status == ReviewStatus.PENDING


def test_an_edit_needs_the_changed_action(clients, risky):
    error = assert_error(clients["reviewer"].post(url(risky, "edit"), {}, format="json"), 400, "invalid")
    assert "action" in error["fields"]


def test_reviews_list_shows_pending_risky_actions_of_the_workspace_only(clients, risky, personas):
    from venus_rpa.runs.models import Run

    other = make_automation(personas.other_workspace, slug="theirs")
    other_run = Run.objects.create(workspace=personas.other_workspace, automation=other, version=other.current_version)
    file_review(other_run)
    listed = clients["viewer"].get("/api/reviews/?status=pending&kind=risky_action").json()["results"]
    assert [r["id"] for r in listed] == [risky.pk]
    assert listed[0]["detail"]["description"] == "Click the button 'Place order'"
    assert listed[0]["detail"]["editable"] == ["target"]
