"""The editor's Surface box in real Chromium: a target's resource id (an Android locator) is out of
sight on web rows, shown on every row (those added later too) once the surface is android, and
an Android automation saved from the editor keeps it."""

from __future__ import annotations

import re

import pytest

from tests.e2e.test_dashboard_e2e import add_step, browser_page, sign_in, web  # noqa: F401

pytestmark = pytest.mark.e2e


def test_the_resource_id_follows_the_surface_and_is_saved(demo, practice_url, web, browser_page):  # noqa: F811
    from venus_rpa.automations.models import Automation

    page = browser_page
    sign_in(page, web)
    page.click("text=New automation")
    page.fill("input[name=name]", "Notes on a phone")
    page.fill("input[name=slug]", "phone-notes")
    first = page.locator("#steps .step-row").nth(0)
    first.locator("select.step-kind").select_option("click")
    first.locator("summary:has-text('Role, label')").click()
    resource = first.locator("input[name$='-target_resource_id']")
    assert resource.is_hidden()  # a web automation has no resource ids

    page.select_option("select[name=surface]", "android")
    assert resource.is_visible()
    second = add_step(page, "click")  # a row added after the switch comes with the box shown
    second.locator("summary:has-text('Role, label')").click()
    assert second.locator("input[name$='-target_resource_id']").is_visible()
    page.select_option("select[name=surface]", "web")
    assert resource.is_hidden() and second.locator("input[name$='-target_resource_id']").is_hidden()

    page.select_option("select[name=surface]", "android")
    resource.fill("save_profile")
    second.locator("input[name$='-target_text']").fill("Send")
    page.fill("input[name=start_url]", "com.example.notes")
    page.fill("textarea[name=allowed_domains]", "")
    page.select_option("select[name=surface]", "web")
    assert resource.is_visible()  # filled in: never out of sight, whatever the surface
    page.select_option("select[name=surface]", "android")
    page.click("button:has-text('Create automation')")
    page.wait_for_url(re.compile(r"/automations/phone-notes/$"))

    version = Automation.objects.get(workspace=demo["workspace"], slug="phone-notes").current_version
    assert version.surface == "android"
    assert [step["target"] for step in version.steps] == [{"resource_id": "save_profile"}, {"text": "Send"}]
