"""Runs with items through the API: items as a JSON array, a base64 CSV or a multipart XLSX; bad
items refused at launch with a field error and no run created (malformed, too many rows, too
large, a disguised file, a missing column, a template in a cell); the items list and the results
download (formula injection neutralised) for members only; retrying the failed items alone, once.

What a hostile caller can do, tested here: an editor can upload at most VENUS_ITEMS_FILE_MAX_BYTES
and VENUS_ITEMS_MAX rows, of a CSV or XLSX recognised by its bytes (not its name); a cell that
would be a formula in a spreadsheet comes back with a leading apostrophe; a viewer can read and
download but not start or retry; anyone outside the workspace gets 404, anonymous callers 401."""

from __future__ import annotations

import base64
import csv
import io
import zipfile

import pytest
from openpyxl import Workbook, load_workbook
from rest_framework.test import APIClient

from tests.api.conftest import PRACTICE_URL, assert_error
from venus_rpa.core.demo import demo_expense_items_definition
from venus_rpa.runs.models import ItemStatus, Run, RunItem, RunStatus

ROWS = [{"title": f"INV-{n:04d} Taxi", "amount": f"{n}.50", "date": "2026-11-02", "category": "Travel"}
        for n in range(1, 6)]


def start(slug: str = "items") -> str:
    return f"/api/automations/{slug}/runs/"


def csv_bytes(rows: list[dict], header: list[str] | None = None) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(header or ["Title", "Amount", "Date", "Category"])
    writer.writerows([list(r.values()) for r in rows])
    return out.getvalue().encode()


def xlsx_bytes(rows: list[dict]) -> bytes:
    book = Workbook()
    sheet = book.active
    sheet.append(["Title", "Amount ($)", "Date", "Category"])
    for row in rows:
        sheet.append(list(row.values()))
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


@pytest.fixture
def items_automation(personas, practice_credential):
    from venus_rpa.automations.services import automation_create

    return automation_create(workspace=personas.workspace, user=personas.owner, slug="items", name="Expense sheet",
                             definition=demo_expense_items_definition(PRACTICE_URL))


def refused(client, body, field: str, *, multipart: bool = False) -> str:
    before = Run.objects.count()
    error = assert_error(client.post(start(), body, format="multipart" if multipart else "json"), 400, "invalid")
    assert list(error["fields"]) == [field], error
    assert Run.objects.count() == before and not RunItem.objects.exists()  # never a half-run
    return error["fields"][field][0]


@pytest.mark.django_db
def test_items_as_a_json_array_are_stored_pending_with_the_run(owner, items_automation):
    response = owner.post(start(), {"items": ROWS}, format="json")
    assert response.status_code == 202, response.json()
    run = Run.objects.get(pk=response.json()["id"])
    assert run.item_columns == ["title", "amount", "date", "category"]
    assert [(i.number, i.of, i.status, i.data["title"]) for i in run.items.all()] == [
        (n, 5, "pending", f"INV-{n:04d} Taxi") for n in range(1, 6)]
    body = owner.get(f"/api/runs/{run.pk}/").json()
    assert body["items_summary"]["pending"] == 5 and body["items_summary"]["total"] == 5


@pytest.mark.django_db
def test_a_csv_in_base64_and_an_xlsx_uploaded_as_a_file_give_the_same_items(owner, items_automation):
    encoded = base64.b64encode(csv_bytes(ROWS)).decode()
    first = owner.post(start(), {"items_file": encoded}, format="json")
    assert first.status_code == 202, first.json()
    upload = io.BytesIO(xlsx_bytes(ROWS))
    upload.name = "expenses.xlsx"
    second = owner.post(start(), {"items_file": upload, "params": "{}"}, format="multipart")
    assert second.status_code == 202, second.json()
    one, two = (list(Run.objects.get(pk=r.json()["id"]).items.values_list("data", flat=True)) for r in (first, second))
    assert one == two == ROWS


@pytest.mark.django_db
def test_a_run_of_an_items_automation_needs_items_and_others_take_none(owner, items_automation, automation):
    assert "needs items" in refused(owner, {}, "items")
    error = assert_error(owner.post("/api/automations/demo-expense/runs/", {"items": ROWS}, format="json"), 400)
    assert error["fields"] == {"items": ["This automation takes no items."]}


