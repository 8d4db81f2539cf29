"""Runs list, live page fragments, cancel, answer and the trace bundle."""

from __future__ import annotations

import io
import json
import re
import zipfile
from datetime import timedelta

from django.utils import timezone

from tests.dashboard.conftest import make_run
from venus_rpa.runs.models import Run


def test_the_list_filters_and_paginates(owner_client, automation):
    for _ in range(30):
        make_run(automation, status="succeeded", trigger="api")
    failed = make_run(automation, status="failed", trigger="schedule")
    old = make_run(automation, status="failed", trigger="api")
    Run.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=10))

    page1 = owner_client.get("/runs/").content.decode()
    assert "Page 1 of 2" in page1 and "32 runs" in page1
    page2 = owner_client.get("/runs/?page=2").content.decode()
    assert f'href="/runs/{old.pk}/"' in page2

    only_failed = owner_client.get("/runs/?status=failed").content.decode()
    assert f"#{failed.pk}<" in only_failed and f"#{old.pk}<" in only_failed
    assert only_failed.count('<td><a href="/runs/') == 2
    by_trigger = owner_client.get("/runs/?trigger=schedule").content.decode()
    assert f"#{failed.pk}<" in by_trigger and f"#{old.pk}<" not in by_trigger
    since = (timezone.now() - timedelta(days=2)).date().isoformat()
    recent = owner_client.get(f"/runs/?status=failed&since={since}").content.decode()
    assert f"#{old.pk}<" not in recent and f"#{failed.pk}<" in recent
    until = (timezone.now() - timedelta(days=5)).date().isoformat()
    assert f"#{failed.pk}<" not in owner_client.get(f"/runs/?until={until}").content.decode()
    paged = owner_client.get("/runs/?trigger=api").content.decode()
    assert "trigger=api&amp;page=2" in paged


def test_the_live_page_shows_steps_with_the_target_marked(owner_client, automation):
    run = make_run(automation, steps=2, output={"reference": "EXP-1"}, verdict={"passed": True})
    html = owner_client.get(f"/runs/{run.pk}/").content.decode()
    assert 'id="step-0"' in html and 'id="step-1"' in html
    assert 'data-ws="/ws/runs/%d/"' % run.pk in html
    # box {x:100, y:200, w:128, h:40} on a 1280x800 viewport
    assert "left:7.812%;top:25.0%;width:10.0%;height:5.0%" in html
    assert "EXP-1" in html and "Verdict: passed" in html
    assert "Download trace" in html


def test_step_fragments_after_an_index(owner_client, automation):
    run = make_run(automation, steps=3)
    html = owner_client.get(f"/runs/{run.pk}/steps/?after=0", HTTP_HX_REQUEST="true").content.decode()
    assert 'id="step-0"' not in html and 'id="step-1"' in html and 'id="step-2"' in html
    single = owner_client.get(f"/runs/{run.pk}/steps/2/", HTTP_HX_REQUEST="true").content.decode()
    assert 'id="step-2"' in single and 'id="step-1"' not in single
    # Opened directly (a shared link), a step is the run's page at that step, never a bare fragment.
    direct = owner_client.get(f"/runs/{run.pk}/steps/2/")
    assert direct.status_code == 302 and direct["Location"] == f"/runs/{run.pk}/#step-2"
    assert owner_client.get(f"/runs/{run.pk}/steps/")["Location"] == f"/runs/{run.pk}/"


def test_agent_points_and_captcha_steps_render(owner_client, automation):
    from venus_rpa.runs.models import Step

    run = make_run(automation, status="running")
    Step.objects.create(run=run, index=0, kind="agent", status="succeeded", thought="Click the button",
                        action={"type": "Click"}, started_at=timezone.now(),
                        grounding={"mapped": [{"x": 640, "y": 400}], "viewport": {"width": 1280, "height": 800}})
    Step.objects.create(run=run, index=1, kind="captcha", name="CAPTCHA text via human", status="succeeded",
                        action={"kind": "text", "solver": "human", "attempt": 1, "outcome": "passed"},
                        started_at=timezone.now())
    Step.objects.create(run=run, index=2, kind="click", name="Place order", status="succeeded", started_at=timezone.now(),
                        grounding={"risk": {"category": "PAY", "level": "R3", "decision": "review",
                                            "reason": "Click 'Place order' <script>x()</script> spends money.",
                                            "review": {"decision": "approve", "decided_by": "rita", "waited_ms": 3200}}})
    Step.objects.create(run=run, index=3, kind="fill", name="Title", status="succeeded", started_at=timezone.now(),
                        grounding={"risk": {"category": "NONE", "level": "R1", "decision": "allow", "reason": "Typing is local."}})
    html = owner_client.get(f"/runs/{run.pk}/").content.decode()
    assert 'class="mark mark-point" style="left:50.0%;top:50.0%"' not in html  # no screenshot: no overlay
    assert "Click the button" in html
    assert "CAPTCHA <strong>text</strong> via human, attempt 1: <strong>passed</strong>" in html
    assert ">R3</span> <strong>payment</strong> · asked a person · approved by rita after 3.2 s" in html
    assert "&lt;script&gt;x()&lt;/script&gt;" in html and "<script>x()" not in html  # page text in a reason is escaped
    assert "Gate record" in html  # the raw record stays one click away
    assert "Typing is local." not in html and html.count('class="risk small"') == 1  # harmless steps: no risk line


