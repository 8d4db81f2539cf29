"""Behaviour of the practice site, driven over HTTP (httpx) and in a real Chromium.

The site runs as a subprocess (`python -m practice`, see the `practice_url` fixture), so
these tests need neither the main project's settings nor a database.
"""

from __future__ import annotations

import datetime as dt
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

import httpx
import pyotp
import pytest

from tests.helpers import chromium
from tests.helpers.servers import ROOT, alerts, free_port

if TYPE_CHECKING:
    from playwright.sync_api import Browser

VALID_DETAILS = {"title": "Client lunch", "amount": "12.5", "date": "2024-03-05", "category": "Meals"}


# --- helpers -------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _empty_store(practice_url: str) -> None:
    """Every test starts with no expenses and numbering back at EXP-0001."""
    httpx.post(f"{practice_url}/api/reset").raise_for_status()


@pytest.fixture
def client(practice_url: str) -> Iterator[httpx.Client]:
    """A cookie-keeping client that does not follow redirects (so tests can assert them)."""
    with httpx.Client(base_url=practice_url, follow_redirects=False, timeout=10) as c:
        yield c


def csrf_token(client: httpx.Client, page: str = "/login") -> str:
    """Load a form page and return the token from its hidden csrfmiddlewaretoken field."""
    html = client.get(page).text
    match = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
    assert match, f"no CSRF field on {page}"
    return match.group(1)


def sign_in(client: httpx.Client, username: str = "demo", password: str = "demo-password",
            next_url: str = "") -> httpx.Response:
    """Post the sign-in form with a valid CSRF token."""
    token = csrf_token(client)
    data = {"csrfmiddlewaretoken": token, "username": username, "password": password, "next": next_url}
    return client.post("/login", data=data)


def post_details(client: httpx.Client, **overrides: str) -> httpx.Response:
    """Post step 1 with valid values, except for the given overrides."""
    token = csrf_token(client, "/expenses/new")
    return client.post("/expenses/new", data={"csrfmiddlewaretoken": token, **VALID_DETAILS, **overrides})


def post_confirm(client: httpx.Client, *, receipt: tuple[str, bytes] | None = ("receipt.pdf", b"%PDF-1.4 x"),
                 confirm: bool = True, notes: str = "") -> httpx.Response:
    """Post step 2 (multipart); receipt=None sends an empty file part like a browser does."""
    # The CSRF cookie is already set by earlier pages; the form field must match it.
    token = client.cookies["csrftoken"]
    data = {"csrfmiddlewaretoken": token, "notes": notes}
    if confirm:
        data["confirm"] = "yes"
    files = {"receipt": receipt} if receipt else {"receipt": ("", b"", "application/octet-stream")}
    return client.post("/expenses/new/confirm", data=data, files=files)


# --- sign-in -------------------------------------------------------------------------


def test_login_page_has_labelled_fields(client: httpx.Client) -> None:
    html = client.get("/login").text
    assert "<h1>Sign in</h1>" in html
    assert '<label for="username">Username</label>' in html
    assert '<label for="password">Password</label>' in html
    assert 'type="password" id="password"' in html
    assert '<button type="submit">Sign in</button>' in html


def test_login_rejects_wrong_password(client: httpx.Client) -> None:
    response = sign_in(client, password="nope")
    assert response.status_code == 200
    assert alerts(response.text) == ["Invalid username or password."]
    assert 'value="demo"' in response.text  # the username is kept
    assert client.get("/expenses").status_code == 302


def test_login_redirects_to_new_expense_by_default(client: httpx.Client) -> None:
    response = sign_in(client)
    assert response.status_code == 302
    assert response.headers["location"] == "/expenses/new"
    assert client.get("/expenses/new").status_code == 200


OTP_SECRET = "VQZ3DYJ7NCMX4LHWT5EKGRAUBP2SIO6F"  # practice/settings.py PRACTICE_2FA_SECRET


def post_code(client: httpx.Client, code: str) -> httpx.Response:
    return client.post("/login/code", data={"csrfmiddlewaretoken": csrf_token(client, "/login/code"), "code": code})


def test_the_two_step_account_asks_for_a_one_time_code_after_its_password(client: httpx.Client) -> None:
    response = sign_in(client, "otp-demo", "otp-demo-password", next_url="/expenses")
    assert (response.status_code, response.headers["location"]) == (302, "/login/code")
    assert client.get("/expenses").status_code == 302  # the password alone signs nobody in
    page = client.get("/login/code").text
    assert '<label for="code">One-time code</label>' in page and 'autocomplete="one-time-code"' in page
    response = post_code(client, pyotp.TOTP(OTP_SECRET).now())
    assert (response.status_code, response.headers["location"]) == (302, "/expenses")
    assert "Signed in as <strong>otp-demo</strong>" in client.get("/expenses").text


