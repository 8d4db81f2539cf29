"""The dashboard as people use it, on the production path: DEBUG off, the same settings, static
files collected and served by whitenoise, daphne (ASGI, websockets), PostgreSQL and Redis, real
Chromium. Prints JSON.

- `pages`: dashboard pages a signed-in editor reaches (links from the home page, bounded, plus the
  detail pages of a run with steps, a step, a review, an automation, a credential, a webhook and
  a schedule); each is audited at 1280×800 and at 390×844. A reviewer's and a viewer's crawls
  (what their pages link to, and the same detail pages, some of which answer them 403) are audited
  at 1280×800; `by_role` gives each role's pages and failures, and the figures below count them all.
- `server_errors`: page loads answered 5xx (or not at all); `console_errors`: console errors and
  uncaught page errors on those loads (CSP refusals included).
- `axe_serious_or_critical`: axe-core 4.10 violations of impact serious or critical, summed over
  pages and sizes.
- `page_ms_p95`: navigation start → load event, over every audited load.
- `review_decision_clicks`: a review waits; the reviewer's e-mail notice (sent by the real notice
  service, kept by Django's in-memory mail backend) has a link; clicks from that link to the
  review decided (status approved in the database).
- `long_editor`: a 10,000-step automation's editor in Chromium (`--long-steps`): `load_ms`
  (navigation start → load event), `open_row_ms` (a closed row's "Edit" → its full row focused),
  `save_ms` (Save → the editor shown again with "Saved as version 2"), and the steps stored.
- `live_update_ms_p50`: the runs list is open; a run goes to awaiting_review with a new review
  (through the services a worker calls) → its row's status and the nav's Reviews badge both show
  it, without reload, over the websocket (timed in the page against the benchmark's clock).

    .venv/bin/python benchmarks/dashboard.py [--limit 60] [--samples 15] [--long-steps 10000]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from _stack import ROOT, practice_site, setup_django, start_postgres, wait_http

from tests.helpers.dashboard_audit import EDITOR, REVIEWER, audit_dashboard, report, seed, sign_in
from tests.helpers.live import WATCH
from tests.helpers.servers import free_port


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


class Clicks:
    """Counts the clicks a person makes (every click goes through here)."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, locator) -> None:
        self.count += 1
        locator.click()


def review_decision(browser, web: str, run, workspace) -> int:
    """Clicks from the e-mail notice's link to a decided review."""
    from django.core import mail

    from venus_rpa.notifications.models import Notice
    from venus_rpa.notifications.services import notice_send
    from venus_rpa.reviews.models import ReviewRequest

    review = ReviewRequest.objects.filter(run=run, status="pending").order_by("pk").first()
    notice = Notice.objects.get(review=review, channel="email")
    notice_send(notice_id=notice.pk)
    link = re.search(r"Open the review: (\S+)", mail.outbox[-1].body).group(1)
    assert link.startswith(web), link
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    click = Clicks()
    try:
        sign_in(page, web, REVIEWER)  # the reviewer is signed in already, as on their usual browser
        page.set_content(f'<p>{mail.outbox[-1].subject}</p><p><a href="{link}">Open the review</a></p>')
        click(page.get_by_role("link", name="Open the review"))
        page.wait_for_url(link)
        click(page.locator(f"#review-{review.pk} [data-review-approve]"))
        deadline = time.monotonic() + 15
        while ReviewRequest.objects.get(pk=review.pk).status == "pending":
            assert time.monotonic() < deadline, "the review was not decided"
            time.sleep(0.05)
        assert ReviewRequest.objects.get(pk=review.pk).status == "approved"
    finally:
        context.close()
    return click.count


