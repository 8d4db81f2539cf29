"""Undo, retry and find, in real Chromium against daphne: search and bulk actions on the runs
list, retry from a run's page, clone / archive / restore an automation, restore an earlier
version after seeing its diff, delete with a confirmation step, reject reviews in bulk, and a
viewer who sees none of these buttons and is refused if they post anyway.

Screenshots of the runs list with a search and the bulk bar are written at 1280×800 and 390×844
to $VENUS_SHOT_DIR (default /tmp/venus-shots).
"""

from __future__ import annotations

import time

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.dashboard.conftest import make_run
from tests.e2e.test_dashboard_e2e import browser_page, sign_in, web  # noqa: F401 (fixtures)
from tests.e2e.test_review_form_e2e import risky_review

pytestmark = pytest.mark.e2e
SHOTS = Path(os.environ.get("VENUS_SHOT_DIR", "/tmp/venus-shots"))
PARAMS = {"title": "Taxi", "amount": "12.00", "date": "2026-11-30", "category": "Travel", "notes": "n"}


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / name), full_page=False)


def test_search_and_bulk_retry_or_cancel_on_the_runs_list(demo, web, browser_page):  # noqa: F811
    page, automation = browser_page, demo["automation"]
    failed = [make_run(automation, status="failed", params=PARAMS, status_reason="Submit button not found")
              for _ in range(2)]
    running = make_run(automation, status="running", params=PARAMS)
    queued = make_run(automation, status="queued", params=PARAMS)
    make_run(automation, status="succeeded", params=PARAMS)
    sign_in(page, web)
    page.goto(web + "/runs/")
    page.fill("input[name=q]", "not found")
    page.select_option("select[name=status]", label="Failed")
    page.click("button:has-text('Filter')")
    expect(page.locator("tbody tr")).to_have_count(2)
    assert "q=not+found" in page.url and "status=failed" in page.url  # the URL keeps the filters
    page.check("[data-select-all]")
    expect(page.locator("[data-bulk-count]")).to_have_text("2")
    shot(page, "runs-bulk-1280x800.png")
    page.set_viewport_size({"width": 390, "height": 844})
    shot(page, "runs-bulk-390x844.png")
    page.set_viewport_size({"width": 1280, "height": 800})

    page.click("button:has-text('Retry selected')")
    results = page.locator("#bulk-results")
    expect(results).to_contain_text("2 of 2 done")
    expect(page.locator("select[name=status]")).to_have_value("failed")  # still filtered after the action
    from venus_rpa.runs.models import Run

    assert {r.retry_of_id for r in Run.objects.filter(retry_of__isnull=False)} == {f.pk for f in failed}

    page.goto(web + "/runs/")
    page.check(f"input[name=ids][value='{queued.pk}']")
    page.check(f"input[name=ids][value='{failed[0].pk}']")
    page.click("button:has-text('Cancel selected')")
    expect(results.locator(f"[data-id='{queued.pk}']")).to_have_attribute("data-ok", "1")
    failed_line = results.locator(f"[data-id='{failed[0].pk}']")
    expect(failed_line).to_have_attribute("data-ok", "0")
    expect(failed_line).to_contain_text("already ended")
    expect(results).to_contain_text("1 of 2 done; 1 not done")
    shot(page, "runs-bulk-results-1280x800.png")
    # Cancelled at once while still queued; if the retries woke the dispatcher and a real worker already claimed it,
    # the cancel is requested and that worker ends it as cancelled. The run nobody selected is untouched.
    cancelled = Run.objects.get(pk=queued.pk)
    assert cancelled.status == "cancelled" or (cancelled.status == "running" and cancelled.cancel_requested_at is not None)
    assert Run.objects.get(pk=running.pk).status == "running" and Run.objects.get(pk=running.pk).cancel_requested_at is None
    # A retry a real worker took must end before the database is flushed under it (a TRUNCATE
    # meeting the worker's transaction deadlocked once in CI).
    deadline = time.monotonic() + 60
    while (Run.objects.filter(retry_of__isnull=False).exclude(status__in=("succeeded", "failed", "cancelled",
                                                                          "timed_out")).exists()
           and time.monotonic() < deadline):
        time.sleep(0.2)


