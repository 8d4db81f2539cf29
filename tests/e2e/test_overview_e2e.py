"""An automation's overview and a run's offline trace viewer, in real Chromium against daphne.

A viewer opens the overview of an automation with runs of known states and durations: both charts
(Chart.js, served from our static files) draw the page's own figures, the tables show the same
numbers, a failure reason leads to exactly its runs, the page works without JavaScript and the
CSP holds (no console error). The trace bundle of a run, unzipped, opens from file:// with every
step, no console error and no request but to its own folder; a thought holding HTML is shown as text.

Screenshots at 1280×800 and 390×844 go to /tmp/s25-observe-*.png (or $VENUS_SHOT_DIR).
"""

from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.test_dashboard_e2e import browser_page, web  # noqa: F401 (fixtures)
from tests.runs.test_stats import ran

pytestmark = pytest.mark.e2e
SHOTS = Path(os.environ.get("VENUS_SHOT_DIR", "/tmp"))
SIZES = ((1280, 800), (390, 844))
HOSTILE = "<script>window.pwned = 1</script><img src=x onerror=\"window.pwned=2\">"


def shots(page, name: str) -> None:
    """The page at both sizes (whole page), then back to 1280×800."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.screenshot(path=str(SHOTS / f"s25-observe-{name}-{width}x{height}.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 800})


def watch(page) -> list[str]:
    """Console errors and uncaught page errors (CSP refusals are console errors)."""
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"console: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
    page.on("response", lambda r: problems.append(f"{r.status}: {r.url}") if r.status >= 400 else None)
    return problems


def sign_in_viewer(page, web: str, workspace) -> None:  # noqa: F811
    from tests.factories import MembershipFactory, UserFactory

    MembershipFactory(workspace=workspace, user=UserFactory(username="vera"), role="viewer")
    page.goto(web + "/login/")
    page.fill("input[name=username]", "vera")
    page.fill("input[name=password]", "password")
    page.click("button:has-text('Sign in')")
    page.wait_for_url(web + "/")


def known_runs(automation) -> None:
    for seconds in (10, 20, 30):
        ran(automation, "succeeded", seconds=seconds)
    ran(automation, "failed", seconds=40, reason="Submit button not found")
    ran(automation, "failed", days_ago=2, seconds=50, reason="Submit button not found")
    ran(automation, "timed_out", days_ago=2, seconds=300, reason="took longer than 300 s")
    ran(automation, "cancelled", days_ago=2)


CHART_DATA = """(id) => {
  const chart = window.Chart.getChart(document.getElementById(id));
  const canvas = chart.canvas, ctx = canvas.getContext("2d");
  const pixels = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
  let painted = 0;
  for (let i = 3; i < pixels.length; i += 4) if (pixels[i] > 0) painted++;
  return {type: chart.config.type, labels: chart.data.labels, painted,
          datasets: chart.data.datasets.map((d) => ({label: d.label, data: d.data}))};
}"""


def test_a_viewer_reads_the_overview_as_charts_and_tables(demo, web, browser_page):  # noqa: F811
    from django.utils import timezone

    page, automation = browser_page, demo["automation"]
    known_runs(automation)
    problems = watch(page)
    sign_in_viewer(page, web, demo["workspace"])
    page.goto(web + "/automations/")
    page.click(f"a[href='/automations/{automation.slug}/overview/']")
    page.click("a:has-text('7 days')")
    expect(page.locator("#chart-runs[data-chart-ready='1']")).to_have_count(1)
    expect(page.locator("#chart-duration[data-chart-ready='1']")).to_have_count(1)

    page_data = page.evaluate("() => JSON.parse(document.getElementById('overview-data').textContent)")
    runs_chart = page.evaluate(CHART_DATA, "chart-runs")
    duration_chart = page.evaluate(CHART_DATA, "chart-duration")
    today = timezone.localdate()
    assert runs_chart["type"] == "bar" and len(runs_chart["labels"]) == 7 and page_data["days"][-1] == today.isoformat()
    assert runs_chart["labels"] == page_data["labels"] and runs_chart["labels"][-1] == f"{today:%b} {today.day}"
    drawn = {d["label"]: d["data"] for d in runs_chart["datasets"]}
    assert drawn == {s["label"]: s["counts"] for s in page_data["states"]}
    assert drawn["Succeeded"][-1] == 3 and drawn["Failed"][-1] == 1 and drawn["Failed"][-3] == 1
    assert drawn["Timed out"][-3] == 1 and drawn["Cancelled"][-3] == 1 and sum(drawn["Succeeded"]) == 3
    p50, p95 = (d["data"] for d in duration_chart["datasets"])
    assert p50[-1] == pytest.approx(25.0) and p95[-1] == pytest.approx(38.5) and p50[-3] == pytest.approx(175.0)
    assert runs_chart["painted"] > 2000 and duration_chart["painted"] > 2000  # pixels were drawn, not a blank canvas

    row = page.locator(f"#days-table tbody tr[data-day='{today.isoformat()}']")
    expect(row.locator("td[data-state='succeeded']")).to_have_text("3")
    expect(row.locator("td[data-state='failed']")).to_have_text("1")
    expect(row.locator("td[data-p='50']")).to_have_text("25.0 s")
    expect(page.locator("#stat-runs .stat-value")).to_have_text("7")
    expect(page.locator("#stat-success .stat-value")).to_have_text("50 %")
    expect(page.locator("#stat-p50 .stat-value")).to_have_text("35.0 s")
    expect(page.locator("#stat-p95 .stat-value")).to_have_text("3 min 57 s")  # 237.5 s
    shots(page, "overview")

    page.click("#failure-reasons a:has-text('See 2 runs')")
    expect(page.locator("#reason-filter")).to_contain_text("Submit button not found")
    expect(page.locator("#runs-live tbody tr")).to_have_count(2)
    assert problems == [], problems


def test_the_overview_works_without_javascript(demo, web, browser_page):  # noqa: F811
    page, automation = browser_page, demo["automation"]
    known_runs(automation)
    sign_in_viewer(page, web, demo["workspace"])
    context = page.context.browser.new_context(java_script_enabled=False, storage_state=page.context.storage_state())
    bare = context.new_page()
    bare.goto(web + f"/automations/{automation.slug}/overview/?days=7")
    expect(bare.locator("#days-table tfoot td[data-state='succeeded']")).to_have_text("3")
    expect(bare.locator("#failure-reasons tbody tr")).to_have_count(2)
    expect(bare.locator("#chart-runs[data-chart-ready]")).to_have_count(0)  # no chart, nothing lost
    context.close()


def _real_screenshot(page) -> bytes:
    page.set_content("<main style='font:24px sans-serif;padding:40px'><h1>Expense form</h1>"
                     "<button style='font-size:24px'>Save</button></main>")
    return page.screenshot(type="jpeg", quality=70)


def test_the_trace_bundle_opens_offline_and_shows_every_step(demo, web, browser_page, tmp_path):  # noqa: F811
    from django.core.files.base import ContentFile

    from tests.dashboard.conftest import make_run

    page = browser_page
    run = make_run(demo["automation"], status="failed", steps=3, status_reason="Save did nothing", params={"title": "Taxi"})
    jpeg = _real_screenshot(page)
    for step in run.steps.order_by("index"):
        step.screenshot.save(f"trace-{run.pk}-{step.index}.jpg", ContentFile(jpeg), save=False)
        step.thought = f"Step {step.index}: I click Save." + (HOSTILE if step.index == 1 else "")
        step.model_ms = 812.0
        step.grounding = {**step.grounding, "effect": {"verdict": "ineffective" if step.index == 2 else "effective",
                                                       "check": "nothing_changed" if step.index == 2 else "page_changed"}}
        if step.index == 1:
            step.output = {"risk": {"level": "R3", "category": "PAY", "decision": "review", "reason": "Pays 12 EUR",
                                    "review": {"decision": "approve", "decided_by": "rita"}}}
        step.save()
    sign_in_viewer(page, web, demo["workspace"])
    response = page.request.get(web + f"/runs/{run.pk}/trace.zip")
    assert response.status == 200
    folder = tmp_path / "trace"
    zipfile.ZipFile(io.BytesIO(response.body())).extractall(folder)

    viewer = page.context.browser.new_context(viewport={"width": 1280, "height": 800})
    offline = viewer.new_page()
    problems, requests = watch(offline), []
    offline.on("request", lambda r: requests.append(r.url))
    offline.goto((folder / "index.html").as_uri())
    steps = offline.locator("li.step")
    expect(steps).to_have_count(3)
    expect(steps.nth(1).locator("[data-thought]")).to_contain_text(HOSTILE)  # shown as text
    expect(steps.nth(1).locator("[data-risk]")).to_contain_text("approved by rita")
    expect(steps.nth(2).locator("[data-effect='ineffective']")).to_contain_text("nothing changed")
    expect(steps.nth(0).locator("[data-action]")).to_contain_text("click")
    expect(steps.nth(0).locator("[data-timings]")).to_contain_text("812 ms")
    expect(offline.locator("body")).to_contain_text("Save did nothing")
    widths = offline.evaluate("() => [...document.images].map((i) => i.complete && i.naturalWidth)")
    assert widths == [1280, 1280, 1280]  # every screenshot loads from the folder
    assert offline.evaluate("() => window.pwned") is None
    assert requests and all(url.startswith("file://") for url in requests), requests
    shots(offline, "trace")
    assert problems == [], problems
    viewer.close()
