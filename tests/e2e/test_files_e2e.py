"""Files end to end: API → real Celery worker → Chromium → the practice site.

A monthly report is downloaded (kept as a run artifact, listed in the API with its size and
type), its total extracted from the file and posted to a form; a receipt given with the run at
launch is uploaded through the page's file input; a "report" that is really a program is refused
and nothing of it is kept."""

from __future__ import annotations

import base64
import hashlib
import uuid

import httpx
import pytest

from tests.e2e.conftest import wait_for_run
from tests.e2e.test_runs_end_to_end import api_client

pytestmark = pytest.mark.e2e
TERMINAL = {"succeeded", "failed", "cancelled", "timed_out"}
RECEIPT = b"%PDF-1.4\n% receipt 42.00 EUR\n"


def create(demo, practice_url: str, path: str, steps: list[dict], **extra):
    from venus_rpa.automations.services import automation_create

    slug = f"files-{uuid.uuid4().hex[:8]}"
    automation_create(workspace=demo["workspace"], user=None, slug=slug, name=slug, definition={
        "start_url": practice_url + path, "allowed_domains": ["127.0.0.1"], "steps": steps, **extra})
    return slug


def received(practice_url: str) -> dict:
    return httpx.get(practice_url + "/api/lab/files").json()


def download_report(link: str) -> list[dict]:
    return [{"kind": "download", "name": "Download the report", "target": {"role": "link", "name": link},
             "into": "report"},
            {"kind": "extract", "name": "Read the total", "from_file": "report", "into": "total",
             "pattern": r"Total,,([0-9.]+)"}]


def test_a_report_is_downloaded_its_total_extracted_and_posted_to_a_form(worker, demo, practice_url):
    slug = create(demo, practice_url, "/lab/report", [
        *download_report("Download report (CSV)"),
        {"kind": "goto", "url": "/lab/report/total"},
        {"kind": "fill", "name": "Type the total", "target": "Reported total", "value": "{{steps.total.value}}"},
        {"kind": "click", "target": {"role": "button", "name": "Submit total"}},
        {"kind": "wait_for", "text": "Received total"},
    ], safety={"pre_approved": [["SEND", "submit total"]]})  # the author pre-approves posting the total
    client = api_client(demo["workspace"])
    response = client.post(f"/api/automations/{slug}/runs/", {}, format="json")
    run = wait_for_run(response.json()["id"], statuses=TERMINAL, timeout=120)
    assert run.status == "succeeded", run.status_reason
    assert run.output == {"report": "report-2026-11.csv", "total": "270.75"}
    assert received(practice_url)["totals"] == ["270.75"]
    step = run.steps.get(name="Download the report")
    assert step.grounding["download"]["status"] == "kept" and step.grounding["download"]["type"] == "text"
    (listed,) = client.get(f"/api/runs/{run.pk}/").json()["artifacts"]
    assert (listed["name"], listed["kind"], listed["type"], listed["flag"]) == ("report-2026-11.csv", "file", "text", None)
    assert listed["size"] == step.grounding["download"]["size"] > 0
    body = client.get(listed["url"])
    assert body.status_code == 200 and b"Total,,270.75" in b"".join(body.streaming_content)
    assert run.steps.get(name="Read the total").grounding["file"] == "report-2026-11.csv"


def test_a_file_given_at_launch_is_uploaded_through_the_pages_file_input(worker, demo, practice_url):
    slug = create(demo, practice_url, "/lab/attach", [
        {"kind": "upload", "name": "Attach the receipt", "target": "Receipt", "from_input": "receipt"},
        {"kind": "click", "target": {"role": "button", "name": "Send receipt"}},
        {"kind": "wait_for", "text": "Received"},
    ], safety={"pre_approved": ["SHARE", ["SEND", "send receipt"]]})  # an upload shares a file: reviewed unless pre-approved
    client = api_client(demo["workspace"])
    missing = client.post(f"/api/automations/{slug}/runs/", {}, format="json")
    assert missing.status_code == 400 and "files.receipt" in missing.json()["error"]["fields"]
    body = {"files": {"receipt": {"name": "receipt-42.pdf", "content": base64.b64encode(RECEIPT).decode()}}}
    run = wait_for_run(client.post(f"/api/automations/{slug}/runs/", body, format="json").json()["id"],
                       statuses=TERMINAL, timeout=120)
    assert run.status == "succeeded", run.status_reason
    (got,) = received(practice_url)["attachments"]
    assert got == {"name": "receipt-42.pdf", "size": len(RECEIPT), "sha256": hashlib.sha256(RECEIPT).hexdigest(),
                   "content_type": "application/pdf"}
    assert run.steps.get(name="Attach the receipt").grounding["upload"]["file"] == "receipt-42.pdf"


def test_a_program_posing_as_a_report_is_refused_and_nothing_is_kept(worker, demo, practice_url):
    slug = create(demo, practice_url, "/lab/report", download_report("Download report (tool)"))
    client = api_client(demo["workspace"])
    run = wait_for_run(client.post(f"/api/automations/{slug}/runs/", {}, format="json").json()["id"],
                       statuses=TERMINAL, timeout=120)
    assert run.status == "failed"
    assert "programs are never kept (its bytes are a pe program)" in run.status_reason
    assert not run.artifacts.exists()
    (refused,) = run.steps.get(name="Download the report").grounding["downloads"]
    assert refused["status"] == "refused" and refused["name"] == "report-2026-11.csv" and "ref" not in refused


def link_centre(practice_url: str, name: str) -> tuple[int, int]:
    """Where a link of /lab/report is, in the model's 0-1000 space at the runtime's viewport."""
    from playwright.sync_api import sync_playwright

    from tests.helpers.layout import VIEWPORT, _centre

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport=VIEWPORT)
        page.goto(practice_url + "/lab/report")
        point = _centre(page, page.get_by_role("link", name=name, exact=True))
        browser.close()
    return point


def test_a_download_an_agent_turn_starts_is_kept_and_shown_in_the_trace(worker, demo, practice_url, fake_model):
    from tests.helpers.fake_model import venus

    x, y = link_centre(practice_url, "Download report (CSV)")
    fake_model.script(venus("The report page is open; download the CSV.", f"Click(point=({x}, {y}))"),
                      venus("The report was downloaded.", "Finished(content='downloaded')"))
    slug = create(demo, practice_url, "/lab/report", [
        {"kind": "agent", "name": "Download the report", "goal": "Download the monthly report as CSV", "max_actions": 3}])
    client = api_client(demo["workspace"])
    run = wait_for_run(client.post(f"/api/automations/{slug}/runs/", {}, format="json").json()["id"],
                       statuses=TERMINAL, timeout=120)
    assert run.status == "succeeded", run.status_reason
    assert list(run.artifacts.values_list("name", "kind", "data__type")) == [("report-2026-11.csv", "file", "text")]
    shown = [d for s in run.steps.filter(kind="agent") for d in s.grounding.get("downloads", [])]
    assert [d["name"] for d in shown] == ["report-2026-11.csv"] and shown[0]["status"] == "kept"