@pytest.mark.django_db
def test_malformed_and_disguised_files_are_field_errors(owner, items_automation):
    def file(data: bytes) -> dict:
        return {"items_file": base64.b64encode(data).decode()}

    assert "malformed" in refused(owner, file(b'Title,Amount,Date,Category\n"INV-1,"2.00\n'), "items_file")
    assert "PDF" in refused(owner, file(b"%PDF-1.7\n..."), "items_file")
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("content.xml", "<x/>")
    assert "not an XLSX workbook" in refused(owner, file(archive.getvalue()), "items_file")
    assert "not UTF-8" in refused(owner, file("Title\nCafé".encode("latin-1")), "items_file")
    assert "more cells than the header" in refused(owner, file(b"Title,Amount,Date,Category\na,1,2,3,4\n"), "items_file")
    assert "no rows" in refused(owner, file(b"Title,Amount,Date,Category\n"), "items_file")
    assert "not valid base64" in refused(owner, {"items_file": "%%%"}, "items_file").lower()


@pytest.mark.django_db
def test_rows_and_size_are_capped(owner, items_automation, settings):
    settings.VENUS_ITEMS_MAX = 3
    assert "more than 3 rows" in refused(owner, {"items_file": base64.b64encode(csv_bytes(ROWS)).decode()},
                                         "items_file")
    assert "More than 3 items" in refused(owner, {"items": ROWS}, "items")
    settings.VENUS_ITEMS_MAX, settings.VENUS_ITEMS_FILE_MAX_BYTES = 1000, 100
    upload = io.BytesIO(csv_bytes(ROWS))
    upload.name = "big.csv"
    assert "at most 100" in refused(owner, {"items_file": upload}, "items_file", multipart=True)


@pytest.mark.django_db
def test_a_missing_column_and_a_template_in_a_cell_are_refused(owner, items_automation):
    no_date = [{k: v for k, v in row.items() if k != "date"} for row in ROWS]
    assert "Missing column(s) date" in refused(owner, {"items": no_date}, "items")
    smuggled = [{**ROWS[0], "title": "{{credentials.practice-login.password}}"}]
    assert "may not contain" in refused(owner, {"items": smuggled}, "items")
    assert "not a usable field name" in refused(owner, {"items": [{"1st": "x"}]}, "items")


@pytest.mark.django_db
def test_a_viewer_cannot_start_and_an_outsider_cannot_see_the_automation(viewer, outsider, items_automation):
    assert_error(viewer.post(start(), {"items": ROWS}, format="json"), 403)
    assert_error(outsider.post(start(), {"items": ROWS}, format="json"), 404)
    assert not Run.objects.exists()


def finished_run(items_automation, personas, statuses: list[str]) -> Run:
    from venus_rpa.runs.items import ItemsInput
    from venus_rpa.runs.services import run_start

    rows = [{**ROWS[n % 5], "title": f"INV-{n + 1:04d} Taxi"} for n in range(len(statuses))]
    run = run_start(automation=items_automation, params={}, user=personas.owner, items=ItemsInput(array=rows))
    for number, status in enumerate(statuses, start=1):
        RunItem.objects.filter(run=run, number=number).update(
            status=status, error="Amount must be a positive number." if status == "failed" else "",
            output={"reference": f"EXP-{number:04d}"} if status == "succeeded" else {})
    Run.objects.filter(pk=run.pk).update(status=RunStatus.FAILED, status_reason="1 of 4 item(s) failed")
    run.refresh_from_db()
    return run


@pytest.mark.django_db
def test_items_list_and_downloads_are_for_members_only(owner, viewer, outsider, items_automation, personas):
    run = finished_run(items_automation, personas, ["succeeded", "failed", "skipped", "pending"])
    body = viewer.get(f"/api/runs/{run.pk}/items/").json()
    assert body["summary"] == {"pending": 1, "running": 0, "succeeded": 1, "failed": 1, "skipped": 1, "total": 4,
                               "retried": 0}
    assert [i["status"] for i in body["items"]] == ["succeeded", "failed", "skipped", "pending"]
    assert body["items"][0]["output"] == {"reference": "EXP-0001"}
    for url in (f"/api/runs/{run.pk}/items/", f"/api/runs/{run.pk}/items.csv", f"/api/runs/{run.pk}/items.xlsx"):
        assert_error(outsider.get(url), 404)
        assert_error(APIClient().get(url), 401)
    assert_error(viewer.get(f"/api/runs/{run.pk}/items.pdf"), 404)
    assert viewer.get(f"/api/runs/{run.pk}/items.csv").status_code == 200


