"""The editor's blocks in real Chromium: a repeat row nests the rows up to its end row (indented
as rows are added and moved), and the automation is saved with the block nested."""

from __future__ import annotations

import re

import pytest

from tests.e2e.test_dashboard_e2e import add_step, browser_page, sign_in, web  # noqa: F401

pytestmark = pytest.mark.e2e


def depths(page) -> list[tuple[str, str]]:
    rows = page.locator("#steps .step-row")
    return [(rows.nth(i).get_attribute("data-kind"), rows.nth(i).get_attribute("data-depth"))
            for i in range(rows.count())]


def test_a_repeat_block_is_built_nested_in_the_editor(demo, practice_url, web, browser_page):  # noqa: F811
    from venus_rpa.automations.models import Automation

    page = browser_page
    sign_in(page, web)
    page.click("text=New automation")
    page.fill("input[name=name]", "Every invoice")
    page.fill("input[name=slug]", "every-invoice")
    page.fill("input[name=start_url]", practice_url + "/lab/records")
    page.fill("textarea[name=allowed_domains]", "127.0.0.1")
    first = page.locator("#steps .step-row").nth(0)
    first.locator("select.step-kind").select_option("extract")
    first.locator("summary:has-text('Role, label')").click()
    first.locator("input[name$='-target_css']").fill("li.invoice")
    first.locator("input[name$='-into']").fill("invoices")
    first.locator("input[name$='-all']").check()

    loop = add_step(page, "repeat")
    assert loop.locator("input[name$='-max_iterations']").is_visible()
    assert loop.locator("input[name$='-timeout_s']").is_hidden()  # a block has no timeout of its own
    loop.locator("select[name$='-cond_kind']").select_option("element")
    loop.locator("summary:has-text('Role, label')").click()
    loop.locator("select[name$='-target_role']").select_option("link")
    loop.locator("input[name$='-target_name']").fill("Next")
    loop.locator("input[name$='-negate']").check()
    loop.locator("input[name$='-max_iterations']").fill("5")
    add_step(page, "end")
    click = add_step(page, "click")
    click.locator("input[name$='-target_text']").fill("Next")
    assert depths(page) == [("extract", "0"), ("repeat", "0"), ("end", "0"), ("click", "0")]
    click.locator("button[data-step-move=up]").click()  # into the block
    assert depths(page) == [("extract", "0"), ("repeat", "0"), ("click", "1"), ("end", "0")]
    read = add_step(page, "extract")
    read.locator("summary:has-text('Role, label')").click()
    read.locator("input[name$='-target_css']").fill("li.invoice")
    read.locator("input[name$='-into']").fill("invoices")
    read.locator("input[name$='-all']").check()
    read.locator("input[name$='-append']").check()
    read.locator("button[data-step-move=up]").click()
    assert depths(page)[-2:] == [("extract", "1"), ("end", "0")]

    page.click("button:has-text('Create automation')")
    page.wait_for_url(re.compile(r"/automations/every-invoice/$"))
    steps = Automation.objects.get(workspace=demo["workspace"], slug="every-invoice").current_version.steps
    assert [s["kind"] for s in steps] == ["extract", "repeat"]
    assert steps[1]["until"] == {"element": {"role": "link", "name": "Next"}, "negate": True, "op": "equals",
                                 "to": "", "wait_s": 1.0}
    assert [s["kind"] for s in steps[1]["steps"]] == ["click", "extract"] and steps[1]["max_iterations"] == 5
    # shown again nested, with the value the loop's steps can use
    assert depths(page) == [("extract", "0"), ("repeat", "0"), ("click", "1"), ("extract", "1"), ("end", "0")]
    assert "{{steps.invoices.value}}" in page.locator("#steps .step-row").nth(2).inner_text()
