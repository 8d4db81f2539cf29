"""Live lists, counters and badge; review shortcuts; approve-all; the audit page; a notice sent by
the real Celery worker. Real Chromium against daphne, the test database and Redis.

The live-update figure: a run's state change (its worker files a review and puts the run in
awaiting_review, through the same services) to the runs list row and the nav's Reviews badge
both showing it, without reload; timed in the page (Date.now() when both are on screen) against
the test's clock just before the services are called. Written to /tmp/s23-shots/live_update.json.
"""

from __future__ import annotations

import json
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from tests.dashboard.conftest import make_run
from tests.e2e.test_dashboard_e2e import browser_page, sign_in, web  # noqa: F401 (fixtures)
from tests.helpers.live import WATCH
from tests.notifications.conftest import file_review

pytestmark = pytest.mark.e2e
SHOTS = Path("/tmp/s23-shots")
SAMPLES = 15
PARAMS = {"title": "Taxi", "amount": "12.00", "date": "2026-11-30", "category": "Travel", "notes": "n"}


class WorkerThread:
    """Calls services as a worker does: from one thread without an event loop (sync Playwright
    keeps one in the test's thread, where the Channels layer's sync publishing cannot run),
    keeping its database connection between calls like a worker's DB thread."""

    def __init__(self) -> None:
        self.pool = ThreadPoolExecutor(max_workers=1)

    def __call__(self, fn, *args, **kwargs):
        return self.pool.submit(fn, *args, **kwargs).result()

    def close(self) -> None:
        from django.db import connection

        self.pool.submit(lambda: connection.close()).result()  # the proxy resolves to this thread's connection
        self.pool.shutdown()


def wait_live(page) -> None:
    page.locator("html[data-live=open]").wait_for(state="attached", timeout=15_000)


def shown_at(page, timeout: float = 10.0) -> float:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        at = page.evaluate("() => window.__live.at")
        if at:
            return at
        time.sleep(0.01)
    raise AssertionError("the list row and the badge did not both show the change")


def waits_for_review(run, number: int) -> None:
    """What the worker does when an action needs a person: file the review, then wait for it."""
    from venus_rpa.runs.services import run_status_set

    file_review(run, title=f"Pay invoice {number}")
    run_status_set(run_id=run.pk, status="awaiting_review")


@pytest.fixture
def in_thread():
    thread = WorkerThread()
    yield thread
    thread.close()


def test_the_runs_list_and_the_badge_follow_run_states_without_reload(demo, web, browser_page, in_thread):  # noqa: F811
    from venus_rpa.runs.services import run_finish

    page = browser_page
    runs = [make_run(demo["automation"], status="running") for _ in range(SAMPLES)]
    sign_in(page, web)
    page.goto(web + "/runs/")
    wait_live(page)
    page.evaluate(WATCH)
    loaded = page.evaluate("() => window.__live.loaded")
    delays, parts = [], []
    for pending, run in enumerate(runs, start=1):
        page.evaluate("(want) => { Object.assign(window.__live, {want: want, at: null, row: null, badge: null}); }",
                      {"run": run.pk, "status": "awaiting_review", "pending": pending})
        started = time.time() * 1000
        in_thread(waits_for_review, run, pending)
        delays.append(shown_at(page) - started)
        parts.append({k: v - started for k, v in page.evaluate("() => window.__live").items() if k in ("row", "badge")})
        time.sleep(0.4)  # isolated changes: a region re-reads at most every 300 ms (bursts coalesce)
    assert page.evaluate("() => window.__live.loaded") == loaded  # the same page all along: no reload
    p50 = statistics.median(delays)
    SHOTS.mkdir(exist_ok=True)
    (SHOTS / "live_update.json").write_text(json.dumps({
        "live_update_ms_p50": round(p50, 1), "live_update_ms_max": round(max(delays), 1), "samples": len(delays),
        "list_row_ms_p50": round(statistics.median(p["row"] for p in parts), 1),
        "badge_ms_p50": round(statistics.median(p["badge"] for p in parts), 1),
        "delays_ms": [round(d, 1) for d in delays]}))
    print(f"live_update_ms_p50={p50:.1f} max={max(delays):.1f} n={len(delays)}")
    assert p50 <= 500, delays

    # A run ending: its row says so, its pending review is cancelled and the badge counts down.
    in_thread(run_finish, run_id=runs[0].pk, status="succeeded", reason="done")
    expect(page.locator(f'tr[data-run="{runs[0].pk}"] [data-status]')).to_have_attribute("data-status", "succeeded")
    expect(page.locator("[data-live-pending]")).to_contain_text(str(SAMPLES - 1))

    # The overview's counters follow too.
    page.goto(web + "/")
    wait_live(page)
    active = page.locator('[data-live-count="active"]')
    before = int(active.inner_text())
    in_thread(run_finish, run_id=runs[1].pk, status="failed", reason="x")
    expect(active).to_have_text(str(before - 1))


