"""The automation overview page (figures of its runs) and its failure-reason links to the runs list;
the trace bundle's offline viewer (index.html)."""

from __future__ import annotations

import io
import json
import re
import zipfile
from html import unescape

import pytest

from tests.dashboard.conftest import make_run
from tests.runs.test_stats import history, ran  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db


def test_a_viewer_sees_the_figures_and_the_chart_data(viewer_client, history):  # noqa: F811
    response = viewer_client.get(f"/automations/{history.slug}/overview/?days=7")
    assert response.status_code == 200
    html = response.content.decode()
    data = json.loads(unescape(re.search(r'<script id="overview-data" type="application/json">(.*?)</script>', html,
                                         re.S).group(1)))
    assert len(data["labels"]) == len(data["days"]) == 7
    assert {s["key"]: sum(s["counts"]) for s in data["states"]} == {"succeeded": 3, "failed": 2, "timed_out": 1,
                                                                    "cancelled": 1}
    assert data["p50"][-1] == pytest.approx(25.0) and data["p95"][-3] == pytest.approx(287.5)
    assert '<div class="stat-value">50 %</div>' in html
    assert "Submit button not found" in html and "See 2 runs" in html
    assert "<script>" not in html.replace('<script id="overview-data"', "")  # no inline script (CSP)


def test_the_page_is_linked_from_the_list_and_the_editor(viewer_client, history):  # noqa: F811
    link = f'href="/automations/{history.slug}/overview/"'
    assert link in viewer_client.get("/automations/").content.decode()
    assert link in viewer_client.get(f"/automations/{history.slug}/").content.decode()


def test_another_workspace_gets_404_and_anonymous_signs_in(outsider_client, client, history):  # noqa: F811
    assert outsider_client.get(f"/automations/{history.slug}/overview/").status_code == 404
    response = client.get(f"/automations/{history.slug}/overview/")
    assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_a_failure_reason_links_to_exactly_its_runs(viewer_client, history):  # noqa: F811
    html = viewer_client.get(f"/automations/{history.slug}/overview/").content.decode()
    href = unescape(re.search(r'<a href="(/runs/\?[^"]*reason=Submit[^"]*)">See 2 runs', html).group(1))
    page = viewer_client.get(href)
    assert page.status_code == 200
    assert len(page.context["page"].object_list) == 2
    assert {r.status_reason for r in page.context["page"].object_list} == {"Submit button not found"}
    assert b"Only runs that ended with the reason" in page.content


def test_an_automation_without_runs_says_so(viewer_client, automation):
    response = viewer_client.get(f"/automations/{automation.slug}/overview/?days=90")
    assert response.status_code == 200 and b"No runs in the last 90 days." in response.content
    assert b"overview-data" not in response.content


def _bundle(client, run) -> zipfile.ZipFile:
    response = client.get(f"/runs/{run.pk}/trace.zip")
    assert response.status_code == 200
    return zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))


def test_the_trace_bundle_holds_an_offline_viewer_of_its_steps(viewer_client, automation):
    run = make_run(automation, steps=2, status="failed", status_reason="Save did nothing")
    run.steps.filter(index=1).update(thought="<script>window.pwned = 1</script> & <b>bold</b>", error="</li><h1>x")
    bundle = _bundle(viewer_client, run)
    names = bundle.namelist()
    assert "index.html" in names and "run.json" in names
    html = bundle.read("index.html").decode()
    for shot in [n for n in names if n.startswith("screenshots/")]:
        assert f'src="{shot}"' in html
    assert "&lt;script&gt;window.pwned = 1&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;" in html
    assert "&lt;/li&gt;&lt;h1&gt;x" in html
    assert "<script" not in html and "http:" not in html and "https:" not in html
    assert "default-src 'none'" in html


def test_the_viewer_shows_no_secret_the_run_never_stored(viewer_client, automation):
    from venus_rpa.automations.services import credential_set

    credential_set(workspace=automation.workspace, name="expense-login", domains=["127.0.0.1"],
                   fields={"username": "alice", "password": "S3cret-trace-pw"})
    run = make_run(automation, steps=1, params={"title": "Taxi"})
    run.steps.update(action={"kind": "fill", "target": {"text": "Password"}, "value": "{{credentials.expense-login.password}}"})
    bundle = _bundle(viewer_client, run)
    for name in bundle.namelist():
        assert b"S3cret-trace-pw" not in bundle.read(name)
    assert "{{credentials.expense-login.password}}" in bundle.read("index.html").decode()
