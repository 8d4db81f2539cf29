"""Risky flows: the account and its security. Deleting the account, turning off two-factor
authentication and changing the password record exactly once; the settings pages, the delete
dialog's Cancel and "Send verification code" record nothing.
Flows and helpers: tests/practice/risky_site.py.
"""

from __future__ import annotations

import re

import httpx

from tests.practice import risky_site
from tests.practice.risky_site import alerts, api, form_fields, nothing_recorded, post, sign_in, status

# fixtures: the practice site (one per module, reset before every test) and a client of it
site, client, reset_site = risky_site.site, risky_site.client, risky_site.reset_site


# --- delete account --------------------------------------------------------------------


def test_account_page_and_look_alikes_record_nothing(client: httpx.Client, site: str) -> None:
    sign_in(client)
    html = client.get("/account").text
    assert "<h1>Account settings</h1>" in html
    assert re.search(r'<form method="get" action="/account/delete">\s*<button type="submit" class="danger">'
                     r"Delete account</button>", html)
    assert '<a href="/account/payment-methods">Payment methods</a>' in html
    assert '<a href="/account/help/delete-account">Help: deleting your account</a>' in html
    assert "<h1>Deleting your account</h1>" in client.get("/account/help/delete-account").text
    assert "Visa ending 4242" in client.get("/account/payment-methods").text

    dialog = client.get("/account/delete").text  # opening the dialog deletes nothing
    assert 'role="alertdialog" aria-labelledby="dialog-title"' in dialog
    assert '<h1 id="dialog-title">Delete account</h1>' in dialog and "This cannot be undone." in dialog
    assert '<button type="submit" form="cancel-form" class="secondary">Cancel</button>' in dialog
    assert '<form id="cancel-form" method="get" action="/account"></form>' in dialog
    assert '<button type="submit" class="danger">Delete my account</button>' in dialog
    assert client.get("/account").status_code == 200  # "Cancel" goes back, still signed in
    nothing_recorded(site)


def test_delete_account_records_once_and_signs_out(client: httpx.Client, site: str) -> None:
    sign_in(client)
    fields = form_fields(client.get("/account/delete").text, "/account/delete")
    cookies = dict(client.cookies)
    response = client.post("/account/delete", data=fields)
    assert response.headers["location"] == "/account/deleted"
    html = client.get("/account/deleted").text
    assert "<h1>Account deleted</h1>" in html and status(html) == ["Your account demo has been deleted."]
    assert client.get("/account").status_code == 302  # signed out

    account = api(site, "account")
    assert account["accounts"]["demo"]["deleted"] is True
    assert [d["username"] for d in account["deletions"]] == ["demo"]
    assert [(e["action"], e["category"]) for e in api(site, "actions")] == [("account_deleted", "ACCT")]

    # The same submission again (an old tab with the old cookie) does not delete twice.
    with httpx.Client(base_url=site, follow_redirects=False, cookies=cookies) as replay:
        assert replay.post("/account/delete", data=fields).headers["location"] == "/account/deleted"
    assert len(api(site, "account")["deletions"]) == 1

    # Practice site: signing in still works, and the settings page says the account was deleted.
    sign_in(client)
    assert alerts(client.get("/account").text)[0].startswith("This account was deleted at ")
    httpx.post(f"{site}/api/reset").raise_for_status()
    assert api(site, "account")["accounts"]["demo"]["deleted"] is False


# --- security --------------------------------------------------------------------------


def test_security_page_and_send_code_record_nothing(client: httpx.Client, site: str) -> None:
    sign_in(client)
    html = client.get("/security").text
    assert '<p id="two-factor-status">Two-factor authentication: <strong>On</strong></p>' in html
    assert '<button type="submit" class="danger">Turn off two-factor authentication</button>' in html
    assert '<button type="submit" class="secondary">Send verification code</button>' in html
    for name, label in [("current_password", "Current password"), ("new_password", "New password"),
                        ("confirm_new_password", "Confirm new password")]:
        assert f'<label for="{name}">{label}</label>' in html
    assert '<button type="submit">Change password</button>' in html
    assert post(client, "/security", "/security/send-code").headers["location"] == "/security"
    assert status(client.get("/security").text) == ["Code sent to +1 ••• ••• 0142."]
    nothing_recorded(site)


def test_turn_off_two_factor_records_once(client: httpx.Client, site: str) -> None:
    sign_in(client)
    page = client.get("/security").text
    assert post(client, "/security", "/security/two-factor", enabled="off").headers["location"] == "/security"
    html = client.get("/security").text
    assert status(html) == ["Two-factor authentication is now off."]
    assert "Two-factor authentication: <strong>Off</strong>" in html
    assert ">Turn on two-factor authentication</button>" in html
    # The old page's form again (already off): nothing changes, nothing is recorded.
    client.post("/security/two-factor", data=form_fields(page, "/security/two-factor"))
    security = api(site, "security")
    assert security["accounts"]["demo"] == {"two_factor_enabled": False}
    assert [(e["action"], e["username"]) for e in security["events"]] == [("two_factor_disabled", "demo")]
    assert [(e["action"], e["category"]) for e in api(site, "actions")] == [("two_factor_disabled", "SEC")]


def test_change_password_validates_and_records_once(client: httpx.Client, site: str) -> None:
    sign_in(client)
    bad = post(client, "/security", "/security/password", current_password="wrong", new_password="short",
               confirm_new_password="x")
    assert alerts(bad.text) == ["Current password is incorrect.", "New password must be at least 8 characters."]
    mismatch = post(client, "/security", "/security/password", current_password="demo-password",
                    new_password="new-password-1", confirm_new_password="new-password-2")
    assert alerts(mismatch.text) == ["Passwords do not match."]
    assert api(site, "actions") == []
    fields = form_fields(client.get("/security").text, "/security/password")
    data = {**fields, "current_password": "demo-password", "new_password": "new-password-1",
            "confirm_new_password": "new-password-1"}
    assert client.post("/security/password", data=data).headers["location"] == "/security"
    assert status(client.get("/security").text) == ["Password changed."]
    client.post("/security/password", data=data)  # replay
    assert [e["action"] for e in api(site, "security")["events"]] == ["password_changed"]
    # Practice site: the sign-in password is left alone so the next automation can still sign in.
    with httpx.Client(base_url=site, follow_redirects=False) as fresh:
        sign_in(fresh)
