"""Drag to reorder in the editor, in real Chromium: a row dragged by its grip lands before or after
the row it is dropped on (by the half the pointer is over), a row dropped inside a block is
indented into it, a closed line of a long automation moves the same way, and the saved order is
the one on screen."""

from __future__ import annotations

import re

import pytest

from tests.e2e.test_dashboard_e2e import add_step, browser_page, sign_in, web  # noqa: F401
from tests.e2e.test_editor_blocks_e2e import depths

pytestmark = pytest.mark.e2e


def _gesture(page, source, target, after: bool) -> None:
    target.scroll_into_view_if_needed()
    grip, box = source.locator(".step-grip").bounding_box(), target.bounding_box()
    page.mouse.move(grip["x"] + 3, grip["y"] + 3)
    page.mouse.down()
    page.mouse.move(grip["x"] + 10, grip["y"] - 10, steps=5)
    page.mouse.move(box["x"] + 40, box["y"] + box["height"] * (0.8 if after else 0.2), steps=10)
    page.mouse.up()


def drag(page, source, target, *, after: bool) -> None:
    """A person's drag: press on the grip, move a little (the drag starts), then over the target's
    upper or lower half, release. Playwright's Chromium starts no drag on a page's first
    press-and-move (a harness quirk; a person's first drag works), so a drag that moved nothing
    is made once more."""
    order = lambda: page.locator("#steps .step-row").evaluate_all("rows => rows.map(r => r.id)")  # noqa: E731
    before = order()
    for _ in range(3):
        if order() != before:
            return
        page.wait_for_timeout(300)
        _gesture(page, source, target, after)


def test_rows_are_reordered_by_dragging_and_saved_in_that_order(demo, practice_url, web, browser_page):  # noqa: F811
    from venus_rpa.automations.models import Automation

    page = browser_page
    page.set_viewport_size({"width": 1280, "height": 1800})  # the dragged row and its target both in view
    sign_in(page, web)
    page.click("text=New automation")
    page.fill("input[name=name]", "Dragged")
    page.fill("input[name=slug]", "dragged")
    page.fill("input[name=start_url]", practice_url + "/lab/records")
    rows = page.locator("#steps .step-row")
    rows.nth(0).locator("select.step-kind").select_option("click")
    rows.nth(0).locator("input[name$='-target_text']").fill("First")
    add_step(page, "repeat")
    rows.nth(1).locator("select[name$='-cond_kind']").select_option("text_visible")
    rows.nth(1).locator("input[name$='-cond_text']").fill("Done")
    rows.nth(1).locator("input[name$='-max_iterations']").fill("3")
    add_step(page, "end")
    third = add_step(page, "wait_for")
    third.locator("input[name$='-text']").fill("Ready")
    assert depths(page) == [("click", "0"), ("repeat", "0"), ("end", "0"), ("wait_for", "0")]

    drag(page, rows.nth(3), rows.nth(0), after=False)  # the wait to the top
    assert depths(page) == [("wait_for", "0"), ("click", "0"), ("repeat", "0"), ("end", "0")]
    drag(page, rows.nth(1), rows.nth(2), after=True)  # the click into the block
    assert depths(page) == [("wait_for", "0"), ("repeat", "0"), ("click", "1"), ("end", "0")]
    assert page.locator(".step-row.dragging, .step-row.drop-before, .step-row.drop-after").count() == 0

    page.click("button:has-text('Create automation')")
    page.wait_for_url(re.compile(r"/automations/dragged/$"))
    steps = Automation.objects.get(workspace=demo["workspace"], slug="dragged").current_version.steps
    assert [s["kind"] for s in steps] == ["wait_for", "repeat"]
    assert [(s["kind"], s["target"]) for s in steps[1]["steps"]] == [("click", {"text": "First"})]


def test_a_closed_line_of_a_long_automation_is_dragged_too(demo, practice_url, web, browser_page):  # noqa: F811
    from venus_rpa.automations.models import Automation
    from venus_rpa.automations.services import automation_create

    automation_create(workspace=demo["workspace"], user=None, slug="long-drag", name="Long drag", definition={
        "start_url": practice_url + "/", "allowed_domains": ["127.0.0.1"],
        "steps": [{"kind": "wait_for", "text": f"Row {n}"} for n in range(30)]})
    page = browser_page
    sign_in(page, web)
    page.goto(web + "/automations/long-drag/")
    lines = page.locator("#steps .step-row.step-closed")
    assert lines.count() == 30
    drag(page, lines.nth(5), lines.nth(0), after=False)
    assert "Row 5" in lines.nth(0).text_content() and "Row 0" in lines.nth(1).text_content()
    page.click("button:has-text('Save')")
    page.wait_for_selector("text=Saved as version 2")
    steps = Automation.objects.get(workspace=demo["workspace"], slug="long-drag").current_version.steps
    assert [s["text"] for s in steps[:7]] == ["Row 5", "Row 0", "Row 1", "Row 2", "Row 3", "Row 4", "Row 6"]
    assert len(steps) == 30
