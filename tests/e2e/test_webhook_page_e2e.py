"""The webhook page, validation wording and the sticky save bar in real Chromium against daphne.

Before: the webhooks page explained nothing about signing and had no copy, rotate, disable,
delete or test event; the launcher showed a raw regex; error summaries showed internal keys and
Python's JSON messages; a credential could be saved without domains; and tabbing through the
editor put the focused field under the sticky save bar.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.test_dashboard_e2e import sign_in, web  # noqa: F401 (fixture)
from tests.helpers.chromium import CHROMIUM, CHROMIUM_ARGS

pytestmark = pytest.mark.e2e
DESKTOP, PHONE = {"width": 1280, "height": 800}, {"width": 390, "height": 844}


@pytest.fixture
def browser(demo, monkeypatch):
    """Chromium for one test, started after the demo workspace exists (its ORM calls then run
    before Playwright's event loop is in this thread)."""
    from playwright.sync_api import sync_playwright

    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # the test's own ORM reads
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()
            from django.db import connections

            connections.close_all()


@pytest.fixture
def shots(tmp_path) -> Path:
    """Where screenshots go: $VENUS_TEST_SCREENSHOTS if set (to look at them), else a temp dir."""
    path = Path(os.environ.get("VENUS_TEST_SCREENSHOTS") or tmp_path)
    path.mkdir(parents=True, exist_ok=True)
    return path


def signed_in_page(browser, web, viewport):  # noqa: F811
    context = browser.new_context(viewport=viewport)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=web)
    context.set_default_timeout(15_000)
    page = context.new_page()
    sign_in(page, web)
    return page


def copy_by_keyboard(page, target: str, key: str = "Enter") -> str:
    page.locator(f"[data-copy={target}]").focus()
    page.keyboard.press(key)
    expect(page.locator("#copy-status")).to_have_text("Copied")
    expect(page.locator(f"[data-copy={target}]")).to_have_text("Copied")
    return page.evaluate("navigator.clipboard.readText()")


def run_curl(script: str) -> str:
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=30, check=True).stdout