def test_retry_from_the_run_page_links_both_runs(demo, web, browser_page):  # noqa: F811
    page = browser_page
    failed = make_run(demo["automation"], status="failed", params=PARAMS, status_reason="timed out waiting")
    sign_in(page, web)
    page.goto(web + f"/runs/{failed.pk}/")
    page.click("[data-rerun]:has-text('Retry')")
    expect(page.locator(".flash-success")).to_contain_text(f"Retry of run #{failed.pk} started")
    expect(page.locator("#run-links")).to_contain_text(f"Retry of run #{failed.pk}")
    new_id = int(page.url.rstrip("/").split("/")[-1])
    page.goto(web + f"/runs/{failed.pk}/")
    expect(page.locator("#run-links")).to_contain_text(f"Retried as run #{new_id}")


def test_clone_archive_and_restore_an_automation(demo, web, browser_page):  # noqa: F811
    page, automation = browser_page, demo["automation"]
    sign_in(page, web)
    page.goto(web + f"/automations/{automation.slug}/")
    page.click("[data-clone]")
    expect(page.locator("h1")).to_contain_text(f"Copy of {automation.name}")
    expect(page.locator(".flash-success")).to_contain_text("were not copied")

    page.goto(web + f"/automations/{automation.slug}/")
    page.click("a:has-text('Archive…')")
    expect(page.locator("#confirm-points")).to_contain_text("keep their history")
    page.click("[data-confirm]")
    expect(page.locator(".flash-success")).to_contain_text(f"Archived {automation.name}")
    expect(page.locator(f"tbody a[href='/automations/{automation.slug}/']")).to_have_count(0)
    page.fill("input[name=q]", automation.name)
    page.click("button:has-text('Search')")
    expect(page.locator("tbody tr")).to_have_count(1)  # only the copy is active
    page.click("a:has-text('Archived (1)')")
    expect(page.locator("tbody")).to_contain_text(automation.name)

    page.goto(web + f"/automations/{automation.slug}/run/")  # the launcher says why nothing starts
    expect(page.locator("#archived-refusal")).to_contain_text("is archived, so it cannot be started")
    expect(page.locator("button:has-text('Start run')")).to_have_count(0)

    page.goto(web + f"/automations/{automation.slug}/")
    expect(page.locator("#archived-banner")).to_be_visible()
    expect(page.locator("#automation-form input[name=name]")).to_be_disabled()  # read-only while archived
    page.click("#archived-banner button:has-text('Restore from the archive')")
    expect(page.locator(".flash-success")).to_contain_text("it can run again")
    actions = list(demo["workspace"].audit_events.values_list("action", flat=True))
    assert {"automation_cloned", "automation_archived", "automation_unarchived"} <= set(actions)


def test_restoring_an_earlier_version_shows_the_diff_first(demo, web, browser_page):  # noqa: F811
    from venus_rpa.automations.services import automation_update

    page, automation = browser_page, demo["automation"]
    automation_update(automation=automation, user=None, definition={"goal": "A changed goal"}, change_note="edit")
    automation.refresh_from_db()
    last = automation.current_version.number
    sign_in(page, web)
    page.goto(web + f"/automations/{automation.slug}/versions/")
    page.click(f"[data-restore='{last - 1}']")
    expect(page.locator("pre.diff")).to_contain_text("A changed goal")
    expect(page.locator("body")).to_contain_text(f"new version v{last + 1}")
    page.click("[data-confirm]")
    expect(page.locator(".flash-success")).to_contain_text(f"Saved as version {last + 1}, equal to version {last - 1}")
    automation.refresh_from_db()
    assert automation.current_version.number == last + 1
    assert automation.current_version.goal == automation.versions.get(number=last - 1).goal


