"""Crawl the dashboard as a signed-in member (an editor, a reviewer, a viewer: each reaches other
pages and sees other controls) in real Chromium and audit each page: HTTP status, console errors,
load time and axe-core's accessibility rules (tests/assets/axe/, vendored).

Shared by tests/e2e/test_accessibility_e2e.py and benchmarks/dashboard.py, so both measure the
same pages the same way. Nothing here is a test double: the pages come from the real server.

axe is evaluated through the browser's debugging protocol (page.evaluate with its source): the
dashboard's Content-Security-Policy (script-src 'self') would refuse an injected <script>, and
turning CSP off for the context would also hide CSP breakage from the console-error count.
"""

from __future__ import annotations

import io
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urldefrag, urlsplit

AXE_JS = Path(__file__).resolve().parents[1] / "assets" / "axe" / "axe.min.js"
EDITOR = ("edna", "edna-a11y-password-1")
REVIEWER = ("rita", "rita-a11y-password-1")
VIEWER = ("vera", "vera-a11y-password-1")
ROLES = {"editor": EDITOR, "reviewer": REVIEWER, "viewer": VIEWER}
VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
BLOCKING = ("serious", "critical")
# Not pages: downloads, the API and its docs, the admin, media and static files, signing out.
SKIP_PREFIXES = ("/api/", "/admin/", "/media/", "/static/", "/logout/", "/hooks/", "/flower")
SKIP_SUFFIXES = (".zip", ".csv", ".json", ".jsonl", ".xlsx", ".png", ".jpg", ".jpeg", ".webp")
RUN_AXE = """async () => {
  const result = await axe.run(document, {resultTypes: ['violations']});
  return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
    targets: v.nodes.map(n => n.target.join(' ')).slice(0, 5)}));
}"""


@dataclass
class PageAudit:
    url: str
    viewport: str
    status: int | None
    ms: float
    server_ms: float = 0.0  # request sent → first byte of the answer (the browser's navigation timing)
    console: list[str] = field(default_factory=list)
    violations: list[dict] = field(default_factory=list)
    role: str = "editor"  # whose session loaded the page

    @property
    def blocking(self) -> list[dict]:
        return [v for v in self.violations if v["impact"] in BLOCKING]


def jpeg(width: int = 320, height: int = 200, shade: int = 200) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (width, height), (shade, shade, 230)).save(buf, "JPEG")
    return buf.getvalue()


def seed(workspace, owner) -> dict[str, str]:
    """An editor, a reviewer and a viewer to sign in as, and one of each thing a detail page shows: a run with
    steps, a pending review on it, a webhook, a schedule, a credential. Returns the detail paths."""
    from datetime import timedelta

    from django.core.files.base import ContentFile
    from django.utils import timezone

    from venus_rpa.accounts.models import Membership, Role
    from venus_rpa.accounts.services import user_create
    from venus_rpa.automations.models import Automation
    from venus_rpa.automations.services import credential_set
    from venus_rpa.reviews.services import review_create_risky
    from venus_rpa.runs.models import Run, Step

    editor = user_create(username=EDITOR[0], password=EDITOR[1], email="edna@example.com")
    Membership.objects.create(workspace=workspace, user=editor, role=Role.EDITOR)
    reviewer = user_create(username=REVIEWER[0], password=REVIEWER[1], email="rita@example.com")
    Membership.objects.create(workspace=workspace, user=reviewer, role=Role.REVIEWER)
    viewer = user_create(username=VIEWER[0], password=VIEWER[1], email="vera@example.com")
    Membership.objects.create(workspace=workspace, user=viewer, role=Role.VIEWER)
    automation = Automation.objects.filter(workspace=workspace).order_by("pk").first()
    now = timezone.now()
    run = Run.objects.create(workspace=workspace, automation=automation, version=automation.current_version,
                             status="awaiting_review", started_at=now - timedelta(seconds=30))
    for index, (kind, name) in enumerate([("goto", "Open the form"), ("fill", "Title"), ("click", "Save")]):
        step = Step(run=run, index=index, kind=kind, name=name, status="succeeded",
                    action={"kind": kind, "target": {"text": name}},
                    grounding={"strategy": "role", "box": {"x": 40, "y": 60, "width": 120, "height": 30}},
                    started_at=now - timedelta(seconds=20 - index), act_ms=12.5, observe_ms=30)
        step.screenshot.save(f"a11y-run{run.pk}-{index}.jpg", ContentFile(jpeg(shade=150 + index * 20)), save=False)
        step.save()
    verdict = {"level": "R3", "category": "PAY", "reason": "submits a payment", "modifiers": []}
    review = review_create_risky(run_id=run.pk, title="Click “Pay 120.00 EUR”",
                                 detail={"verdict": verdict, "action": {"kind": "click"}}, screenshot=jpeg(),
                                 ttl_s=3600, action={"kind": "click", "target": {"text": "Pay"}}, verdict=verdict,
                                 fingerprint="a11y")
    Run.objects.create(workspace=workspace, automation=automation, version=automation.current_version,
                       status="failed", status_reason="The Save button never appeared.",
                       started_at=now - timedelta(minutes=5), finished_at=now - timedelta(minutes=4))
    credential_set(workspace=workspace, name="a11y-login", fields={"username": "u", "password": "p"},
                   domains=["127.0.0.1"], user=owner)
    paths = {"run": f"/runs/{run.pk}/", "step": f"/runs/{run.pk}/steps/1/", "review": f"/reviews/{review.pk}/",
             "automation": f"/automations/{automation.slug}/", "credential": "/credentials/a11y-login/"}
    try:
        from venus_rpa.triggers.services.schedules import schedule_create
        from venus_rpa.triggers.services.webhooks import webhook_trigger_create
    except ImportError:  # the triggers app is optional
        return paths
    trigger, _ = webhook_trigger_create(workspace=workspace, user=owner, automation=automation, name="From the CRM")
    schedule = schedule_create(workspace=workspace, user=owner, automation=automation, name="Every morning",
                               cron="0 7 * * 1-5", timezone_name="Europe/Paris", params={})
    # A schedule has no page of its own: its row on the schedules page, and its delete confirmation.
    paths.update(webhook=f"/webhooks/{trigger.pk}/", schedules="/schedules/",
                 schedule=f"/schedules/{schedule.pk}/delete/")
    return paths


