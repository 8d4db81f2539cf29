"""The dashboard in real Chromium against the running stack: daphne (ASGI, websockets) on the
test database, the real Celery worker, the practice site and the seeded demo workspace.

A person signs in, builds an automation in the editor, launches it from the generated form and
watches the live run page receive its steps over the websocket without reloading.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import wait_for_run
from tests.helpers.servers import free_port, stop_process, wait_http
from tests.helpers.worker import ROOT, log_tail, worker_database_url

pytestmark = pytest.mark.e2e
TERMINAL = {"succeeded", "failed", "cancelled", "timed_out"}


@pytest.fixture(scope="session")
def web(django_db_setup, tmp_path_factory):
    """daphne serving venus_rpa.asgi on a free port, against the test database."""
    port = free_port()
    log_path = tmp_path_factory.mktemp("web") / "daphne.log"
    env = {**os.environ, "DATABASE_URL": worker_database_url(), "PYTHONUNBUFFERED": "1"}
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "venus_rpa.asgi:application"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            wait_http(url + "/healthz", proc=proc, timeout=30)
            yield url
        finally:
            stop_process(proc)
    print(f"daphne log: {log_path}")


@pytest.fixture
def browser_page(monkeypatch):
    from django.conf import settings
    from playwright.sync_api import sync_playwright

    # Sync Playwright keeps an event loop in this thread; the test's own ORM reads are still sync.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=settings.VENUS_CHROMIUM_PATH, headless=True)
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        context.set_default_timeout(15_000)
        page = context.new_page()
        try:
            yield page
        finally:
            context.close()
            browser.close()
            # ORM reads made while Playwright's loop runs keep their connection in that context,
            # out of reach of the test database teardown: close them here.
            from django.db import connections

            connections.close_all()


def sign_in(page, web: str) -> None:
    page.goto(web + "/automations/")
    assert "/login/" in page.url
    page.fill("input[name=username]", "demo")
    page.fill("input[name=password]", "venus-demo")
    page.click("button:has-text('Sign in')")
    page.wait_for_url(web + "/automations/")


def add_step(page, kind: str):
    """Click '+ Add step' (htmx fetches a row) and set its kind; returns the new row."""
    rows = page.locator("#steps .step-row")
    count = rows.count()
    page.click("button:has-text('+ Add step')")
    # A locator wait, not wait_for_function: the dashboard's CSP forbids evaluating strings.
    expect(rows).to_have_count(count + 1, timeout=15_000)
    row = rows.nth(count)
    row.locator("select.step-kind").select_option(kind)
    return row


def build_automation(page, practice_url: str) -> None:
    page.click("text=New automation")
    page.fill("input[name=name]", "Practice expense from the editor")
    page.fill("input[name=slug]", "practice-editor")
    page.fill("input[name=start_url]", practice_url + "/login")
    page.fill("textarea[name=allowed_domains]", "127.0.0.1")

    first = page.locator("#steps .step-row").nth(0)  # a new automation starts with one goto step
    first.locator("select.step-kind").select_option("fill")
    assert first.locator("input[name$='-url']").is_hidden()  # the kind switch hides goto's field
    first.locator("input[name$='-target_text']").fill("Username")
    first.locator("input[name$='-value']").fill("{{credentials.practice-login.username}}")
    row = add_step(page, "fill")
    row.locator("input[name$='-target_text']").fill("Password")
    row.locator("input[name$='-value']").fill("{{credentials.practice-login.password}}")
    row = add_step(page, "wait_for")
    row.locator("input[name$='-text']").fill("Step 1 of 2")
    row = add_step(page, "click")  # added after wait_for on purpose, then moved up
    row.locator("input[name$='-name']").fill("Sign in")
    row.locator("summary:has-text('Role, label')").click()
    row.locator("select[name$='-target_role']").select_option("button")
    row.locator("input[name$='-target_name']").fill("Sign in")
    row.locator("button[data-step-move=up]").click()
    row = add_step(page, "fill")
    row.locator("input[name$='-target_text']").fill("Title")
    row.locator("input[name$='-value']").fill("{{title}}")

    page.click("button:has-text('+ Add parameter')")
    param = page.locator("#param-rows tr").nth(0)
    param.locator("input[name$='-name']").fill("title")
    param.locator("input[name$='-required']").check()
    page.fill("input[name=change_note]", "Built in the e2e test")
    page.click("button:has-text('Create automation')")
    page.wait_for_url(re.compile(r"/automations/practice-editor/$"))
    assert "Created Practice expense from the editor" in page.content()


def test_build_launch_and_watch_a_run_live(worker, demo, practice_url, web, browser_page):
    from venus_rpa.automations.models import Automation
    from venus_rpa.runs.models import Run

    page = browser_page
    sign_in(page, web)
    # Laptops: the whole nav, "Sign out" included, stays on one row inside the window; narrower, it
    # folds into the menu button.
    for width in (1280, 1101):
        page.set_viewport_size({"width": width, "height": 800})
        first, last = (page.locator(sel).bounding_box() for sel in (".nav a >> nth=0", ".nav button:has-text('Sign out')"))
        assert abs(first["y"] + first["height"] / 2 - (last["y"] + last["height"] / 2)) < 8, (width, first, last)
        assert last["x"] + last["width"] <= width, (width, last)
    page.set_viewport_size({"width": 1100, "height": 800})
    menu = page.get_by_role("button", name="Menu")
    assert menu.is_visible() and not page.locator(".nav").is_visible()
    menu.focus()
    page.keyboard.press("Enter")  # a real button: the keyboard opens it and says so
    expect(page.locator(".nav")).to_be_visible()
    assert menu.get_attribute("aria-expanded") == "true"
    page.set_viewport_size({"width": 1280, "height": 800})
    # The first Tab reaches "Skip to content", which moves the focus past the nav.
    page.reload()
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.textContent") == "Skip to content"
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement.id") == "content"
    build_automation(page, practice_url)
    version = Automation.objects.get(workspace=demo["workspace"], slug="practice-editor").current_version
    assert [s["kind"] for s in version.steps] == ["fill", "fill", "click", "wait_for", "fill"]
    assert version.steps[2]["target"] == {"role": "button", "name": "Sign in"}
    assert version.param_schema["required"] == ["title"]
    assert version.credentials == ["practice-login"]

    page.click("text=Run…")
    page.wait_for_url(re.compile(r"/automations/practice-editor/run/$"))
    page.fill("input[name=param_title]", "")
    page.click("button:has-text('Start run')")
    assert "This parameter is required." in page.locator("#launch-form").inner_text()  # params_validate said so
    page.fill("input[name=param_title]", "Filed from the dashboard")
    page.click("button:has-text('Start run')")
    page.wait_for_url(re.compile(r"/runs/\d+/$"))
    run_id = int(page.url.rstrip("/").rsplit("/", 1)[1])

    page.evaluate("window.__sameDocument = 'yes'")
    page.wait_for_selector("#live-indicator[data-state=open], #live-indicator[data-state=done]")
    # The run's own end first (a slow machine gets time; a failed run says why, with the worker's log),
    # then the page must show it without a reload.
    run = wait_for_run(run_id, statuses=TERMINAL, timeout=120)
    assert run.status == "succeeded", (run.status_reason, log_tail(worker))
    page.wait_for_selector("#run-summary[data-status=succeeded]", timeout=30_000)
    # the runner's own "open the start URL" step, then the five of the editor
    expect(page.locator("#steps li.step")).to_have_count(6, timeout=15_000)
    assert run.params == {"title": "Filed from the dashboard"}
    assert page.evaluate("window.__sameDocument") == "yes"  # no reload: the steps came over the socket
    assert page.locator("li.step.step-new").count() >= 1
    assert page.locator("#step-count").inner_text() == "6"
    assert Run.objects.get(pk=run_id).steps.count() == 6
    # targets drawn on the screenshots, and the lightbox opens a large copy
    # (a click: marked on the screen it acted on, not on the page it led to)
    assert page.locator("#step-3 figure[data-shot=before] .mark-box").count() == 1
    assert page.locator("#step-3 figure[data-shot=after] .mark-box").count() == 0
    page.locator("#step-3 figure[data-shot=before]").click()
    assert page.locator("#lightbox[open] img").count() == 1
    page.keyboard.press("Escape")
    assert "demo-password" not in page.content()
