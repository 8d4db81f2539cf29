"""axe-core on every dashboard page a signed-in editor reaches, in real Chromium against daphne,
at 1280×800 and 390×844, and on every page a reviewer and a viewer reach at 1280×800: no serious
or critical violation, no server error, no console error.

The pages are found by following same-origin links from the home page, plus the detail pages of
a run with steps, a pending review, an automation, a credential, the webhooks and the schedules.
"""

from __future__ import annotations

import pytest

from tests.e2e.test_dashboard_e2e import web  # noqa: F401 (fixture)
from tests.helpers.dashboard_audit import AXE_JS, audit_dashboard, report, seed

pytestmark = pytest.mark.e2e


@pytest.fixture
def details(demo):
    """Seeded before Chromium starts (sync Playwright keeps an event loop in this thread)."""
    from venus_rpa.accounts.models import Membership

    owner = Membership.objects.filter(workspace=demo["workspace"], role="owner").first().user
    return seed(demo["workspace"], owner)


@pytest.fixture
def chromium(details, monkeypatch):
    from django.conf import settings
    from playwright.sync_api import sync_playwright

    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=settings.VENUS_CHROMIUM_PATH, headless=True)
        try:
            yield browser
        finally:
            browser.close()
            from django.db import connections

            connections.close_all()


def test_every_page_an_editor_reaches_has_no_serious_accessibility_violation(details, web, chromium):  # noqa: F811
    results = audit_dashboard(chromium, web, extra=list(details.values()), limit=60)

    paths = {r.url.removeprefix(web) for r in results}
    print(f"{len(paths)} pages audited at 2 sizes: {sorted(paths)}")
    assert len(paths) >= 15, sorted(paths)  # the crawl reached the dashboard, not just the home page
    for wanted in details.values():
        assert wanted in paths
    assert {r.viewport for r in results} == {"desktop", "phone"}
    # axe really ran: every page gave an answer (a list, possibly empty), and the vendored file is whole.
    assert AXE_JS.stat().st_size > 400_000
    problems = report(results)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("role", ["reviewer", "viewer"])
def test_every_page_a_reviewer_or_viewer_reaches_has_no_serious_accessibility_violation(details, web, chromium,  # noqa: F811
                                                                                        role):
    """They see other pages and controls (the review queue; no editor, no forms, 403 where they may
    not go): each page they reach, and the detail pages, at 1280×800."""
    results = audit_dashboard(chromium, web, extra=list(details.values()), limit=40, role=role, viewports=("desktop",))

    paths = {r.url.removeprefix(web) for r in results}
    print(f"{role}: {len(paths)} pages: {sorted(paths)}")
    assert len(paths) >= 10, sorted(paths)
    assert all(r.status is not None and r.status < 500 for r in results)
    problems = report(results)
    assert not problems, "\n".join(problems)


def test_key_pages_fit_the_phone_screen(details, web, chromium):  # noqa: F811
    """Screenshots of the home page, the runs list, a review and the automation editor at both
    sizes (written to /tmp/s25-a11y-*.png to look at); at 390 px nothing widens the page itself
    (wide tables scroll inside their own box)."""
    from tests.helpers.dashboard_audit import EDITOR, VIEWPORTS, sign_in

    pages = {"home": "/", "runs": "/runs/", "review": details["review"], "editor": details["automation"]}
    wide = []
    for size_name, size in VIEWPORTS.items():
        context = chromium.new_context(viewport=size)
        page = context.new_page()
        try:
            sign_in(page, web, EDITOR)
            for name, path in pages.items():
                page.goto(web + path)
                page.screenshot(path=f"/tmp/s25-a11y-{name}-{size['width']}.png", full_page=True)
                width = page.evaluate("() => document.documentElement.scrollWidth")
                if width > size["width"]:
                    wide.append((size_name, path, width))
            if size_name == "desktop":  # the nav shortens a long workspace name, never the member's role
                clipped = page.evaluate("""() => {
                  const who = document.querySelector('.whoami'), role = who.querySelector('.role');
                  return role.getBoundingClientRect().right - who.getBoundingClientRect().right; }""")
                assert clipped <= 0.5, clipped
        finally:
            context.close()
    assert not wide, wide


def test_the_audit_catches_a_violation(web, chromium):  # noqa: F811
    """The check can fail: a button without a name, added to a real page, is reported as critical."""
    from tests.helpers.dashboard_audit import EDITOR, RUN_AXE, sign_in

    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    try:
        sign_in(page, web, EDITOR)
        page.goto(web + "/")
        page.evaluate("""() => { const b = document.createElement('button'); b.id = 'nameless';
                                 document.querySelector('main').appendChild(b); }""")
        page.evaluate(AXE_JS.read_text())
        violations = page.evaluate(RUN_AXE)
    finally:
        context.close()
    named = [v for v in violations if v["id"] == "button-name"]
    assert named and named[0]["impact"] == "critical" and "#nameless" in named[0]["targets"]