def live_updates(browser, web: str, runs: list) -> tuple[list[float], bool]:
    from venus_rpa.reviews.models import ReviewRequest
    from venus_rpa.reviews.services import review_create_risky
    from venus_rpa.runs.services import run_status_set

    def waits_for_review(run, number: int) -> None:  # what the worker does when an action needs a person
        verdict = {"level": "R3", "category": "PAY", "reason": "submits a payment", "modifiers": []}
        review_create_risky(run_id=run.pk, title=f"Pay invoice {number}", detail={"verdict": verdict},
                            screenshot=None, ttl_s=600, action={"kind": "click", "target": {"text": "Pay"}},
                            verdict=verdict, fingerprint=f"bench-{number}")
        run_status_set(run_id=run.pk, status="awaiting_review")

    # The services publish over the channel layer from a thread without an event loop, as a worker does.
    worker = ThreadPoolExecutor(max_workers=1)
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    delays = []
    try:
        sign_in(page, web, EDITOR)
        page.goto(web + "/runs/")
        page.locator("html[data-live=open]").wait_for(state="attached", timeout=15_000)
        page.evaluate(WATCH)
        loaded = page.evaluate("() => window.__live.loaded")
        for number, run in enumerate(runs, start=1):
            pending = ReviewRequest.objects.filter(workspace_id=run.workspace_id, status="pending").count() + 1
            page.evaluate("(want) => { Object.assign(window.__live, {want: want, at: null, row: null, badge: null}); }",
                          {"run": run.pk, "status": "awaiting_review", "pending": pending})
            started = time.time() * 1000
            worker.submit(waits_for_review, run, number).result()
            deadline = time.monotonic() + 10
            while not (at := page.evaluate("() => window.__live.at")):
                assert time.monotonic() < deadline, "the runs list row and the badge did not both show the change"
                time.sleep(0.01)
            delays.append(at - started)
            time.sleep(0.4)  # isolated changes: a live region re-reads at most every 300 ms
        same_page = page.evaluate("() => window.__live.loaded") == loaded
    finally:
        context.close()
        from django.db import connection

        worker.submit(lambda: connection.close()).result()  # the proxy resolves to that thread's connection
        worker.shutdown()
    return delays, same_page