@pytest.mark.django_db
def test_the_downloads_neutralise_formulas(owner, items_automation, personas):
    run = finished_run(items_automation, personas, ["succeeded", "failed"])
    hostile = ["=HYPERLINK(\"http://evil.example\",\"x\")", "+1+1", "-2+3", "@SUM(A1)"]
    RunItem.objects.filter(run=run, number=1).update(data={**ROWS[0], "title": hostile[0], "category": hostile[1]},
                                                     output={"reference": hostile[2]})
    RunItem.objects.filter(run=run, number=2).update(error=hostile[3])
    response = owner.get(f"/api/runs/{run.pk}/items.csv")
    assert response["Content-Type"].startswith("text/csv")
    assert 'attachment; filename="run-' in response["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert rows[0] == ["item", "status", "error", "title", "amount", "date", "category", "output.reference"]
    cells = [cell for row in rows for cell in row]
    assert not any(cell.startswith(("=", "+", "-", "@")) for cell in cells)
    assert "'" + hostile[0] in cells and "'" + hostile[3] in cells and "'-2+3" in cells
    book = load_workbook(io.BytesIO(owner.get(f"/api/runs/{run.pk}/items.xlsx").content))
    values = [cell for row in book.active.iter_rows(values_only=True) for cell in row]
    assert "'" + hostile[0] in values and not any(isinstance(v, str) and v.startswith("=") for v in values)
    assert all(cell.data_type == "s" for row in book.active.iter_rows() for cell in row if cell.value is not None)


def retry(client, run: Run, body: dict | None = None, **kwargs):
    return client.post(f"/api/runs/{run.pk}/items/retry/", body or {}, format=kwargs.get("format", "json"))


@pytest.mark.django_db
def test_only_failed_and_never_run_items_are_retried_and_only_once(owner, editor, viewer, items_automation, personas):
    run = finished_run(items_automation, personas, ["succeeded", "failed", "skipped", "pending", "failed"])
    assert_error(retry(viewer, run), 403)
    response = retry(editor, run, {"changes": {"2": {"amount": "12.50"}}})
    assert response.status_code == 202, response.json()
    new = Run.objects.get(pk=response.json()["id"])
    assert new.retry_of_id == run.pk and new.status == RunStatus.QUEUED
    retried = list(new.items.order_by("number"))
    assert [(i.number, i.of, i.status) for i in retried] == [(2, 5, "pending"), (4, 5, "pending"), (5, 5, "pending")]
    assert retried[0].data["amount"] == "12.50" and retried[0].retry_of.run_id == run.pk
    assert [i["retried_in"] for i in owner.get(f"/api/runs/{run.pk}/items/").json()["items"]] == [
        None, new.pk, None, new.pk, new.pk]
    assert_error(retry(owner, run), 409)  # nothing left: never the same item twice
    assert_error(owner.post(f"/api/runs/{run.pk}/retry/", {}, format="json"), 409)  # the plain retry too


@pytest.mark.django_db
def test_a_retry_takes_the_fixed_sheet_by_position_and_refuses_a_sheet_of_another_size(owner, items_automation, personas):
    run = finished_run(items_automation, personas, ["succeeded", "failed", "succeeded"])
    fixed = [{**ROWS[n], "title": f"INV-{n + 1:04d} Taxi"} for n in range(3)]
    fixed[1]["amount"] = "99.00"
    shorter = base64.b64encode(csv_bytes(fixed[:2])).decode()
    error = assert_error(retry(owner, run, {"items_file": shorter}), 400)
    assert "It has 2 row(s); the run had 3" in error["fields"]["items_file"][0]
    error = assert_error(retry(owner, run, {"changes": {"1": {"amount": "1.00"}}}), 400)
    assert "not being retried" in error["fields"]["changes"][0]
    assert Run.objects.count() == 1
    upload = io.BytesIO(csv_bytes(fixed))
    upload.name = "fixed.csv"
    response = retry(owner, run, {"items_file": upload}, format="multipart")
    assert response.status_code == 202, response.json()
    (item,) = Run.objects.get(pk=response.json()["id"]).items.all()
    assert item.number == 2 and item.data["amount"] == "99.00"


@pytest.mark.django_db
def test_a_running_run_cannot_be_retried_and_its_running_item_fails_when_it_ends(owner, items_automation, personas):
    from venus_rpa.runs.services import run_finish

    run = finished_run(items_automation, personas, ["succeeded", "running", "pending"])
    Run.objects.filter(pk=run.pk).update(status=RunStatus.RUNNING)
    assert_error(retry(owner, run), 409)
    assert run_finish(run_id=run.pk, status=RunStatus.TIMED_OUT, reason="run exceeded its time limit")
    item = RunItem.objects.get(run=run, number=2)
    assert item.status == ItemStatus.FAILED and "time limit" in item.error


@pytest.mark.django_db
def test_item_fields_and_skip_item_outside_a_for_each_block_are_field_errors(owner):
    from tests.api.test_automations_api import LIST, payload, simple_definition

    outside = payload(simple_definition(steps=[{"kind": "fill", "name": "Type", "target": "Search",
                                                "value": "{{item.title}}"},
                                               {"kind": "skip_item"}]))
    error = assert_error(owner.post(LIST, outside, format="json"), 400)
    assert "outside a for_each block" in error["fields"]["steps.0"][0]
    assert "not inside a for_each block" in error["fields"]["steps.1"][0]
    each = {"kind": "for_each", "steps": [{"kind": "fill", "target": "Search", "value": "{{item.q}}"}]}
    twice = payload(simple_definition(steps=[each, each]), slug="twice")
    error = assert_error(owner.post(LIST, twice, format="json"), 400)
    assert "at most one for_each block" in error["fields"]["steps.1"][0]


@pytest.mark.django_db
def test_lanes_are_bounded_web_only_and_refused_around_agent_steps(owner):
    """Lanes (items at once, docs/workflows.md): 1 to 4; a browser's only; not with an agent step."""
    from tests.api.test_automations_api import LIST, payload, simple_definition

    body = [{"kind": "fill", "target": "Search", "value": "{{item.q}}"}]
    for lanes in (0, 5, "many"):
        each = {"kind": "for_each", "lanes": lanes, "steps": body}
        error = assert_error(owner.post(LIST, payload(simple_definition(steps=[each]), slug=f"l{lanes}"),
                                        format="json"), 400)
        assert any("lanes" in where for where in error["fields"]), error
    phone = simple_definition(surface="android", start_url="com.example.notes", allowed_domains=[],
                              steps=[{"kind": "for_each", "lanes": 2, "steps": body}])
    error = assert_error(owner.post(LIST, payload(phone, slug="phone"), format="json"), 400)
    assert error["fields"]["steps.0.lanes"] == [
        "Lanes (items at once) need a browser: this automation runs on Android, where items run one after "
        "another (set lanes to 1)."]
    agent = {"kind": "for_each", "lanes": 3, "steps": [*body, {"kind": "agent", "goal": "File it"}]}
    error = assert_error(owner.post(LIST, payload(simple_definition(steps=[agent]), slug="agent"), format="json"), 400)
    assert "agent steps work on one item at a time" in error["fields"]["steps.0.lanes"][0]
    fine = {"kind": "for_each", "lanes": 4, "steps": body}
    assert owner.post(LIST, payload(simple_definition(steps=[fine]), slug="fine"), format="json").status_code == 201


@pytest.mark.django_db
def test_a_signed_webhook_starts_a_run_with_its_items_and_bad_items_start_nothing(owner, items_automation):
    from tests.triggers.test_webhooks import body_of, post_hook

    hook = owner.post("/api/webhooks/", {"automation": "items", "name": "Sheet drop"}, format="json").json()
    response = post_hook(hook, body_of({"items_file": base64.b64encode(xlsx_bytes(ROWS)).decode()}))
    assert response.status_code == 202, response.json()
    run = Run.objects.get(pk=response.json()["run_id"])
    assert run.trigger == "webhook" and run.params == {}
    assert list(run.items.values_list("data", flat=True)) == ROWS
    bad = post_hook(hook, body_of({"items": [{"title": "no other columns"}]}))
    assert "Missing column(s) amount, category, date" in assert_error(bad, 400)["fields"]["items"][0]
    assert Run.objects.count() == 1


@pytest.mark.django_db
def test_the_command_line_starts_a_run_with_a_sheet_and_refuses_a_bad_one(items_automation, tmp_path):
    from django.core.management import CommandError, call_command

    sheet = tmp_path / "expenses.xlsx"
    sheet.write_bytes(xlsx_bytes(ROWS))
    call_command("run_automation", "items", "--items", str(sheet), stdout=io.StringIO())
    assert Run.objects.get().items.count() == 5
    sheet.write_bytes(b"%PDF-1.4")
    with pytest.raises(CommandError, match="not a CSV or XLSX sheet"):
        call_command("run_automation", "items", "--items", str(sheet), stdout=io.StringIO())
    assert Run.objects.count() == 1
