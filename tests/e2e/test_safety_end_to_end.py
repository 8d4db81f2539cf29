"""The safety gate end to end: API → real Celery worker → Chromium → the practice shop. The checkout
automation pauses at "Place order" in the review queue; reviewers approve, reject or edit through
the API; expiry rejects; past the hold window the run parks and the decision resumes it on
another worker in a restored session."""

from __future__ import annotations

import time

import httpx
import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from tests.e2e.conftest import wait_for_run
from tests.helpers.definitions import checkout_steps, delete_account_definition
from tests.helpers.worker import celery_worker

pytestmark = pytest.mark.e2e
TERMINAL = {"succeeded", "failed", "cancelled", "timed_out"}
CARD = {"name": "Ada Lovelace", "number": "4242 4242 4242 4242", "expiry": "12/39", "cvc": "123"}


def client_for(workspace, username: str, role: str) -> APIClient:
    from venus_rpa.accounts.models import Membership
    from venus_rpa.accounts.services import api_token_create
    from tests.factories import UserFactory

    membership = Membership.objects.filter(workspace=workspace, user__username=username).first()
    user = membership.user if membership else UserFactory(username=username)
    if membership is None:
        Membership.objects.create(workspace=workspace, user=user, role=role)
    _, raw = api_token_create(workspace=workspace, user=user, name="e2e")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


def checkout_automation(demo, practice_url: str, *, card_number: str = "{{credentials.test-card.number}}",
                        safety: dict | None = None, slug: str = "checkout"):
    """Sign in, put a mug in the cart, fill the checkout form and place the order."""
    from venus_rpa.automations.services import automation_create, credential_set

    workspace = demo["workspace"]
    credential_set(workspace=workspace, name="test-card", fields=CARD, domains=["127.0.0.1"])
    return automation_create(workspace=workspace, user=None, slug=slug, name="Buy a mug", definition={
        "start_url": practice_url + "/login",
        "allowed_domains": ["127.0.0.1"],
        "steps": checkout_steps(card=card_number, cvc="{{credentials.test-card.cvc}}",
                                holder="{{credentials.test-card.name}}", expiry="{{credentials.test-card.expiry}}"),
        "success_criteria": {"text_visible": "Order placed", "url_contains": "/shop/orders/ORD-"},
        "safety": safety or {},
    })


def pending_review(run, *, timeout: float = 90.0, **facts):
    """The run's pending risky-action review, once the run waits on it (and its detail has `facts`)."""
    from venus_rpa.reviews.models import ReviewRequest

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run.refresh_from_db()
        assert run.status not in TERMINAL, run.status_reason
        review = ReviewRequest.objects.filter(run=run, kind="risky_action", status="pending").order_by("-id").first()
        if run.status == "awaiting_review" and review is not None and facts.items() <= review.detail.items():
            return review
        time.sleep(0.1)
    raise AssertionError(f"run {run.pk} is {run.status}, not waiting on a review with {facts}")


def orders(practice_url: str) -> list[dict]:
    return httpx.get(practice_url + "/api/orders").json()


@pytest.fixture
def rita(demo):
    return client_for(demo["workspace"], "rita", "reviewer")


def test_the_checkout_pauses_at_place_order_and_an_approval_places_it_once(worker, demo, practice_url, rita):
    from venus_rpa.runs.services import run_start

    run = run_start(automation=checkout_automation(demo, practice_url), params={})
    review = pending_review(run)
    assert review.title == "Click the button 'Place order'"
    assert (review.category, review.level) == ("PAY", "R3") and "spends or moves money" in review.reason
    assert review.screenshot and len(review.fingerprint) == 32
    assert review.detail["step"]["name"] == "Place the order" and review.detail["url"].endswith("/shop/checkout")
    assert orders(practice_url) == []  # nothing placed while it waits
    # One review for the order, not one per card field; it shows the form (masked) and the amounts.
    assert run.review_requests.filter(kind="risky_action").count() == 1
    form = {f["label"]: f["value"] for f in review.detail["form"]}
    # A stored card is masked whole at the last door (no fragment of a vault value leaves); a card
    # typed from a parameter keeps its last four digits (tests/runtime/test_safety_gate.py).
    assert set(form["Card number"]) == {"•"} and set(form["CVC"]) == {"•"} and form["City"] == "London"
    assert any("Total" in line for line in review.detail["amounts"]) and review.detail["full_page"] is True
    shown = rita.get(f"/api/reviews/{review.pk}/").json()["detail"]
    assert shown["form"] == review.detail["form"] and "4242 4242" not in str(shown)

    editor = client_for(demo["workspace"], "eddie", "editor")
    assert editor.post(f"/api/reviews/{review.pk}/approve/", {}, format="json").status_code == 403
    response = rita.post(f"/api/reviews/{review.pk}/approve/", {"comment": "budgeted"}, format="json")
    assert response.status_code == 200, response.content
    run = wait_for_run(run.pk, statuses=TERMINAL, timeout=60)
    assert run.status == "succeeded", run.status_reason
    assert len(orders(practice_url)) == 1
    step = run.steps.get(name="Place the order")
    assert step.grounding["risk"]["category"] == "PAY"
    assert step.grounding["risk"]["review"]["decision"] == "approve"
    assert step.grounding["risk"]["review"]["decided_by"] == "rita"
    assert rita.post(f"/api/reviews/{review.pk}/reject/", {}, format="json").status_code == 409
    audit = rita.get(f"/api/reviews/{review.pk}/").json()["decisions"]
    assert [(d["decision"], d["user"], d["comment"]) for d in audit] == [("approve", "rita", "budgeted")]


