"""Items end to end: API → real Celery worker → Chromium → the practice site's expense form.

A 25-row spreadsheet (XLSX, uploaded as a file) is filed as 25 expenses in ONE run: 3 rows already
filed are skipped by the automation's condition, 2 rows with bad data fail alone (the others go
on); the sheet is fixed and only those 2 are retried, in a new run; no expense is filed twice.
The per-item results download as CSV with each item's status and reference."""

from __future__ import annotations

import csv
import io

import httpx
import pytest
from openpyxl import Workbook

from tests.e2e.conftest import wait_for_run
from tests.e2e.test_runs_end_to_end import api_client

pytestmark = pytest.mark.e2e
TERMINAL = {"succeeded", "failed", "cancelled", "timed_out"}
CATEGORIES = ["Travel", "Meals", "Lodging", "Office supplies", "Other"]
FILED = (4, 12, 21)  # rows filed before the sheet's run
BAD = {8: {"amount": "twelve"}, 17: {"date": "2030-01-15"}}  # rows the form refuses (a future date)


def rows(*, fixed: bool = False) -> list[dict[str, str]]:
    out = []
    for n in range(1, 26):
        row = {"title": f"INV-{n:04d} Client visit", "amount": f"{10 + n}.25", "date": f"2026-11-{n:02d}",
               "category": CATEGORIES[n % len(CATEGORIES)]}
        if n in BAD and not fixed:
            row.update(BAD[n])
        out.append(row)
    return out


def xlsx(sheet: list[dict[str, str]]) -> io.BytesIO:
    book = Workbook()
    page = book.active
    page.append(["Title", "Amount", "Date", "Category"])
    for row in sheet:
        page.append(list(row.values()))
    out = io.BytesIO()
    book.save(out)
    out.seek(0)
    out.name = "expenses.xlsx"
    return out


def filed(practice_url: str) -> list[str]:
    return [e["title"] for e in httpx.get(practice_url + "/api/expenses").json()]


@pytest.fixture
def sheet_automation(demo, practice_url):
    from venus_rpa.automations.services import automation_create
    from venus_rpa.core.demo import demo_expense_items_definition

    return automation_create(workspace=demo["workspace"], user=None, slug="expense-sheet", name="Expense sheet",
                             definition=demo_expense_items_definition(practice_url))


def started(client, url: str, body: dict) -> int:
    response = client.post(url, body, format="multipart")
    assert response.status_code == 202, response.json()
    return response.json()["id"]


def test_a_sheet_is_filed_in_one_run_skips_what_is_filed_and_retries_only_the_failed_rows(
        worker, demo, practice_url, sheet_automation):
    client = api_client(demo["workspace"])
    start = "/api/automations/expense-sheet/runs/"
    first = started(client, start, {"items_file": xlsx([rows()[n - 1] for n in FILED])})
    assert wait_for_run(first, statuses=TERMINAL, timeout=180).status == "succeeded"
    assert sorted(filed(practice_url)) == [rows()[n - 1]["title"] for n in FILED]  # two lanes: in either order

    run = wait_for_run(started(client, start, {"items_file": xlsx(rows())}), statuses=TERMINAL, timeout=900)
    assert run.status == "failed"
    assert run.status_reason.startswith("2 of 25 item(s) failed (item 8 of 25: ")
    items = {item.number: item for item in run.items.all()}
    by_status = {status: sorted(n for n, i in items.items() if i.status == status)
                 for status in ("succeeded", "skipped", "failed", "pending", "running")}
    assert by_status == {"succeeded": sorted(set(range(1, 26)) - set(FILED) - set(BAD)), "skipped": list(FILED),
                         "failed": sorted(BAD), "pending": [], "running": []}
    assert all(items[n].error == "already filed" for n in FILED)
    assert "Step 2 of 2" in items[8].error  # the shop refused the amount: its next page never came
    # The browser refused the future date: the step that sent the form says why (workers/envs/form_send.py).
    assert "(Next page): The page did not send the form: 'Date': Value must be " in items[17].error
    assert all(items[n].output["reference"].startswith("EXP-") for n in by_status["succeeded"])
    titles = filed(practice_url)
    assert len(titles) == 3 + 20 and len(set(titles)) == len(titles)  # every good row once, nothing twice
    # Each item's steps carry its number and screenshots; the run started (and signed in) once.
    assert run.steps.filter(item=8, status="failed").exists()
    assert run.steps.filter(item=2, kind="click").exclude(screenshot="").count() == 2
    assert run.steps.filter(name="Sign in").count() == 1

    retry = client.post(f"/api/runs/{run.pk}/items/retry/", {"items_file": xlsx(rows(fixed=True))},
                        format="multipart")
    assert retry.status_code == 202, retry.json()
    again = wait_for_run(retry.json()["id"], statuses=TERMINAL, timeout=300)
    assert again.status == "succeeded", again.status_reason
    assert sorted(again.items.values_list("number", "status")) == [(8, "succeeded"), (17, "succeeded")]
    titles = filed(practice_url)
    assert len(titles) == 25 and len(set(titles)) == 25  # duplicates: 0
    assert sorted(titles) == sorted(row["title"] for row in rows())
    assert client.post(f"/api/runs/{run.pk}/items/retry/", {}, format="json").status_code == 409

    download = client.get(f"/api/runs/{run.pk}/items.csv")
    table = list(csv.DictReader(io.StringIO(download.content.decode("utf-8-sig"))))
    assert [r["status"] for r in table].count("succeeded") == 20 and len(table) == 25
    assert table[7]["status"] == "failed" and table[7]["amount"] == "twelve"
    assert table[0]["output.reference"].startswith("EXP-")