@pytest.mark.parametrize("code", ["000000", "12345", "abcdef", ""])
def test_a_wrong_or_malformed_code_is_refused(client: httpx.Client, code: str) -> None:
    if code == "000000" and pyotp.TOTP(OTP_SECRET).verify(code, valid_window=1):
        code = "999999"  # one window in a million: the fixed guess happens to be valid
    sign_in(client, "otp-demo", "otp-demo-password")
    response = post_code(client, code)
    assert response.status_code == 200
    assert alerts(response.text) == ["That code is not valid. Enter the current code from your authenticator app."]
    assert client.get("/expenses").status_code == 302


def test_a_code_from_an_old_window_is_refused(client: httpx.Client) -> None:
    sign_in(client, "otp-demo", "otp-demo-password")
    stale = pyotp.TOTP(OTP_SECRET).at(dt.datetime.now() - dt.timedelta(minutes=2))
    if pyotp.TOTP(OTP_SECRET).verify(stale, valid_window=1):
        pytest.skip("the old code coincides with a current one")
    assert post_code(client, stale).status_code == 200
    assert client.get("/expenses").status_code == 302


def test_the_code_page_without_a_password_first_goes_back_to_sign_in(client: httpx.Client) -> None:
    response = client.get("/login/code")
    assert (response.status_code, response.headers["location"]) == (302, "/login")


@pytest.mark.parametrize(
    ("next_url", "expected"),
    [("/expenses", "/expenses"), ("https://evil.example/", "/expenses/new"), ("//evil.example/x", "/expenses/new")],
)
def test_login_follows_only_local_next(client: httpx.Client, next_url: str, expected: str) -> None:
    assert sign_in(client, next_url=next_url).headers["location"] == expected