def test_a_rejected_order_is_not_placed_and_the_run_fails_with_the_comment(worker, demo, practice_url, rita):
    from venus_rpa.runs.services import run_start

    run = run_start(automation=checkout_automation(demo, practice_url), params={})
    review = pending_review(run)
    response = rita.post(f"/api/reviews/{review.pk}/reject/", {"comment": "Not in this quarter's budget."},
                         format="json")
    assert response.status_code == 200, response.content
    run = wait_for_run(run.pk, statuses=TERMINAL, timeout=30)
    assert run.status == "failed"
    assert "rejected by reviewer rita" in run.status_reason
    assert "Not in this quarter's budget." in run.status_reason
    assert orders(practice_url) == []


def test_the_delete_lead_in_is_not_reviewed_the_confirm_button_is_and_approval_deletes(worker, demo, practice_url, rita):
    from venus_rpa.automations.services import automation_create
    from venus_rpa.runs.services import run_start

    definition = delete_account_definition(practice_url)
    definition["steps"][4:] = [  # from the account page, as a person goes: the "Delete account" lead-in first
        {"kind": "goto", "url": "/account"},
        {"kind": "click", "name": "Lead-in", "target": {"role": "button", "name": "Delete account"}},
        {"kind": "click", "name": "Confirm", "target": {"role": "button", "name": "Delete my account"}},
        {"kind": "wait_for", "text": "deleted"},
    ]
    automation = automation_create(workspace=demo["workspace"], user=None, slug="delete-me", name="Delete me",
                                   definition=definition)
    run = run_start(automation=automation, params={})
    review = pending_review(run)
    assert review.title == "Click the button 'Delete my account'" and review.detail["step"]["name"] == "Confirm"
    assert httpx.get(practice_url + "/api/account").json()["deletions"] == []
    assert rita.post(f"/api/reviews/{review.pk}/approve/", {}, format="json").status_code == 200
    run = wait_for_run(run.pk, statuses=TERMINAL, timeout=60)
    assert run.status == "succeeded", run.status_reason
    assert run.review_requests.filter(kind="risky_action").count() == 1
    assert run.steps.get(name="Lead-in").grounding["risk"]["decision"] == "allow"
    assert len(httpx.get(practice_url + "/api/account").json()["deletions"]) == 1


def test_a_review_nobody_decides_expires_and_rejects_the_action(worker, demo, practice_url):
    from venus_rpa.reviews.models import ReviewRequest
    from venus_rpa.runs.services import run_start

    automation = checkout_automation(demo, practice_url, safety={"review_timeout_s": 2})
    run = run_start(automation=automation, params={})
    review = pending_review(run)
    run = wait_for_run(run.pk, statuses=TERMINAL, timeout=30)
    assert run.status == "failed" and "expired without a decision" in run.status_reason
    review.refresh_from_db()
    assert review.status == "expired"
    assert list(ReviewRequest.objects.get(pk=review.pk).decisions.values_list("decision", flat=True)) == ["expire"]
    assert orders(practice_url) == []


def test_past_the_hold_window_the_run_parks_and_an_approval_resumes_it_on_another_worker(
        worker, demo, practice_url, rita, tmp_path):
    from venus_rpa.runs.models import Run, RunContinuation
    from venus_rpa.runs.tasks import run_execute_task

    automation = checkout_automation(demo, practice_url)
    run = Run.objects.create(workspace=demo["workspace"], automation=automation, version=automation.current_version,
                             admitted_at=timezone.now())  # sent to its own queue below, past the dispatcher
    with celery_worker(queues="hold", name="hold", log_path=tmp_path / "hold.log",
                       extra_env={"VENUS_REVIEW_HOLD_SECONDS": "1"}):
        run_execute_task.apply_async(args=[run.pk], queue="hold")
        review = pending_review(run)
        deadline = time.monotonic() + 30
        while not RunContinuation.objects.filter(run=run).exists():  # parked: the hold worker let it go
            assert time.monotonic() < deadline, "the run did not park"
            time.sleep(0.1)
    run.refresh_from_db()  # the worker that parked it is gone; the session worker resumes it
    assert run.status == "awaiting_review" and "parked" in run.status_reason
    assert rita.post(f"/api/reviews/{review.pk}/approve/", {}, format="json").status_code == 200
    run = wait_for_run(run.pk, statuses=TERMINAL, timeout=60)
    assert run.status == "succeeded", run.status_reason
    (order,) = orders(practice_url)  # signed in again from the saved cookies, the form's fields typed again
    assert order["shipping"]["city"] == "London" and order["card_last4"] == "4242"
    assert run.steps.get(name="Place the order").grounding["risk"]["review"]["session"] == "restored"