def test_deleting_asks_first_and_a_credential_in_use_is_kept(demo, web, browser_page):  # noqa: F811
    from venus_rpa.automations.models import Credential
    from venus_rpa.automations.services import credential_set
    from venus_rpa.triggers.services import schedule_create

    page, workspace = browser_page, demo["workspace"]
    credential_set(workspace=workspace, name="old-vpn", fields={"password": "x"}, domains=["vpn.test"])
    schedule = schedule_create(workspace=workspace, user=None, automation=demo["automation"], name="Monday report",
                               cron="0 9 * * 1", params=PARAMS)
    sign_in(page, web)
    page.goto(web + "/credentials/")
    in_use = Credential.objects.filter(workspace=workspace).exclude(name="old-vpn").first()
    page.click(f"a[aria-label='Delete credential {in_use.name}']")
    page.click("[data-confirm]")
    expect(page.locator("#confirm-error")).to_contain_text("is used by")
    page.goto(web + "/credentials/")
    page.click("a[aria-label='Delete credential old-vpn']")
    expect(page.locator("h1")).to_have_text("Delete credential old-vpn?")
    page.click("[data-confirm]")
    expect(page.locator(".flash-success")).to_contain_text("Deleted credential old-vpn")
    assert not Credential.objects.filter(name="old-vpn").exists() and Credential.objects.filter(pk=in_use.pk).exists()

    page.goto(web + "/schedules/")
    shot(page, "schedules-1280x800.png")
    page.click(f"a[aria-label='Delete schedule {schedule.name}']")
    page.click("a:has-text('Cancel')")  # cancelling keeps it
    expect(page.locator("tbody")).to_contain_text(schedule.name)
    page.click(f"a[aria-label='Delete schedule {schedule.name}']")
    page.click("[data-confirm]")
    expect(page.locator(".flash-success")).to_contain_text("Deleted schedule Monday report")
    assert set(workspace.audit_events.values_list("action", flat=True)) >= {"credential_deleted", "schedule_deleted"}


def test_a_reviewer_rejects_several_actions_with_one_comment(demo, web, browser_page):  # noqa: F811
    page = browser_page
    first = risky_review(make_run(demo["automation"], status="awaiting_review"), "Pay supplier A")
    second = risky_review(make_run(demo["automation"], status="awaiting_review"), "Pay supplier B")
    third = risky_review(make_run(demo["automation"], status="awaiting_review"), "Pay supplier C")
    sign_in(page, web)
    page.goto(web + "/reviews/")
    page.check(f"input[name=ids][value='{first.pk}']")
    page.check(f"input[name=ids][value='{second.pk}']")
    expect(page.locator("#reviews-bulk [data-bulk-count]")).to_have_text("2")
    page.fill("#reviews-bulk input[name=comment]", "duplicate invoices")
    page.click("button:has-text('Reject selected')")
    expect(page.locator("#bulk-results")).to_contain_text("2 of 2 done")
    for review in (first, second, third):
        review.refresh_from_db()
    assert (first.status, second.status, third.status) == ("rejected", "rejected", "pending")
    assert first.comment == second.comment == "duplicate invoices"


def test_a_viewer_sees_no_action_buttons_and_is_refused(demo, web, browser_page):  # noqa: F811
    from tests.factories import MembershipFactory, UserFactory

    page, automation = browser_page, demo["automation"]
    viewer = UserFactory(username="vera")
    MembershipFactory(workspace=demo["workspace"], user=viewer, role="viewer")
    failed = make_run(automation, status="failed", params=PARAMS)
    page.goto(web + "/login/")
    page.fill("input[name=username]", "vera")
    page.fill("input[name=password]", "password")
    page.click("button:has-text('Sign in')")
    page.goto(web + "/runs/")
    expect(page.locator("tbody tr")).to_have_count(1)
    expect(page.locator("[data-bulk-bar], input[name=ids]")).to_have_count(0)
    page.goto(web + f"/runs/{failed.pk}/")
    expect(page.locator("[data-rerun]")).to_have_count(0)
    page.goto(web + f"/automations/{automation.slug}/")
    expect(page.locator("[data-clone], a:has-text('Archive…')")).to_have_count(0)
    page.goto(web + f"/automations/{automation.slug}/versions/")
    expect(page.locator("[data-restore]")).to_have_count(0)
    csrf = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    for path in (f"/runs/{failed.pk}/retry/", f"/automations/{automation.slug}/clone/",
                 f"/automations/{automation.slug}/archive/", "/runs/bulk/"):
        response = page.request.post(web + path, headers={"X-CSRFToken": csrf, "Referer": web + "/runs/"},
                                     form={"ids": str(failed.pk), "action": "retry"})
        assert response.status == 403, (path, response.status)