def test_cancel_from_the_page(editor_client, automation):
    run = make_run(automation, status="queued")
    response = editor_client.post(f"/runs/{run.pk}/cancel/", HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    run.refresh_from_db()
    assert run.status == "cancelled"
    assert 'data-status="cancelled"' in response.content.decode()
    again = editor_client.post(f"/runs/{run.pk}/cancel/", HTTP_HX_REQUEST="true")
    assert again.status_code == 400 and "already ended" in again.content.decode()


def test_answering_the_agents_question(editor_client, automation):
    run = make_run(automation, status="awaiting_user", question="Which cost center?")
    page = editor_client.get(f"/runs/{run.pk}/").content.decode()
    assert "Which cost center?" in page and 'name="answer"' in page
    empty = editor_client.post(f"/runs/{run.pk}/answer/", {"answer": " "}, HTTP_HX_REQUEST="true")
    assert empty.status_code == 400 and "The answer is empty." in empty.content.decode()
    response = editor_client.post(f"/runs/{run.pk}/answer/", {"answer": "CC-42"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    run.refresh_from_db()
    assert run.answer == "CC-42"


def test_the_trace_zip_holds_run_json_and_screenshots(owner_client, automation):
    run = make_run(automation, steps=2, params={"title": "Taxi"}, output={"reference": "EXP-9"})
    response = owner_client.get(f"/runs/{run.pk}/trace.zip")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    assert f'filename="run-{run.pk}-trace.zip"' in response["Content-Disposition"]
    bundle = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    assert bundle.namelist() == ["run.json", "screenshots/step-0000.jpg", "screenshots/step-0001.jpg", "index.html"]
    document = json.loads(bundle.read("run.json"))
    assert document["id"] == run.pk and document["params"] == {"title": "Taxi"}
    assert document["output"] == {"reference": "EXP-9"}
    assert [s["index"] for s in document["steps"]] == [0, 1]
    assert document["steps"][1]["screenshot"] == "screenshots/step-0001.jpg"
    assert document["definition"]["steps"][0]["value"] == "{{title}}"
    assert bundle.read("screenshots/step-0001.jpg") == b"\xff\xd8fake-jpeg-1"


def test_the_live_page_says_which_surface_and_display_a_waiting_run_keeps(owner_client, automation):
    from venus_rpa.automations.models import AutomationVersion
    from venus_rpa.pools import services

    AutomationVersion.objects.filter(pk=automation.current_version.pk).update(surface="desktop")
    run = make_run(automation, status="awaiting_review", started_at=timezone.now())
    services.pool_resource_register(kind="display", key=":99", tags={"host": "desk-1"})
    lease = services.lease_acquire(kind="display", holder="w", run_id=run.pk, ttl_s=60)
    services.lease_park(lease_id=lease.pk, run_id=run.pk, ttl_s=3600)
    html = owner_client.get(f"/runs/{run.pk}/").content.decode()
    assert 'Desktop · display <span class="mono">:99</span> (kept while it waits)' in html
    assert "waiting for a person" in html and "running since" not in html


def test_a_rejected_or_blocked_run_says_so_beside_failed(owner_client, automation):
    rejected = make_run(automation, status="failed")
    rejected.status_reason = "step 4 (Pay): rejected by reviewer rita: Click the button 'Pay' (comment: wrong payee)"
    rejected.save(update_fields=["status_reason"])
    blocked = make_run(automation, status="failed")
    blocked.status_reason = "step 2 (Run): blocked: typing a command that wipes the disk"
    blocked.save(update_fields=["status_reason"])
    plain = make_run(automation, status="failed")
    plain.status_reason = "step 1 (Sign in): no element matches 'Sign in'"
    plain.save(update_fields=["status_reason"])
    html = owner_client.get(f"/runs/{rejected.pk}/").content.decode()
    assert 'class="badge badge-bad run-outcome"' in html and ">rejected</span>" in html
    listing = owner_client.get("/runs/").content.decode()
    assert listing.count("run-outcome") == 2 and ">blocked</span>" in listing



def test_a_branch_decision_and_its_skipped_steps_show_on_the_run_page(owner_client, automation):
    from venus_rpa.runs.models import Step

    run = make_run(automation)
    now = timezone.now()
    Step.objects.create(run=run, index=0, kind="if", name="if text 'Filed' is visible: no, skipped", status="succeeded",
                        action={"kind": "if", "condition": {"text_visible": "Filed"}},
                        grounding={"flow": {"branch": "none", "holds": False}}, started_at=now)
    Step.objects.create(run=run, index=1, kind="click", name="File it", status="skipped", started_at=now,
                        action={"kind": "click", "target": {"text": "File it"}},
                        error="skipped: the condition (text 'Filed' is visible) did not hold")
    html = owner_client.get(f"/runs/{run.pk}/").content.decode()
    assert "if text &#x27;Filed&#x27; is visible: no, skipped" in html
    skipped = html.split('id="step-1"')[0].rsplit("<li", 1)[1] + html.split('id="step-1"')[1].split("</li>")[0]
    assert 'step-skipped' in skipped and 'data-status="skipped"' in skipped and "did not hold" in skipped


def test_a_click_is_marked_on_the_screen_it_acted_on_not_on_the_page_it_led_to(owner_client, outsider_client, automation):
    from django.core.files.base import ContentFile

    from venus_rpa.runs.models import Step

    run = make_run(automation, steps=2)
    step = Step.objects.get(run=run, index=1)
    step.screenshot_before.save(f"run{run.pk}-step1-before.jpg", ContentFile(b"\xff\xd8before-1"), save=True)

    html = owner_client.get(f"/runs/{run.pk}/").content.decode()
    card = html[html.index('id="step-1"'):]
    before = card[card.index('data-shot="before"'):card.index('data-shot="after"')]
    after = card[card.index('data-shot="after"'):card.index("</figure>", card.index('data-shot="after"'))]
    assert step.screenshot_before.url in before and 'class="mark mark-box"' in before
    assert step.screenshot.url in after and "mark-box" not in after  # the page it led to is not marked
    assert "Before: where it acted" in card
    first = html[html.index('id="step-0"'):html.index('id="step-1"')]
    assert 'data-shot="before"' not in first and "mark-box" in first  # no screen before: marked as until now

    # The API names both; the picture is served to the workspace only.
    rows = owner_client.get(f"/api/runs/{run.pk}/").json()["steps"]
    assert rows[1]["screenshot_before"].endswith(step.screenshot_before.url) and rows[0]["screenshot_before"] is None
    assert b"".join(owner_client.get(step.screenshot_before.url).streaming_content) == b"\xff\xd8before-1"
    assert outsider_client.get(step.screenshot_before.url).status_code == 404

    # The trace bundle keeps it beside the step's screenshot, and its viewer marks it.
    bundle = zipfile.ZipFile(io.BytesIO(b"".join(owner_client.get(f"/runs/{run.pk}/trace.zip").streaming_content)))
    assert "screenshots/step-0001-before.jpg" in bundle.namelist()
    assert bundle.read("screenshots/step-0001-before.jpg") == b"\xff\xd8before-1"
    assert json.loads(bundle.read("run.json"))["steps"][1]["screenshot_before"] == "screenshots/step-0001-before.jpg"
    index = bundle.read("index.html").decode()
    viewer_card = index[index.index('id="step-1"'):]
    assert 'src="screenshots/step-0001-before.jpg"' in viewer_card
    assert viewer_card.index("mark-box") < viewer_card.index('data-shot="after"')


def test_a_step_without_a_name_says_what_it_did_in_words_without_the_typed_value(owner_client, automation):
    from django.utils import timezone

    from venus_rpa.runs.models import Step

    run = make_run(automation, status="succeeded")
    for index, (kind, action) in enumerate([
            ("fill", {"kind": "fill", "target": "Password", "value": "hunter2"}),
            ("click", {"kind": "click", "target": {"role": "button", "name": "Sign in"}}),
            ("goto", {"kind": "goto", "url": "http://127.0.0.1:9/expenses"}),
            ("select", {"kind": "select", "target": {"label": "Category"}, "option": "Meals"}),
            ("wait_for", {"kind": "wait_for", "text": "Saved"}),
            ("click", {"kind": "click", "target": {}})]):
        Step.objects.create(run=run, index=index, kind=kind, name="", status="succeeded", action=action,
                            started_at=timezone.now())
    Step.objects.create(run=run, index=6, kind="click", name="Submit the report", status="succeeded",
                        action={"kind": "click", "target": "Submit"}, started_at=timezone.now())
    html = owner_client.get(f"/runs/{run.pk}/").content.decode()
    titles = re.findall(r'<span class="kind kind-\w+">\w+</span>\s*<strong>([^<]*)</strong>', html)
    assert titles == ["Type into “Password”", "Click “Sign in”", "Open http://127.0.0.1:9/expenses",
                      "Choose “Meals” in “Category”", "Wait for “Saved”", "click", "Submit the report"]
    assert "hunter2" not in "".join(titles)
