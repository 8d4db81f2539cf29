"""Members, roles and API tokens in real Chromium against daphne: add a member, change a role,
the last owner's refusal, a token created, copied, used against the live REST API, revoked
(then 401); a viewer's and a forged (no CSRF token) post refused; both screen sizes looked at."""

from __future__ import annotations

import re

import httpx
import pytest
from playwright.sync_api import expect

from tests.e2e.test_dashboard_e2e import web  # noqa: F401 (fixture)
from tests.e2e.test_webhook_page_e2e import (  # noqa: F401 (fixtures)
    DESKTOP, PHONE, browser, no_horizontal_overflow, shots, signed_in_page,
)

pytestmark = pytest.mark.e2e


@pytest.fixture
def bob(demo):
    """A second account, not yet in the demo workspace (committed: daphne sees it)."""
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user(username="bob", email="bob@example.com", password="bob-password-1")


def _api(web: str, raw: str) -> httpx.Response:  # noqa: F811
    return httpx.get(web + "/api/workspace/", headers={"Authorization": f"Bearer {raw}"}, timeout=10)


def _csrf(page) -> str:
    return page.locator("input[name=csrfmiddlewaretoken]").first.get_attribute("value")


def test_an_owner_manages_members_and_a_token_works_until_revoked(demo, bob, web, browser, shots):  # noqa: F811
    from venus_rpa.accounts.models import ApiToken, Membership
    from venus_rpa.audit.models import AuditAction, AuditEvent

    page = signed_in_page(browser, web, DESKTOP)
    page.goto(web + "/settings/")
    page.get_by_role("link", name="Members").click()
    expect(page.locator("h1")).to_contain_text("Members")

    # Add an existing account by e-mail.
    form = page.locator("#member-form")
    form.locator("input[name=who]").fill("bob@example.com")
    form.locator("select[name=role]").select_option("editor")
    form.locator("button").click()
    expect(page.locator(".flash-success")).to_contain_text("bob added as editor.")
    row = page.locator("tr[data-username=bob]")
    expect(row.locator("select[name=role]")).to_have_value("editor")
    membership = Membership.objects.get(workspace=demo["workspace"], user=bob)

    # Change the role in place (htmx swaps the section).
    row.locator("select[name=role]").select_option("viewer")
    row.locator("button", has_text="Change").click()
    expect(page.locator("#members [role=status]")).to_have_text("bob is now viewer.")
    membership.refresh_from_db()
    assert membership.role == "viewer"

    # The only owner cannot demote themselves: the reason is shown by their row, nothing changes.
    me = page.locator("tr[data-username=demo]")
    me.locator("select[name=role]").select_option("editor")
    me.locator("button", has_text="Change").click()
    expect(page.locator("tr[data-username=demo] [role=alert]")).to_contain_text(
        "demo is the workspace's last owner: make someone else an owner first.")
    assert Membership.objects.get(workspace=demo["workspace"], user__username="demo").role == "owner"
    page.screenshot(path=str(shots / "s25-team-last-owner-1280x800.png"), full_page=True)
    expect(me.get_by_text("Remove…")).to_have_count(0)
    page.goto(web + "/settings/members/")
    page.screenshot(path=str(shots / "s25-team-members-1280x800.png"), full_page=True)
    no_horizontal_overflow(page)

    # A token: shown once, copied with the button, used against the live API.
    page.get_by_role("link", name="API tokens").click()
    page.locator("#token-form input[name=name]").fill("nightly report")
    page.locator("#token-form select[name=expires]").select_option("90")
    page.locator("#token-form button").click()
    raw = page.locator("#new-token").inner_text()
    assert re.fullmatch(r"vrpa_[A-Za-z0-9_-]{43}", raw)
    page.locator("[data-copy=new-token]").click()
    expect(page.locator("#copy-status")).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == raw
    answer = _api(web, raw)
    assert answer.status_code == 200 and answer.json()["slug"] == "demo"

    # Never again: a reload shows the prefix only (and the page screenshotted holds no secret).
    page.goto(web + "/settings/tokens/")
    assert raw not in page.content()
    token = ApiToken.objects.get(name="nightly report")
    row = page.locator(f"#token-{token.pk}")
    expect(row).to_contain_text(f"{token.prefix}…")
    expect(row.locator(".badge")).to_have_text("active")
    page.screenshot(path=str(shots / "s25-team-tokens-1280x800.png"), full_page=True)
    no_horizontal_overflow(page)

    # Revoked, the token gets 401 at once.
    row.get_by_role("button", name="Revoke token nightly report").click()
    expect(page.locator(".flash-success")).to_contain_text("revoked: it no longer works.")
    expect(page.locator(f"#token-{token.pk} .badge")).to_have_text("revoked")
    assert _api(web, raw).status_code == 401

    # A forged post (the session cookie, no CSRF token) changes nothing.
    forged = page.request.post(web + f"/settings/members/{membership.pk}/role/", form={"role": "owner"})
    assert forged.status == 403
    membership.refresh_from_db()
    assert membership.role == "viewer"

    # The phone: both pages fit the width.
    phone = signed_in_page(browser, web, PHONE)
    for name in ("members", "tokens"):
        phone.goto(f"{web}/settings/{name}/")
        phone.screenshot(path=str(shots / f"s25-team-{name}-390x844.png"), full_page=True)
        no_horizontal_overflow(phone)
    phone.context.close()

    actions = set(AuditEvent.objects.filter(workspace=demo["workspace"]).values_list("action", flat=True))
    assert {AuditAction.MEMBER_ADDED, AuditAction.MEMBER_ROLE_CHANGED, AuditAction.TOKEN_CREATED,
            AuditAction.TOKEN_REVOKED} <= actions
    page.goto(web + "/audit/")
    expect(page.locator("#audit-events")).to_contain_text("bob: editor → viewer")