def long_editor(browser, web: str, workspace, owner, steps: int) -> dict:
    """A `steps`-step automation opened, one row opened and changed, and saved, as an editor does."""
    from venus_rpa.automations.models import Automation
    from venus_rpa.automations.services import automation_create

    definition = {"start_url": "http://127.0.0.1:9/", "allowed_domains": ["127.0.0.1"],
                  "steps": [{"kind": "click", "name": f"Step {i}", "target": f"Button {i}"} for i in range(steps)]}
    automation = automation_create(workspace=workspace, user=owner, slug="long-bench", name="Long", definition=definition)
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    try:
        sign_in(page, web, EDITOR)
        page.goto(web + f"/automations/{automation.slug}/", timeout=300_000)
        timing = page.evaluate("() => performance.getEntriesByType('navigation')[0].toJSON()")
        started = time.monotonic()
        page.locator("#steps .step-row").nth(steps // 2).locator("[data-step-open]").click()
        opened = page.locator("#steps .step-row").nth(steps // 2)
        opened.locator("select.step-kind:focus").wait_for(timeout=60_000)
        open_ms = (time.monotonic() - started) * 1000
        opened.locator("input[name$='-name']").fill("The middle step")
        started = time.monotonic()
        page.click("button:has-text('Save')")
        page.locator(".flash-success:has-text('Saved as version 2')").wait_for(timeout=300_000)
        save_ms = (time.monotonic() - started) * 1000
    finally:
        context.close()
    stored = Automation.objects.get(pk=automation.pk).current_version.steps
    return {"steps": steps, "load_ms": round(timing["loadEventEnd"], 1), "open_row_ms": round(open_ms, 1),
            "save_ms": round(save_ms, 1), "stored_steps": len(stored),
            "changed_step_saved": stored[steps // 2]["name"] == "The middle step"}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=60, help="pages the crawl may find from the home page")
    parser.add_argument("--samples", type=int, default=15, help="run state changes timed for live_update_ms")
    parser.add_argument("--long-steps", type=int, default=10_000, help="steps of the long automation's editor")
    args = parser.parse_args()
    os.environ.setdefault("DATABASE_URL", start_postgres())
    os.environ["DJANGO_DEBUG"] = "0"
    os.environ["EMAIL_BACKEND"] = "django.core.mail.backends.locmem.EmailBackend"
    port = free_port()
    web = f"http://127.0.0.1:{port}"
    os.environ["VENUS_PUBLIC_URL"] = web
    setup_django()
    from django.conf import settings
    from django.core.management import call_command

    assert not settings.DEBUG
    call_command("collectstatic", interactive=False, verbosity=0)  # as scripts/up.sh and the image do

    from venus_rpa.accounts.models import Membership
    from venus_rpa.automations.models import Automation
    from venus_rpa.core.demo import DEMO_AUTOMATION, DEMO_WORKSPACE
    from venus_rpa.notifications.services import notification_settings_update
    from venus_rpa.runs.models import Run

    with practice_site(quiet=True) as base:
        call_command("seed_demo", practice_url=base, stdout=open(os.devnull, "w"))
        automation = Automation.objects.select_related("workspace").get(workspace__slug=DEMO_WORKSPACE,
                                                                        slug=DEMO_AUTOMATION)
        workspace = automation.workspace
        owner = Membership.objects.filter(workspace=workspace, role="owner").first().user
        from django.contrib.auth import get_user_model

        details = seed(workspace, owner)
        reviewer = get_user_model().objects.get(username=REVIEWER[0])
        notification_settings_update(workspace=workspace, user=reviewer, email_enabled=True, webhook_url="",
                                     webhook_enabled=False)
        decide_run = Run.objects.create(workspace=workspace, automation=automation, version=automation.current_version,
                                        status="running")
        verdict = {"level": "R3", "category": "PAY", "reason": "submits a payment", "modifiers": []}
        from venus_rpa.reviews.services import review_create_risky

        review_create_risky(run_id=decide_run.pk, title="Click “Pay 310.00 EUR”", detail={"verdict": verdict},
                            screenshot=None, ttl_s=3600, action={"kind": "click", "target": {"text": "Pay"}},
                            verdict=verdict, fingerprint="bench-decide")
        Run.objects.filter(pk=decide_run.pk).update(status="awaiting_review")
        live_runs = [Run.objects.create(workspace=workspace, automation=automation, version=automation.current_version,
                                        status="running") for _ in range(args.samples)]

        env = {**os.environ, "LOG_LEVEL": "WARNING", "PYTHONUNBUFFERED": "1", "VENUS_STATIC_COLLECTED": "1"}
        log = open(os.path.join(os.environ["VENUS_LOCAL_DIR"], "daphne.log"), "wb")
        daphne = subprocess.Popen([sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
                                   "venus_rpa.asgi:application"], cwd=ROOT, env=env, stdout=log,
                                  stderr=subprocess.STDOUT)
        # Playwright's sync API keeps an event loop in this thread; the ORM calls here are plain reads.
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
        from playwright.sync_api import sync_playwright

        try:
            try:
                wait_http(web + "/healthz", proc=daphne, timeout=180)  # a loaded machine imports slowly
            except TimeoutError:
                sys.exit("daphne did not start:\n" + open(log.name, errors="replace").read()[-3000:])
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=settings.VENUS_CHROMIUM_PATH, headless=True)
                try:
                    results = audit_dashboard(browser, web, extra=list(details.values()), limit=args.limit)
                    for role in ("reviewer", "viewer"):
                        results += audit_dashboard(browser, web, extra=list(details.values()), limit=args.limit,
                                                   role=role, viewports=("desktop",))
                    clicks = review_decision(browser, web, decide_run, workspace)
                    delays, same_page = live_updates(browser, web, live_runs)
                    long = long_editor(browser, web, workspace, owner, args.long_steps)
                finally:
                    browser.close()
        finally:
            daphne.terminate()
            daphne.wait(timeout=30)

    problems = report(results)
    result = {
        "benchmark": "dashboard",
        "pages": len({r.url for r in results}),
        "by_role": {role: {"pages": len({r.url for r in results if r.role == role}),
                           "refused_403": len({r.url for r in results if r.role == role and r.status == 403}),
                           "failures": sum(1 for line in problems if line.startswith(role + " "))}
                    for role in ("editor", "reviewer", "viewer")},
        "page_loads": len(results),
        "server_errors": sum(1 for r in results if r.status is None or r.status >= 500),
        "console_errors": sum(len(r.console) for r in results),
        "axe_serious_or_critical": sum(len(r.blocking) for r in results),
        "axe_minor_or_moderate": sum(len(r.violations) - len(r.blocking) for r in results),
        "page_ms_p50": round(statistics.median(r.ms for r in results), 1),
        "page_ms_p95": round(percentile([r.ms for r in results], 0.95), 1),
        "server_ms_p95": round(percentile([r.server_ms for r in results], 0.95), 1),
        "slowest_pages": [f"{r.viewport} {r.url.removeprefix(web)} {r.ms:.0f} ms (server {r.server_ms:.0f} ms)"
                          for r in sorted(results, key=lambda r: -r.ms)[:8]],
        "review_decision_clicks": clicks,
        "live_update_ms_p50": round(statistics.median(delays), 1),
        "live_update_ms_max": round(max(delays), 1),
        "live_update_samples": len(delays),
        "long_editor": long,
        "live_update_without_reload": same_page,
        "problems": problems[:50],
        "targets": {"server_errors": 0, "console_errors": 0, "axe_serious_or_critical": 0, "page_ms_p95": 500,
                    "review_decision_clicks": 3, "live_update_ms_p50": 500},
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