def no_horizontal_overflow(page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")


def test_a_webhook_is_signed_copied_tested_rotated_disabled_and_deleted(demo, web, browser, shots):  # noqa: F811
    from venus_rpa.runs.models import Run
    from venus_rpa.triggers.models import WebhookTrigger

    page = signed_in_page(browser, web, DESKTOP)
    page.goto(web + "/webhooks/")
    form = page.locator("#webhook-form")
    form.locator("input[name=name]").fill("Expense hook")
    form.locator("select[name=automation]").select_option("demo-expense")
    form.locator("button").click()
    expect(page.locator("h1")).to_contain_text("Webhook Expense hook")
    trigger = WebhookTrigger.objects.get(name="Expense hook")
    url = f"{web}/hooks/{trigger.public_id}/"
    expect(page.locator("#hook-url")).to_have_text(url)
    expect(page.locator("#signing-h + p + ul")).to_contain_text("X-Venus-Signature: sha256=")

    secret = page.locator("#new-secret").inner_text()
    assert copy_by_keyboard(page, "new-secret") == secret
    curl = copy_by_keyboard(page, "curl-example", key="Space")
    assert f"SECRET='{secret}'" in curl and f"URL='{url}'" in curl

    # The example is real: it gets past the signature check. Disabled, the answer is 409 and no run starts.
    page.locator("button:has-text('Disable')").click()
    expect(page.locator("h1 .badge")).to_have_text("disabled")
    assert '"trigger_disabled"' in run_curl(curl)
    page.locator("button:has-text('Enable')").click()
    expect(page.locator("h1 .badge")).to_have_text("enabled")

    # A test event goes through the same checks and, unless asked, starts nothing.
    expect(page.locator("#test-form")).to_contain_text("starts no run unless you tick the box")
    page.locator("#test-form button").click()
    answer = page.locator("#test-answer")
    expect(answer).to_contain_text("Answer: 200")
    expect(answer).to_contain_text("no run was started")
    expect(answer).to_contain_text('"amount": "42.50"')
    assert not Run.objects.filter(automation=demo["automation"]).exists()
    page.locator("#test-form textarea[name=body]").fill('{"title": "Taxi", "amount": "12,50"}')
    page.locator("#test-form button").click()
    expect(answer).to_contain_text("Answer: 400")
    expect(answer).to_contain_text("Must look like 42.50.")
    assert "\\d" not in answer.inner_text()

    # Rotation: the new secret is shown once; the old one (the copied example) is refused.
    page.locator("button:has-text('Rotate secret')").click()
    new_secret = page.locator("#new-secret").inner_text()
    assert new_secret != secret and new_secret.startswith("whsec_")
    assert '"invalid_signature"' in run_curl(curl)
    assert not Run.objects.filter(automation=demo["automation"]).exists()

    # Screenshots without a secret on them, at both sizes.
    page.goto(url.replace("/hooks/", "/webhooks/").replace(trigger.public_id, str(trigger.pk)))
    expect(page.locator("#new-secret")).to_have_count(0)
    page.screenshot(path=str(shots / "webhook-1280x800.png"), full_page=True)
    no_horizontal_overflow(page)
    phone = signed_in_page(browser, web, PHONE)
    for where, name in ((page.url, "webhook"), (web + "/webhooks/", "webhooks")):
        phone.goto(where)
        phone.screenshot(path=str(shots / f"{name}-390x844.png"), full_page=True)
        no_horizontal_overflow(phone)
    phone.context.close()
    page.goto(web + "/webhooks/")
    page.screenshot(path=str(shots / "webhooks-1280x800.png"), full_page=True)
    page.locator("a", has_text="Expense hook").click()

    # Delete, confirmed by keyboard: the URL answers 404 afterwards.
    page.locator(".danger-zone summary").focus()
    page.keyboard.press("Enter")
    page.locator("button:has-text('Delete webhook Expense hook')").focus()
    page.keyboard.press("Enter")
    page.wait_for_url(web + "/webhooks/")
    expect(page.locator(".flash").first).to_contain_text("Runs it started are kept")
    assert not WebhookTrigger.objects.filter(pk=trigger.pk).exists()
    assert '"not_found"' in run_curl(curl)
    page.context.close()


def test_errors_are_in_the_users_words_in_chromium(demo, web, browser):  # noqa: F811
    from venus_rpa.automations.models import Credential

    page = signed_in_page(browser, web, DESKTOP)
    page.goto(web + "/automations/demo-expense/run/")
    page.locator("input[name=param_amount]").fill("12,50")
    page.locator("#launch-form button[type=submit]").click()
    field = page.locator("input[name=param_amount]").locator("xpath=..")
    expect(field.locator(".errors")).to_have_text("Must look like 42.50.")
    assert "\\d" not in page.locator("main").inner_text()

    page.goto(web + "/automations/demo-expense/")
    page.locator("textarea[name=output_schema]").fill("{'reference': 1}")
    page.locator(".savebar button[type=submit]").click()
    summary = page.locator("#error-summary")
    expect(summary).to_contain_text("Fix what is marked below.")  # each error once, at its box
    at_the_box = page.locator("textarea[name=output_schema] + .errors")
    expect(at_the_box).to_contain_text("Line 1, column 2: a key in double quotes is expected here")
    for raw in ("output_schema", "char 1", "line 1 column"):
        assert raw not in summary.inner_text() and raw not in at_the_box.inner_text()

    page.goto(web + "/credentials/")
    form = page.locator("#credential-form")
    form.locator("input[name=name]").fill("erp")
    form.locator("input[name=field_value]").first.fill("robot")
    form.locator("input[name=field_value]").nth(1).fill("s3cret-value")
    form.locator("button.btn-primary").click()
    expect(page.locator("#credential-form label", has_text="Domains").locator(".errors")).to_contain_text(
        "List the domains this credential may be typed on")
    assert not Credential.objects.filter(name="erp").exists()
    page.context.close()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280x800", "390x844"])
def test_tabbing_through_the_editor_never_hides_the_focused_field_under_the_save_bar(demo, web, browser,  # noqa: F811
                                                                                     viewport):
    page = signed_in_page(browser, web, viewport)
    page.goto(web + "/automations/demo-expense/")
    page.locator("input[name=name]").focus()
    checked, last = 0, None
    for _ in range(400):
        page.keyboard.press("Tab")
        state = page.evaluate("""async () => {
            await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
            const el = document.activeElement, bar = document.querySelector('.savebar');
            const r = el.getBoundingClientRect(), b = bar.getBoundingClientRect();
            const top = document.querySelector('.topbar');
            const topBottom = top && getComputedStyle(top).position === 'sticky' ? top.getBoundingClientRect().bottom : 0;
            return {inBar: bar.contains(el), name: el.name || el.id || el.textContent.trim().slice(0, 30),
                    tag: el.tagName, top: r.top, bottom: r.bottom, barTop: b.top, topBottom: topBottom,
                    height: window.innerHeight};
        }""")
        if state["inBar"]:
            break
        if state["tag"] == "BODY":
            continue
        assert state["bottom"] <= state["barTop"] + 0.5, f"{state['name']} is under the save bar: {state}"
        assert state["top"] >= state["topBottom"] - 0.5, f"{state['name']} is under the top bar: {state}"
        checked, last = checked + 1, state
    else:
        raise AssertionError("never reached the save bar")
    assert checked > 20 and last is not None  # the last field before the bar was checked too
    page.context.close()
