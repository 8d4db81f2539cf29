"""Practice-site CAPTCHAs in Chromium: the widgets' JavaScript solved as a person would.
Browser tests save a screenshot of each widget to ``/tmp/captcha_<type>.png``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from practice.captcha.generators import CAPTCHA_TYPES

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page


from tests.helpers import chromium
from tests.practice import captcha_site
from tests.practice.captcha_site import INTERACTIVE, hook

site = captcha_site.site  # the practice site with the test hook, one per module


# --- real browser: the widgets' JavaScript ---------------------------------------------


browser = chromium.sync_browser  # one Chromium for the module


@pytest.fixture
def page(browser: Browser, site: str) -> Iterator[Page]:
    context = browser.new_context(base_url=site, viewport={"width": 1000, "height": 900})
    page = context.new_page()
    try:
        yield page
    finally:
        context.close()


def open_widget(page: Page, site: str, path: str) -> dict[str, Any]:
    """Load a page with a widget, wait for its images, return the hook's answer."""
    page.goto(path)
    page.wait_for_function("Array.from(document.images).every(i => i.complete && i.naturalWidth > 0)")
    return hook(site, page.locator('input[name="captcha_challenge"]').input_value())


def centre(page: Page, selector: str) -> tuple[float, float]:
    box = page.locator(selector).bounding_box()
    assert box
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def drag(page: Page, start: tuple[float, float], end: tuple[float, float]) -> None:
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(*end, steps=12)
    page.mouse.up()


def solve_in_browser(page: Page, kind: str, expected: dict[str, Any]) -> None:
    """Do what a person would: drag, click or type using the known answer."""
    solution = expected["solution"]
    answer_field = page.locator('input[name="captcha_answer"]')
    if kind == "slider_puzzle":
        x, y = centre(page, ".slider-handle")
        drag(page, (x, y), (x + solution["gap_x"], y))
        assert abs(int(answer_field.input_value()) - solution["gap_x"]) <= 1
        piece = page.locator(".captcha-piece").bounding_box()
        bg = page.locator(".captcha-bg").bounding_box()
        assert piece and bg and abs(piece["x"] - bg["x"] - solution["gap_x"]) <= 1  # the piece followed
    elif kind == "drag_end":
        bg = page.locator(".captcha-bg").bounding_box()
        assert bg
        tx, ty = solution["target"]
        drag(page, centre(page, ".drag-item"), (bg["x"] + tx, bg["y"] + ty))
        ax, ay = (int(v) for v in answer_field.input_value().split(","))
        assert math.dist((ax, ay), (tx, ty)) <= 2
    elif kind in ("icon_click", "text_click"):
        bg = page.locator(".captcha-bg").bounding_box()
        assert bg
        for x0, y0, x1, y1 in solution["boxes"]:
            page.mouse.click(bg["x"] + (x0 + x1) / 2, bg["y"] + (y0 + y1) / 2)
        assert page.locator(".captcha-marker").count() == 3
    elif kind == "image_rotation":
        travel = page.evaluate("() => { const t = document.querySelector('.slider-track');"
                               " return t.clientWidth - t.querySelector('.slider-handle').offsetWidth; }")
        x, y = centre(page, ".slider-handle")
        drag(page, (x, y), (x + solution["angle"] / 360 * travel, y))
        assert abs(float(answer_field.input_value()) - solution["angle"]) <= 3
        transform = page.locator(".captcha-rotate").evaluate("img => img.style.transform")
        assert transform.startswith("rotate(")
    elif kind == "oneclick_login":
        from playwright.sync_api import expect

        checkbox = page.get_by_role("checkbox", name="I am human")
        checkbox.click()
        expect(page.get_by_text("Verifying…")).to_be_visible()
        expect(checkbox).to_have_attribute("aria-checked", "true")
        assert answer_field.input_value() == expected["answer"]
    elif kind == "ocr":
        page.get_by_label("Enter the characters shown").fill(expected["answer"].lower())
    else:
        page.get_by_role("textbox").fill(expected["answer"])


@pytest.mark.parametrize("kind", CAPTCHA_TYPES)
def test_browser_solves_widget(page: Page, site: str, kind: str) -> None:
    from playwright.sync_api import expect

    expected = open_widget(page, site, f"/captcha/{kind}")
    group = page.get_by_role("group", name="Security check")
    expect(group.get_by_role("button", name="New challenge")).to_be_visible()
    group.screenshot(path=f"/tmp/captcha_{kind}.png")
    solve_in_browser(page, kind, expected)
    group.screenshot(path=f"/tmp/captcha_{kind}_solved.png")
    confirm = {"icon_click": "Confirm", "text_click": "确认"}.get(kind, "Verify")
    page.get_by_role("button", name=confirm, exact=True).click()
    expect(page.get_by_role("status")).to_have_text("Verified")


@pytest.mark.parametrize("kind", INTERACTIVE)
def test_browser_refresh_then_solve(page: Page, site: str, kind: str) -> None:
    from playwright.sync_api import expect

    first = open_widget(page, site, f"/captcha/{kind}")
    old_id = page.locator('input[name="captcha_challenge"]').input_value()
    page.get_by_role("button", name="New challenge").click()
    expect(page.locator('input[name="captcha_challenge"]')).not_to_have_value(old_id)
    page.wait_for_function("Array.from(document.images).every(i => i.complete && i.naturalWidth > 0)")
    expected = hook(site, page.locator('input[name="captcha_challenge"]').input_value())
    assert expected["type"] == first["type"] == kind
    solve_in_browser(page, kind, expected)  # the fresh box is wired too
    page.get_by_role("button", name="Verify").click()
    expect(page.get_by_role("status")).to_have_text("Verified")


def test_browser_wrong_slider_fails_then_login_with_checkbox(page: Page, site: str) -> None:
    from playwright.sync_api import expect

    expected = open_widget(page, site, "/captcha/slider_puzzle")
    x, y = centre(page, ".slider-handle")
    gap = expected["solution"]["gap_x"]
    drag(page, (x, y), (x + (gap - 40 if gap > 110 else gap + 40), y))
    page.get_by_role("button", name="Verify").click()
    expect(page.get_by_role("alert")).to_have_text("Failed")
    expect(page.get_by_role("slider", name="Slide to complete the puzzle")).to_be_visible()

    open_widget(page, site, "/login?captcha=oneclick_login")
    page.get_by_label("Username").fill("demo")
    page.get_by_label("Password").fill("demo-password")
    page.get_by_role("checkbox", name="I am human").click()
    expect(page.get_by_role("checkbox", name="I am human")).to_have_attribute("aria-checked", "true")
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(re.compile(r"/expenses/new$"))