def test_a_viewer_in_the_browser_gets_403_from_member_endpoints(demo, bob, web, browser, shots):  # noqa: F811
    from venus_rpa.accounts.models import Membership
    from venus_rpa.accounts.services import membership_add

    membership_add(workspace=demo["workspace"], user=bob, role="viewer")
    owner = Membership.objects.get(workspace=demo["workspace"], user__username="demo")
    context = browser.new_context(viewport=DESKTOP)
    context.set_default_timeout(15_000)
    page = context.new_page()
    page.goto(web + "/settings/members/")
    assert "/login/" in page.url  # anonymous: sent to sign in
    page.fill("input[name=username]", "bob")
    page.fill("input[name=password]", "bob-password-1")
    page.click("button:has-text('Sign in')")
    page.wait_for_url(web + "/settings/members/")
    expect(page.locator("tr[data-username=demo]")).to_contain_text("owner")
    expect(page.locator("#member-form")).to_have_count(0)
    expect(page.locator("#members select")).to_have_count(0)

    # With a valid CSRF token the viewer's posts are still refused: raising themselves, demoting or
    # removing the owner, adding someone.
    page.goto(web + "/settings/tokens/")
    token = _csrf(page)
    mine = Membership.objects.get(workspace=demo["workspace"], user=bob)
    headers = {"X-CSRFToken": token, "Referer": web + "/settings/tokens/"}
    for url, form in ((f"/settings/members/{mine.pk}/role/", {"role": "owner"}),
                      (f"/settings/members/{owner.pk}/role/", {"role": "viewer"}),
                      (f"/settings/members/{owner.pk}/remove/", {}),
                      ("/settings/members/", {"who": "bob", "role": "owner"})):
        assert page.request.post(web + url, form=form, headers=headers).status == 403, url
    # The same token does work where a viewer may act: their own API token.
    created = page.request.post(web + "/settings/tokens/", form={"name": "mine", "expires": "7"}, headers=headers)
    assert created.status == 201
    mine.refresh_from_db()
    owner.refresh_from_db()
    assert mine.role == "viewer" and owner.role == "owner"
    context.close()
