"""Items on the dashboard: the launcher's file input (a sheet starts one run with its items; a bad
sheet is an error on the form and no run), the run page's items table with its downloads, and
retrying the failed items with the fixed sheet. A viewer reads and downloads but cannot retry; an
outsider gets 404 for the page and the downloads."""

from __future__ import annotations

import csv
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from venus_rpa.runs.models import Run, RunItem, RunStatus

SHEET = b"Account,Note\nACC-1,first\nACC-2,=cmd|' /C calc'!A0\nACC-3,third\n"


@pytest.fixture
def items_automation(personas):
    from venus_rpa.automations.services import automation_create

    return automation_create(workspace=personas.workspace, user=personas.owner, slug="accounts", name="Accounts",
                             definition={"start_url": "http://127.0.0.1:9/lookup", "allowed_domains": ["127.0.0.1"],
                                         "steps": [{"kind": "for_each", "steps": [
                                             {"kind": "fill", "target": "Account", "value": "{{item.account}}"}]}]})


def launch(client, data: dict):
    return client.post("/automations/accounts/run/", data)


def test_the_launcher_has_a_file_input_and_a_sheet_starts_one_run_with_its_items(editor_client, items_automation):
    html = editor_client.get("/automations/accounts/run/").content.decode()
    assert 'enctype="multipart/form-data"' in html and 'type="file" name="items_file"' in html
    response = launch(editor_client, {"items_file": SimpleUploadedFile("accounts.csv", SHEET, "text/csv")})
    run = Run.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/runs/{run.pk}/"
    assert list(run.items.values_list("number", "data__account")) == [(1, "ACC-1"), (2, "ACC-2"), (3, "ACC-3")]


def test_a_bad_sheet_is_an_error_on_the_form_and_starts_nothing(editor_client, items_automation):
    pdf = SimpleUploadedFile("accounts.csv", b"%PDF-1.4 not a sheet", "text/csv")
    response = launch(editor_client, {"items_file": pdf})
    assert response.status_code == 400 and "not a CSV or XLSX sheet" in response.content.decode()
    response = launch(editor_client, {"items_file": SimpleUploadedFile("a.csv", b"Note\nx\n", "text/csv")})
    assert response.status_code == 400 and "Missing column(s) account" in response.content.decode()
    response = launch(editor_client, {"items_json": "[{\"account\": 1,}]"})
    assert response.status_code == 400 and "line 1, column" in response.content.decode()
    response = launch(editor_client, {})
    assert response.status_code == 400 and "needs items" in response.content.decode()
    assert not Run.objects.exists()


def ended_run(editor_client) -> Run:
    launch(editor_client, {"items_file": SimpleUploadedFile("accounts.csv", SHEET, "text/csv")})
    run = Run.objects.get()
    RunItem.objects.filter(run=run, number=1).update(status="succeeded", output={"reference": "R-1"})
    RunItem.objects.filter(run=run, number=2).update(status="failed", error="Account not found")
    Run.objects.filter(pk=run.pk).update(status=RunStatus.FAILED)
    return run


def test_the_run_page_shows_the_items_and_downloads_them(editor_client, viewer_client, outsider_client,
                                                         items_automation):
    run = ended_run(editor_client)
    html = editor_client.get(f"/runs/{run.pk}/").content.decode()
    assert 'id="run-items"' in html and "3 · 1 succeeded · 0 skipped · 1 failed · 1 not run" in html
    assert "Account not found" in html and "reference: R-1" in html and 'id="items-retry"' in html
    viewer_html = viewer_client.get(f"/runs/{run.pk}/").content.decode()
    assert 'id="run-items"' in viewer_html and 'id="items-retry"' not in viewer_html
    download = viewer_client.get(f"/runs/{run.pk}/items.csv")
    assert download.status_code == 200
    table = list(csv.reader(io.StringIO(download.content.decode("utf-8-sig"))))
    assert table[2][4].startswith("'=cmd")  # the hostile cell comes back as text
    assert viewer_client.get(f"/runs/{run.pk}/items.xlsx").status_code == 200
    for url in (f"/runs/{run.pk}/", f"/runs/{run.pk}/items.csv", f"/runs/{run.pk}/items.xlsx"):
        assert outsider_client.get(url).status_code == 404