@pytest.mark.parametrize("path", ["/expenses", "/expenses/new", "/expenses/new/confirm", "/expenses/EXP-0001"])
def test_pages_require_sign_in(client: httpx.Client, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 302
    assert response.headers["location"] == "/login?" + str(httpx.QueryParams({"next": path}))


def test_root_redirects_by_sign_in_state(client: httpx.Client) -> None:
    assert client.get("/").headers["location"] == "/login"
    sign_in(client)
    assert client.get("/").headers["location"] == "/expenses"


def test_sign_out_clears_session(client: httpx.Client) -> None:
    sign_in(client)
    page = client.get("/expenses").text
    assert '<a href="/logout">Sign out</a>' in page and "Acme Expenses" in page
    assert client.get("/logout").headers["location"] == "/login"
    assert client.get("/expenses").status_code == 302


def test_forms_reject_posts_without_csrf_token(client: httpx.Client) -> None:
    client.get("/login")
    response = client.post("/login", data={"username": "demo", "password": "demo-password"})
    assert response.status_code == 403


# --- step 1 validation ---------------------------------------------------------------


def test_step_one_shows_labels_and_placeholder_category(client: httpx.Client) -> None:
    sign_in(client)
    html = client.get("/expenses/new").text
    assert "<h1>New expense report</h1>" in html and "Step 1 of 2: Expense details" in html
    for field, label in [("title", "Title"), ("amount", "Amount"), ("date", "Date"), ("category", "Category")]:
        assert f'<label for="{field}">{label}</label>' in html
    assert 'inputmode="decimal"' in html and 'type="date"' in html
    assert '<option value="" disabled selected>Choose a category</option>' in html
    for option in ["Travel", "Meals", "Lodging", "Office supplies", "Other"]:
        assert f">{option}</option>" in html
    assert '<button type="submit">Next</button>' in html


def test_step_one_reports_every_missing_field(client: httpx.Client) -> None:
    sign_in(client)
    response = post_details(client, title="", amount="", date="", category="")
    assert response.status_code == 200
    assert alerts(response.text) == [
        "Title is required.", "Amount is required.", "Date is required.", "Choose a category.",
    ]


@pytest.mark.parametrize("amount", ["-5", "0", "0.00", "abc", "1e3", "12,50"])
def test_amount_must_be_positive(client: httpx.Client, amount: str) -> None:
    sign_in(client)
    response = post_details(client, amount=amount)
    assert response.status_code == 200
    assert alerts(response.text) == ["Amount must be a positive number."]
    assert f'value="{amount}"' in response.text  # the entered value is kept for correction


def test_amount_allows_at_most_two_decimals(client: httpx.Client) -> None:
    sign_in(client)
    assert alerts(post_details(client, amount="3.141").text) == ["Amount can have at most 2 decimal places."]


@pytest.mark.parametrize(
    ("date", "message"),
    [
        ("tomorrow", "Date cannot be in the future."),  # worked out when the test runs (a suite may cross midnight)
        ("05/03/2024", "Date must be a valid date (YYYY-MM-DD)."),
        ("2024-02-30", "Date must be a valid date (YYYY-MM-DD)."),
    ],
)
def test_date_must_be_valid_and_not_future(client: httpx.Client, date: str, message: str) -> None:
    sign_in(client)
    if date == "tomorrow":
        date = (dt.date.today() + dt.timedelta(days=1)).isoformat()
    assert alerts(post_details(client, date=date).text) == [message]


def test_category_must_come_from_the_list(client: httpx.Client) -> None:
    sign_in(client)
    assert alerts(post_details(client, category="Yachts").text) == ["Choose a valid category."]


# --- step 2 and results --------------------------------------------------------------


def test_confirm_without_draft_goes_back_to_step_one(client: httpx.Client) -> None:
    sign_in(client)
    assert client.get("/expenses/new/confirm").headers["location"] == "/expenses/new"


def test_confirm_page_summarises_step_one(client: httpx.Client) -> None:
    sign_in(client)
    assert post_details(client).headers["location"] == "/expenses/new/confirm"
    html = client.get("/expenses/new/confirm").text
    assert "Step 2 of 2: Receipt and confirmation" in html
    assert "<dd>Client lunch</dd>" in html and "<dd>12.50</dd>" in html
    assert '<label for="receipt">Receipt</label>' in html
    assert 'accept=".pdf,.png,.jpg,.jpeg,.txt"' in html
    assert '<label for="notes">Notes</label>' in html
    assert '<label for="confirm">I confirm this expense is accurate</label>' in html
    assert ">Back</button>" in html and ">Submit expense</button>" in html


def test_confirm_requires_receipt_and_confirmation(client: httpx.Client, practice_url: str) -> None:
    sign_in(client)
    post_details(client)
    response = post_confirm(client, receipt=None, confirm=False, notes="kept")
    assert response.status_code == 200
    assert alerts(response.text) == ["Receipt is required.", "You must confirm this expense is accurate."]
    assert ">kept</textarea>" in response.text
    assert httpx.get(f"{practice_url}/api/expenses").json() == []


@pytest.mark.parametrize(
    ("receipt", "message"),
    [
        (("virus.exe", b"MZ"), "Receipt must be a PDF, PNG, JPG or TXT file."),
        (("big.pdf", b"0" * (5 * 1024 * 1024 + 1)), "Receipt must be 5 MB or smaller."),
        (("empty.txt", b""), "Receipt file is empty."),
    ],
)
def test_receipt_type_and_size_are_checked(client: httpx.Client, receipt: tuple[str, bytes], message: str) -> None:
    sign_in(client)
    post_details(client)
    assert alerts(post_confirm(client, receipt=receipt).text) == [message]


def test_back_keeps_step_one_values(client: httpx.Client) -> None:
    sign_in(client)
    post_details(client)
    html = client.get("/expenses/new").text
    assert 'value="Client lunch"' in html and 'value="12.50"' in html and 'value="2024-03-05"' in html
    assert '<option value="Meals" selected>' in html


def test_expense_flow_appears_in_list(client: httpx.Client, practice_url: str) -> None:
    sign_in(client)
    post_details(client)
    response = post_confirm(client, receipt=("lunch.PNG", b"\x89PNG fake"), notes="With the ACME team")
    assert response.headers["location"] == "/expenses/EXP-0001"

    detail = client.get("/expenses/EXP-0001").text
    assert "<h1>Expense submitted</h1>" in detail
    assert '<p class="reference" id="reference">Reference EXP-0001</p>' in detail

    listing = client.get("/expenses").text
    assert "<caption>Submitted expenses</caption>" in listing
    assert ">EXP-0001</a>" in listing and "<td>Client lunch</td>" in listing and "<td>lunch.PNG</td>" in listing

    [expense] = httpx.get(f"{practice_url}/api/expenses").json()
    assert expense | {"submitted_at": None} == {
        "reference": "EXP-0001", "title": "Client lunch", "amount": "12.50", "date": "2024-03-05",
        "category": "Meals", "receipt_name": "lunch.PNG", "receipt_size": 9, "notes": "With the ACME team",
        "submitted_by": "demo", "submitted_at": None,
    }
    assert dt.datetime.fromisoformat(expense["submitted_at"]).tzinfo is not None
    # The draft is gone: starting again begins at step 1 with empty fields.
    assert client.get("/expenses/new/confirm").headers["location"] == "/expenses/new"


def test_references_count_up_and_reset_clears(client: httpx.Client, practice_url: str) -> None:
    sign_in(client)
    for expected in ("EXP-0001", "EXP-0002"):
        post_details(client)
        assert post_confirm(client).headers["location"] == f"/expenses/{expected}"
    assert [e["reference"] for e in httpx.get(f"{practice_url}/api/expenses").json()] == ["EXP-0001", "EXP-0002"]
    assert httpx.get(f"{practice_url}/api/reset").status_code == 405
    httpx.post(f"{practice_url}/api/reset").raise_for_status()
    assert httpx.get(f"{practice_url}/api/expenses").json() == []
    assert "No expenses yet." in client.get("/expenses").text
    assert client.get("/expenses/EXP-0001").status_code == 404


def test_lab_pages_are_public_and_fixed(client: httpx.Client) -> None:
    assert client.get("/lab/ambiguous").text.count(">Save</button>") == 2
    assert ">Help</a>" in client.get("/lab/ambiguous").text
    assert ">Load data</button>" in client.get("/lab/delayed").text
    extract = client.get("/lab/extract").text
    assert "Blue mug" in extract and 'aria-label="Price">$12.50<' in extract


def test_the_invoice_list_is_paginated_with_next_on_every_page_but_the_last(client: httpx.Client) -> None:
    pages = [client.get(f"/lab/records?page={n}").text for n in (1, 2, 3)]
    assert [p.count('class="invoice"') for p in pages] == [5, 5, 2]
    assert [">Next</a>" in p for p in pages] == [True, True, False]
    assert "INV-012" in pages[2] and "Page 3 of 3" in client.get("/lab/records?page=9").text


def test_server_exits_cleanly_on_sigterm() -> None:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "practice", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == f"practice site on http://127.0.0.1:{port}"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()


# --- real browser --------------------------------------------------------------------


browser = chromium.sync_browser  # one Chromium for the module


def test_browser_files_expense_through_the_ui(browser: Browser, practice_url: str) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(base_url=practice_url)
    page = context.new_page()
    try:
        page.goto("/expenses")
        expect(page).to_have_url(re.compile(r"/login\?next=%2Fexpenses$"))
        page.get_by_label("Username").fill("demo")
        page.get_by_label("Password").fill("demo-password")
        page.get_by_role("button", name="Sign in").click()
        expect(page.get_by_role("heading", name="Submitted expenses")).to_be_visible()
        page.get_by_role("link", name="New expense report").click()

        expect(page.get_by_text("Step 1 of 2: Expense details")).to_be_visible()
        page.get_by_label("Title").fill("Taxi to airport")
        page.get_by_label("Amount").fill("-1")
        page.get_by_label("Date").fill("2024-06-01")
        page.get_by_label("Category").select_option("Travel")
        page.get_by_role("button", name="Next").click()
        expect(page.get_by_role("alert")).to_have_text("Amount must be a positive number.")
        page.get_by_label("Amount").fill("42")
        page.get_by_role("button", name="Next").click()

        expect(page.get_by_text("Step 2 of 2: Receipt and confirmation")).to_be_visible()
        page.get_by_role("button", name="Back").click()
        expect(page.get_by_label("Title")).to_have_value("Taxi to airport")
        page.get_by_role("button", name="Next").click()
        page.get_by_label("Receipt").set_input_files(
            files=[{"name": "taxi.pdf", "mimeType": "application/pdf", "buffer": b"%PDF-1.4 taxi"}]
        )
        page.get_by_label("Notes").fill("Late flight")
        page.get_by_label("I confirm this expense is accurate").check()
        page.get_by_role("button", name="Submit expense").click()

        expect(page.get_by_role("heading", name="Expense submitted")).to_be_visible()
        expect(page.locator("#reference")).to_have_text("Reference EXP-0001")
        page.goto("/expenses")
        row = page.get_by_role("row").filter(has_text="EXP-0001")
        expect(row).to_contain_text("Taxi to airport")
        expect(row).to_contain_text("42.00")
        expect(row).to_contain_text("taxi.pdf")
        page.get_by_role("link", name="Sign out").click()
        expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    finally:
        context.close()


def test_browser_lab_pages(browser: Browser, practice_url: str) -> None:
    from playwright.sync_api import expect

    page = browser.new_page(base_url=practice_url)
    try:
        page.goto("/lab/ambiguous")
        expect(page.get_by_role("button", name="Save")).to_have_count(2)
        page.get_by_role("region", name="Billing").get_by_role("button", name="Save").click()
        expect(page.get_by_role("status")).to_have_text("Billing saved")

        page.goto("/lab/delayed")
        page.get_by_role("button", name="Load data").click()
        expect(page.get_by_text("Data loaded")).to_be_visible()
        expect(page.get_by_role("table")).to_be_visible()

        page.goto("/lab/extract")
        expect(page.get_by_role("heading", name="Blue mug")).to_be_visible()
        expect(page.get_by_label("Price")).to_have_text("$12.50")
        expect(page.get_by_role("listitem")).to_have_count(3)
    finally:
        page.close()
