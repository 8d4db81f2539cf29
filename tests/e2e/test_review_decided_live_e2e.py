"""The review queue's Decided list follows decisions live, in real Chromium against daphne.

Before: only the pending list re-read itself (its 2 s poll); the Decided list below it kept what
the page was rendered with ("Nothing decided yet." after an Approve, one row 8 s after a second
decision) until a reload, although the page said it "refreshes every 2 s".

One page stays open on /reviews/ while reviews are decided four ways: in that tab, in another
user's browser, through the API (served by daphne) and through the service from a worker's thread.
Each shows up under Decided without a reload (the page's time origin never changes); the last two
while the queue's own poll is held (a field of the queue is focused), so through the live feed alone;
and one whose event is lost, through the queue's poll.
"""

from __future__ import annotations

import time

import httpx
import pytest
from playwright.sync_api import expect

from tests.dashboard.conftest import make_run
from tests.e2e.test_dashboard_e2e import browser_page, sign_in, web  # noqa: F401 (fixtures)
from tests.e2e.test_live_e2e import SHOTS, in_thread, wait_live  # noqa: F401 (fixtures)
from tests.notifications.conftest import file_review

pytestmark = pytest.mark.e2e


def sign_in_as(page, web: str, username: str, password: str) -> None:
    page.goto(web + "/reviews/")
    assert "/login/" in page.url
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button:has-text('Sign in')")
    page.wait_for_url(web + "/reviews/")


def decided_row(page, title: str):
    return page.locator("#decided tbody tr", has_text=title)


def outcome(page, title: str):
    """The status badge of the Decided row with this title."""
    return decided_row(page, title).locator("[data-status]")


def test_the_decided_list_follows_decisions_made_anywhere_without_reload(demo, web, browser_page, in_thread):  # noqa: F811
    from django.contrib.auth import get_user_model

    from tests.factories import MembershipFactory, UserFactory
    from venus_rpa.accounts.services import api_token_create
    from venus_rpa.reviews.services import review_decide

    page = browser_page
    demo_user = get_user_model().objects.get(username="demo")
    rita = UserFactory(username="rita")
    MembershipFactory(workspace=demo["workspace"], user=rita, role="reviewer")
    _, token = api_token_create(workspace=demo["workspace"], user=demo_user, name="decided-live")
    run = make_run(demo["automation"], status="awaiting_review")
    here, other_browser, api, service, left = (file_review(run, title=t) for t in (
        "Pay 10 EUR here", "Pay 20 EUR in Rita's browser", "Pay 30 EUR by the API", "Pay 40 EUR by the service",
        "Pay 50 EUR, still waiting"))

    sign_in(page, web)
    page.goto(web + "/reviews/")
    wait_live(page)
    loaded = page.evaluate("() => performance.timeOrigin")
    decided = page.locator("#decided")
    expect(decided).to_contain_text("Nothing decided yet.")
    expect(page.locator(".page-head")).to_contain_text("updates live")  # what the page says, it does

    # 1. In this tab.
    page.locator(f"#review-{here.pk} [data-review-approve]").click()
    expect(outcome(page, "Pay 10 EUR here")).to_have_attribute("data-status", "approved")
    expect(decided).not_to_contain_text("Nothing decided yet.")

    # 2. Another user's browser (a second session, signed in as a reviewer).
    other = page.context.browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        rita_page = other.new_page()
        rita_page.set_default_timeout(15_000)
        sign_in_as(rita_page, web, "rita", "password")
        item = rita_page.locator(f"#review-{other_browser.pk}")
        item.locator("input[name=comment]").fill("wrong supplier")
        with rita_page.expect_response(lambda r: r.url.endswith(f"/reviews/{other_browser.pk}/decide/")) as sent:
            item.locator("[data-review-reject]").click()
        assert sent.value.status == 200
    finally:
        other.close()
    expect(outcome(page, "Pay 20 EUR in Rita's browser")).to_have_attribute("data-status", "rejected")
    expect(decided_row(page, "Pay 20 EUR in Rita's browser")).to_contain_text("rita")

    # The queue's 2 s poll waits while a field of the queue is focused: from here on only the live
    # feed (the reviews.changed event) can bring a decision into the Decided list.
    page.locator(f"#review-{left.pk} input[name=comment]").focus()
    page.wait_for_timeout(2500)  # a poll already under way has come back
    expect(page.locator(f"#review-{api.pk}")).to_have_count(1)

    # 3. Through the API (daphne serves it: the same service, the same event).
    started = time.monotonic()
    response = httpx.post(f"{web}/api/reviews/{api.pk}/reject/", json={"comment": "duplicate"},
                          headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert response.status_code == 200, response.text
    expect(outcome(page, "Pay 30 EUR by the API")).to_have_attribute("data-status", "rejected")
    api_seconds = time.monotonic() - started

    # 4. Through the service, from a worker's thread (as `reviews_approve_run` or a script would).
    in_thread(review_decide, review=service, user=demo_user, decision="approve")
    expect(outcome(page, "Pay 40 EUR by the service")).to_have_attribute("data-status", "approved")
    expect(page.locator(f"#review-{api.pk}")).to_have_count(1)  # the pending list did not re-read meanwhile
    expect(page.locator(f"#review-{left.pk} input[name=comment]")).to_be_focused()

    # Once the field is left, the poll lets the decided ones go from the pending list; no reload.
    page.locator(f"#review-{left.pk} input[name=comment]").blur()
    for review in (here, other_browser, api, service):
        expect(page.locator(f"#review-{review.pk}")).to_have_count(0, timeout=10_000)
    expect(page.locator(f"#review-{left.pk}")).to_have_attribute("data-status", "pending")
    expect(decided.locator("tbody tr")).to_have_count(4)
    expect(decided).not_to_contain_text("Pay 50 EUR")
    assert page.evaluate("() => performance.timeOrigin") == loaded
    SHOTS.mkdir(exist_ok=True)
    page.evaluate("() => window.scrollTo(0, 0)")  # a full-page shot of a scrolled page draws the sticky bar midway
    page.screenshot(path=str(SHOTS / "review-decided-live-1280x800.png"), full_page=True)
    print(f"decided via the API shown after {api_seconds:.2f}s")

    # 5. An event that never arrives: decided in this test's thread, where publishing fails (it holds
    # Playwright's event loop; logged, as a broken channel layer would be). The queue's poll sees the
    # pending list change and the Decided list re-reads with it.
    review_decide(review=left, user=demo_user, decision="reject", comment="not this month")
    expect(outcome(page, "Pay 50 EUR, still waiting")).to_have_attribute("data-status", "rejected", timeout=10_000)
    expect(page.locator("#review-queue")).to_contain_text("Nothing is waiting for a person.")
    expect(decided.locator("tbody tr")).to_have_count(5)
    assert page.evaluate("() => performance.timeOrigin") == loaded
