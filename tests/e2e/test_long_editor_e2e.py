"""A long automation in the editor, in real Chromium against daphne: its rows come as one line
each (number, kind, what it does); a line opens into the full row in place, keyboard focus on its
kind; lines move, open rows and lines save together, and the version holds exactly the changes.
Before, a 26th row made the form bigger than Django accepted: Save answered a bare 400 and lost
the work."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.dashboard.test_editor_long import long_definition
from tests.e2e.test_dashboard_e2e import add_step, browser_page, sign_in, web  # noqa: F401

pytestmark = pytest.mark.e2e


def test_a_long_automation_is_edited_line_by_line_and_saved(demo, web, browser_page):  # noqa: F811
    from venus_rpa.automations.models import Automation
    from venus_rpa.automations.services import automation_create

    owner = demo["workspace"].memberships.first().user
    automation = automation_create(workspace=demo["workspace"], user=owner, slug="long", name="Long",
                                   definition=long_definition(4))
    before = automation.current_version.steps
    page = browser_page
    sign_in(page, web)
    page.goto(web + "/automations/long/")
    lines = page.locator("#steps .step-row")
    expect(lines).to_have_count(47)
    assert page.locator("#steps .step-closed").count() == 47
    second = lines.nth(1)
    expect(second).to_contain_text("Amount 0 · Amount ← {{amount}}")

    second.get_by_role("button", name=re.compile("^Edit step: Amount 0")).click()
    opened = page.locator("#steps .step-row").nth(1)
    expect(opened.locator("select.step-kind")).to_be_focused()
    assert "step-closed" not in (opened.get_attribute("class") or "")
    expect(opened.locator("input[name$='-value']")).to_have_value("{{amount}}")
    expect(opened.locator("input[name$='-timeout_s']")).to_have_value("2.5")
    opened.locator("input[name$='-value']").fill("{{amount}} EUR")

    lines.nth(3).locator("button[data-step-move=up]").click()  # the 'select 0' line above 'check 0'
    added = add_step(page, "wait_for")
    added.locator("input[name$='-text']").fill("All done")
    page.fill("input[name=change_note]", "typed currency")
    page.click("button:has-text('Save')")
    expect(page.locator(".flash-success")).to_contain_text("Saved as version 2")

    after = Automation.objects.get(pk=automation.pk).current_version.steps
    assert after[1] == {**before[1], "value": "{{amount}} EUR"}
    assert after[2] == before[3] and after[3] == before[2]
    assert after[4:-1] == before[4:] and after[-1]["kind"] == "wait_for" and after[-1]["text"] == "All done"