def test_retrying_failed_items_with_the_fixed_sheet(editor_client, viewer_client, items_automation):
    run = ended_run(editor_client)
    assert viewer_client.post(f"/runs/{run.pk}/items/retry/").status_code == 403
    fixed = SimpleUploadedFile("fixed.csv", SHEET.replace(b"ACC-2,", b"ACC-22,"), "text/csv")
    response = editor_client.post(f"/runs/{run.pk}/items/retry/", {"items_file": fixed})
    new = Run.objects.exclude(pk=run.pk).get()
    assert response.status_code == 302 and response["Location"] == f"/runs/{new.pk}/"
    assert list(new.items.values_list("number", "data__account")) == [(2, "ACC-22"), (3, "ACC-3")]
    again = editor_client.post(f"/runs/{run.pk}/items/retry/", follow=True)
    assert "no failed items left to retry" in again.content.decode()
    assert Run.objects.count() == 2


def test_a_for_each_block_round_trips_through_the_editor_rows(editor_client, personas):
    from tests.dashboard.test_editor import _as_post
    from venus_rpa.automations.services import automation_create
    from venus_rpa.dashboard.automation_form import AutomationEditor

    definition = {"start_url": "http://127.0.0.1:9/", "allowed_domains": ["127.0.0.1"], "steps": [
        {"kind": "goto", "url": "/login"},
        {"kind": "for_each", "name": "Every row", "stop_on_failure": True, "lanes": 3, "steps": [
            {"kind": "if", "condition": {"text_visible": "{{item.title}}"},
             "steps": [{"kind": "skip_item", "reason": "already filed"}]},
            {"kind": "fill", "target": "Title", "value": "{{item.title}}"}]}]}
    automation = automation_create(workspace=personas.workspace, user=personas.owner, slug="rows", name="Rows",
                                   definition=definition)
    form = AutomationEditor.from_version(automation, automation.current_version)
    assert [(r.kind, r.depth) for r in form.steps] == [
        ("goto", 0), ("for_each", 0), ("if", 1), ("skip_item", 2), ("end", 1), ("fill", 1), ("end", 0)]
    html = editor_client.get("/automations/rows/").content.decode()
    assert 'name="s-' in html and "Stop the run at the first failed item" in html and "Items at once" in html
    response = editor_client.post("/automations/rows/", _as_post(form))
    assert response.status_code == 302, response.content.decode()[:3000]
    automation.refresh_from_db()
    assert automation.current_version.number == 1  # nothing changed: the block came back as it was
    posted = _as_post(form)
    posted["s-s1-lanes"] = "9"  # the block's row: more than 4 is refused on that row, nothing saved
    refused = editor_client.post("/automations/rows/", posted)
    assert refused.status_code == 400 and "Items at once must be 4 or less." in refused.content.decode()
    posted["s-s1-lanes"] = "1"  # back to one lane: items one after another
    assert editor_client.post("/automations/rows/", posted).status_code == 302
    automation.refresh_from_db()
    assert automation.current_version.number == 2 and automation.current_version.definition()["steps"][1].get("lanes", 1) == 1


def test_the_items_table_is_a_live_fragment_for_members_only(editor_client, outsider_client, items_automation):
    run = ended_run(editor_client)
    fragment = editor_client.get(f"/runs/{run.pk}/items/", HTTP_HX_REQUEST="true")
    assert fragment.status_code == 200 and fragment.content.decode().lstrip().startswith('<section class="card" id="run-items">')
    assert editor_client.get(f"/runs/{run.pk}/items/")["Location"] == f"/runs/{run.pk}/"
    assert outsider_client.get(f"/runs/{run.pk}/items/", HTTP_HX_REQUEST="true").status_code == 404
    assert 'data-items-url="/runs/%d/items/"' % run.pk in editor_client.get(f"/runs/{run.pk}/").content.decode()


def test_an_anonymous_visitor_is_sent_to_sign_in(editor_client, items_automation):
    from django.test import Client

    run = ended_run(editor_client)
    for url in (f"/runs/{run.pk}/items.csv", f"/runs/{run.pk}/items/"):
        response = Client().get(url)
        assert response.status_code == 302 and "/login" in response["Location"]
    assert Client().post(f"/runs/{run.pk}/items/retry/").status_code == 302
    assert Run.objects.count() == 1
