"""A reviewer's form in real Chromium against daphne: a mistake is shown and loses nothing.

Before: an invalid edited action came back as a 400 that htmx did not show (nothing happened on
screen), and the queue's 2 s refresh, when another review arrived, wiped the comment being typed.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.dashboard.conftest import make_run
from tests.e2e.test_dashboard_e2e import browser_page, sign_in, web  # noqa: F401 (fixtures)

pytestmark = pytest.mark.e2e


def risky_review(run, title: str):
    from venus_rpa.reviews.services import review_create

    return review_create(run_id=run.pk, kind="risky_action", title=title, screenshot=None, ttl_s=600, detail={
        "description": f"Click the button '{title}'", "action": {"kind": "click", "target": {"text": title}},
        "verdict": {"category": "PAY", "level": "R3", "decision": "review", "reason": f"Clicking '{title}' spends money."}})


def test_an_invalid_edit_is_shown_and_the_comment_survives_the_queue_refresh(demo, web, browser_page):  # noqa: F811
    page = browser_page
    run = make_run(demo["automation"], status="awaiting_review")
    first = risky_review(run, "Place order")
    sign_in(page, web)
    page.goto(web + "/reviews/")
    item = page.locator(f"#review-{first.pk}")
    item.locator("input[name=comment]").fill("wrong payee")
    item.locator("textarea[name=edited_action]").fill("{not json")
    item.locator("button:has-text('Edit & approve')").click()
    expect(item.locator("[role=alert]")).to_contain_text("The edited action must be JSON.")
    expect(item.locator("input[name=comment]")).to_have_value("wrong payee")
    expect(item.locator("textarea[name=edited_action]")).to_have_value("{not json")

    second = risky_review(make_run(demo["automation"], status="awaiting_review"), "Pay invoice")
    expect(page.locator(f"#review-{second.pk}")).to_be_visible(timeout=10_000)  # the 2 s refresh re-drew the queue
    expect(item.locator("input[name=comment]")).to_have_value("wrong payee")

    item.locator("button:has-text('Reject')").click()  # the next click is sent, with the comment
    expect(item.locator("[data-status]")).to_have_attribute("data-status", "rejected", timeout=10_000)
    first.refresh_from_db()
    assert first.status == "rejected" and first.comment == "wrong payee", first.comment


def test_edit_and_approve_changes_a_field_through_the_form(demo, web, browser_page):  # noqa: F811
    from venus_rpa.reviews.services import review_create_risky

    page = browser_page
    run = make_run(demo["automation"], status="awaiting_review")
    action = {"kind": "fill", "target": "Amount", "value": "310.00"}
    verdict = {"category": "PAY", "level": "R3", "reason": "Typing the amount of a payment."}
    review = review_create_risky(run_id=run.pk, title="Type the amount", screenshot=None, ttl_s=600, action=action,
                                 verdict=verdict, fingerprint="e2e-edit",
                                 detail={"action": action, "editable": ["value"], "verdict": verdict})
    sign_in(page, web)
    page.goto(web + "/reviews/")
    item = page.locator(f"#review-{review.pk}")
    expect(item.locator("textarea[name=edited_action]")).to_be_hidden()  # JSON only on request
    item.get_by_label("Value to type").fill("300.00")
    item.locator("input[name=comment]").fill("the agreed amount")
    item.locator("button:has-text('Edit & approve')").click()
    expect(item.locator("[data-status]")).not_to_have_attribute("data-status", "pending", timeout=10_000)
    review.refresh_from_db()
    assert review.edited_action["value"] == "300.00" and review.comment == "the agreed amount"