def sign_in(page, base: str, user: tuple[str, str] = EDITOR) -> None:
    page.goto(base + "/login/")
    page.fill("input[name=username]", user[0])
    page.fill("input[name=password]", user[1])
    page.click("button[type=submit]")
    page.wait_for_url(lambda url: "/login/" not in url)


def _page_path(base: str, href: str) -> str | None:
    href, _ = urldefrag(href)
    parts, origin = urlsplit(href), urlsplit(base)
    if (parts.scheme, parts.netloc) != (origin.scheme, origin.netloc):
        return None
    path = parts.path or "/"
    if path.startswith(SKIP_PREFIXES) or path.lower().endswith(SKIP_SUFFIXES):
        return None
    return path + (f"?{parts.query}" if parts.query else "")


def audit(page, url: str, viewport: str, *, axe_source: str) -> PageAudit:
    console: list[str] = []
    on_console = lambda msg: console.append(f"{msg.type}: {msg.text}") if msg.type == "error" else None  # noqa: E731
    on_error = lambda exc: console.append(f"pageerror: {exc}")  # noqa: E731
    page.on("console", on_console)
    page.on("pageerror", on_error)
    try:
        started = time.perf_counter()
        response = page.goto(url, wait_until="load")
        ms = (time.perf_counter() - started) * 1000
        server_ms = page.evaluate("""() => { const n = performance.getEntriesByType('navigation')[0];
                                             return n ? n.responseStart - n.requestStart : 0; }""")
        page.evaluate(axe_source)
        violations = page.evaluate(RUN_AXE)
    finally:
        page.remove_listener("console", on_console)
        page.remove_listener("pageerror", on_error)
    status = response.status if response else None
    if status is not None and status >= 400:  # the browser reports the page's own status as a console error
        own = f"error: Failed to load resource: the server responded with a status of {status} "
        mine = next((i for i, line in enumerate(console) if line.startswith(own)), None)
        if mine is not None:  # that one line; a sub-resource the page failed to load still counts
            del console[mine]
    return PageAudit(url=url, viewport=viewport, status=status, ms=ms,
                     server_ms=server_ms, console=console, violations=violations)


def crawl(page, base: str, *, extra: list[str], limit: int = 60) -> list[str]:
    """Paths reachable from the home page by same-origin links (breadth first, at most `limit`),
    then the detail pages in `extra` that the crawl did not reach."""
    seen, queue, found = {"/"}, deque(["/"]), []
    while queue and len(found) < limit:
        path = queue.popleft()
        page.goto(base + path, wait_until="load")
        if _page_path(base, page.url) != path:  # redirected (a form-only route, sign-in): not a page of its own
            continue
        found.append(path)
        for href in page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)"):
            target = _page_path(base, href)
            if target and target not in seen:
                seen.add(target)
                queue.append(target)
    return found + [p for p in extra if p not in found]


def audit_dashboard(browser, base: str, *, extra: list[str], limit: int = 60, role: str = "editor",
                    viewports: tuple[str, ...] = tuple(VIEWPORTS)) -> list[PageAudit]:
    """Every page a member of `role` reaches (the crawl follows what their pages link to, then
    `extra`), at each of `viewports`, in a fresh signed-in context per viewport."""
    axe_source = AXE_JS.read_text()
    results: list[PageAudit] = []
    paths: list[str] | None = None
    for name in viewports:
        context = browser.new_context(viewport=VIEWPORTS[name])
        context.set_default_timeout(20_000)
        page = context.new_page()
        try:
            sign_in(page, base, ROLES[role])
            if paths is None:
                paths = crawl(page, base, extra=extra, limit=limit)
            for path in paths:
                result = audit(page, base + path, name, axe_source=axe_source)
                result.role = role
                results.append(result)
        finally:
            context.close()
    return results


def report(results: list[PageAudit]) -> list[str]:
    """One line per failing page: a server error, a console error or a serious/critical violation."""
    lines = []
    for r in results:
        where = f"{r.role} {r.viewport} {urlsplit(r.url).path}{'?' + urlsplit(r.url).query if urlsplit(r.url).query else ''}"
        if r.status is None or r.status >= 500:
            lines.append(f"{where}: HTTP {r.status}")
        lines.extend(f"{where}: console {c}" for c in r.console)
        lines.extend(f"{where}: axe {v['impact']} {v['id']} ({v['help']}) at {', '.join(v['targets'])}"
                     for v in r.blocking)
    return lines