def test_a_reviewer_works_the_queue_with_the_keyboard(demo, web, browser_page):  # noqa: F811
    page = browser_page
    run = make_run(demo["automation"], status="awaiting_review")
    first, second, third = (file_review(run, title=t) for t in ("Pay 10 EUR", "Pay 20 EUR", "Pay 30 EUR"))
    sign_in(page, web)
    page.goto(web + "/reviews/")
    items = {r.pk: page.locator(f"#review-{r.pk}") for r in (first, second, third)}
    expect(items[first.pk]).to_have_attribute("aria-current", "true")

    page.keyboard.press("?")
    help_dialog = page.locator("#shortcut-help")
    expect(help_dialog).to_be_visible()
    expect(help_dialog).to_contain_text("Approve the current review")
    page.keyboard.press("Escape")
    expect(help_dialog).to_be_hidden()

    # Typing in a field never fires a shortcut (the search box of the decided list).
    search = page.locator("#decided input[name=q]")
    search.fill("")
    search.press_sequentially("ajk r")
    expect(search).to_have_value("ajk r")
    expect(items[first.pk]).to_have_attribute("data-status", "pending")
    search.evaluate("(el) => el.blur()")

    page.keyboard.press("j")
    expect(items[second.pk]).to_have_attribute("aria-current", "true")
    expect(items[second.pk]).to_be_focused()
    page.keyboard.press("k")
    expect(items[first.pk]).to_have_attribute("aria-current", "true")
    page.keyboard.press("a")  # approve the first; the next pending one becomes current
    expect(items[first.pk]).to_have_attribute("data-status", "approved")
    expect(items[second.pk]).to_have_attribute("aria-current", "true")

    page.keyboard.press("r")
    comment = items[second.pk].locator("input[name=comment]")
    expect(comment).to_be_focused()
    expect(comment).to_have_value("")  # the "r" itself is not typed
    expect(items[second.pk].locator("[data-reject-hint]")).to_be_visible()
    page.keyboard.type("wrong amount, ask Jake")  # letters that are shortcuts elsewhere
    page.keyboard.press("Enter")
    expect(items[second.pk]).to_have_attribute("data-status", "rejected")
    # Enter in a comment without "r" first decides nothing (it used to submit the first button: Approve).
    items[third.pk].locator("input[name=comment]").fill("just a note")
    items[third.pk].locator("input[name=comment]").press("Enter")
    page.wait_for_timeout(500)
    expect(items[third.pk]).to_have_attribute("data-status", "pending")
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "review-queue-1280x800.png"))
    for review in (first, second, third):
        review.refresh_from_db()
    assert (first.status, second.status, third.status) == ("approved", "rejected", "pending")
    assert second.comment == "wrong amount, ask Jake" and first.decided_by.username == "demo"


def test_approve_all_for_a_run_approves_what_is_within_its_policy(demo, web, browser_page):  # noqa: F811
    page = browser_page
    run = make_run(demo["automation"], status="awaiting_review")
    pay, send = file_review(run, title="Pay 12 EUR"), file_review(run, title="Send the report", category="SEND")
    injected = file_review(run, title="Delete the account", category="DELETE", modifiers=["injection"])
    sign_in(page, web)
    page.goto(web + f"/reviews/{pay.pk}/")
    button = page.locator(f"#review-{pay.pk} button:has-text('Approve all 2 for run #{run.pk}')")
    expect(page.locator(f"#review-{pay.pk} .approve-run")).to_contain_text("1 other stays for a separate decision")
    page.screenshot(path=str(SHOTS / "review-page-1280x800.png"))
    button.click()
    expect(page.locator("h1")).to_have_text(f"Approve all for run #{run.pk}")
    expect(page.locator("main")).to_contain_text("Approved: Pay 12 EUR")
    expect(page.locator("main")).to_contain_text("Left for a separate decision (raised by injection)")
    statuses = {r.pk: type(r).objects.get(pk=r.pk).status for r in (pay, send, injected)}
    assert statuses == {pay.pk: "approved", send.pk: "approved", injected.pk: "pending"}


def test_the_audit_page_shows_who_did_what(demo, web, browser_page):  # noqa: F811
    from venus_rpa.reviews.services import review_decide
    from venus_rpa.runs.services import run_start

    page = browser_page
    run_start(automation=demo["automation"], params=PARAMS, user=None, trigger="schedule")
    run = make_run(demo["automation"], status="awaiting_review")
    review = file_review(run, title="Pay the taxi")
    from django.contrib.auth import get_user_model

    review_decide(review=review, user=get_user_model().objects.get(username="demo"), decision="reject",
                  comment="duplicate expense")
    sign_in(page, web)
    page.goto(web + "/settings/")
    page.click("text=Audit log")
    table = page.locator("#audit-events")
    expect(table).to_contain_text("Review rejected")
    expect(table).to_contain_text("Run started")
    expect(table).to_contain_text("by a schedule")
    page.fill("#audit-filters input[name=q]", "taxi")
    page.click("#audit-filters button:has-text('Filter')")
    expect(table).to_contain_text("Pay the taxi")
    expect(table).not_to_contain_text("Run started")
    page.goto(web + "/audit/")
    page.screenshot(path=str(SHOTS / "audit-1280x800.png"))


def test_a_waiting_review_is_posted_to_the_chat_webhook_by_the_worker(worker, demo, web, browser_page):  # noqa: F811
    from django.contrib.auth import get_user_model

    from tests.triggers.receiver import receiver_running
    from venus_rpa.notifications.models import Notice
    from venus_rpa.notifications.services import notification_settings_update

    demo_user = get_user_model().objects.get(username="demo")
    with receiver_running() as receiver:
        notification_settings_update(workspace=demo["workspace"], user=demo_user, email_enabled=False,
                                     webhook_url=receiver.url, webhook_enabled=True)
        run = make_run(demo["automation"], status="awaiting_review")
        review = file_review(run, title="Pay 99 EUR")
        [request] = receiver.wait_for(1, timeout=60)
    text = json.loads(request.body)["text"]
    assert "Pay 99 EUR" in text
    link = next(word for word in text.split() if f"/reviews/{review.pk}/" in word)
    deadline = time.monotonic() + 10
    while Notice.objects.get(review=review).status != "sent" and time.monotonic() < deadline:
        time.sleep(0.1)
    assert Notice.objects.get(review=review).status == "sent"

    # From the notice to a decided review: 1 click on the link, then 1 on Approve (after signing in).
    page = browser_page
    sign_in(page, web)
    page.goto(web + urlsplit(link).path)
    page.locator(f"#review-{review.pk} button:has-text('Approve')").first.click()
    expect(page.locator(f"#review-{review.pk}")).to_have_attribute("data-status", "approved")

    # My notifications: the channel as saved and the notice as sent.
    page.goto(web + "/settings/notifications/")
    expect(page.locator("input[name=webhook_url]")).to_have_value(receiver.url)
    expect(page.locator("#notices")).to_contain_text("Sent")
    page.screenshot(path=str(SHOTS / "notifications-1280x800.png"))
