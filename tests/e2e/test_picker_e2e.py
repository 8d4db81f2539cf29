"""The step picker end to end: a real Celery worker on the agent queue signs in to the practice
site with the demo automation's own steps, snapshots the page the chosen step acts on and
releases the browser; the API resolves clicks on it; and in the dashboard (real Chromium against
daphne) a person clicks "Pick on page", clicks on the screenshot, and sees the step's target
filled with its match count."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect
from rest_framework.test import APIClient

from tests.e2e.test_dashboard_e2e import browser_page, sign_in, web  # noqa: F401 - fixtures and helper

pytestmark = pytest.mark.e2e
TITLE_STEP = 4  # demo-expense: sign in (3 steps), wait for the form, then "fill Title"


def api(demo) -> APIClient:
    from django.contrib.auth import get_user_model

    from venus_rpa.accounts.services import api_token_create

    user = get_user_model().objects.get(username="demo")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_token_create(workspace=demo['workspace'], user=user, name='picker')[1]}")
    return client


def wait_snapshot(client: APIClient, url: str, timeout: float = 90) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        body = client.get(url).json()
        if body["status"] in ("ready", "failed"):
            return body
        time.sleep(0.3)
    raise AssertionError(f"the picker job is still {body['status']} after {timeout}s")


def center(box: list[float]) -> dict:
    return {"x": box[0] + box[2] / 2, "y": box[1] + box[3] / 2}


def test_a_worker_snapshots_the_page_after_sign_in_and_a_click_resolves_to_a_verified_target(worker, demo):
    client = api(demo)
    base = "/api/automations/demo-expense/picker/"
    started = client.post(base, {"step": TITLE_STEP}, format="json")
    assert started.status_code == 202, started.content
    snapshot = wait_snapshot(client, f"{base}{started.json()['id']}/")
    assert snapshot["status"] == "ready", snapshot["error"]
    assert "/login" not in snapshot["url"] and snapshot["kind"] == "fill"
    title = next(e for e in snapshot["elements"] if e["describe"].startswith('input[text] "Title"'))
    picked = client.post(f"{base}{snapshot['id']}/resolve/", center(title["box"]), format="json").json()
    assert picked["target"] == {"text": "Title"} and picked["count"] == 1, picked
    image = client.get(snapshot["screenshot"])
    assert image.status_code == 200 and image.content[:2] == b"\xff\xd8"
    assert "demo-password" not in str(snapshot)  # the credential typed by the steps before it


def test_a_step_that_fails_before_the_chosen_one_is_named_with_its_reason(worker, demo):
    from venus_rpa.automations.services import automation_update

    automation = demo["automation"]
    steps = [dict(s) for s in automation.current_version.steps]
    steps[0] = {**steps[0], "target": "No such field", "timeout_s": 1}
    automation_update(automation=automation, user=None, name=None, description=None,
                      definition={"steps": steps}, change_note="broken on purpose")
    client = api(demo)
    started = client.post("/api/automations/demo-expense/picker/", {"step": 2}, format="json").json()
    snapshot = wait_snapshot(client, f"/api/automations/demo-expense/picker/{started['id']}/")
    assert snapshot["status"] == "failed" and snapshot["screenshot"] is None
    assert snapshot["error"].startswith("step 1 (Type the username) failed: target 'No such field' not found")


def test_pick_on_page_in_the_editor_fills_the_step_target_and_shows_the_match_count(worker, demo, web, browser_page):  # noqa: F811
    from venus_rpa.picker.models import PickerSnapshot

    page = browser_page
    sign_in(page, web)
    page.goto(web + "/automations/demo-expense/")
    row = page.locator("#steps .step-row").nth(TITLE_STEP)
    row.locator("input[name$='-target_text']").fill("")
    row.locator("button[data-pick]").click()
    expect(page.locator("#picker")).to_be_visible()
    expect(page.locator("#picker-img")).to_be_visible(timeout=90_000)
    snapshot = PickerSnapshot.objects.filter(automation=demo["automation"]).latest("created_at")
    title = next(e for e in snapshot.elements if e["describe"].startswith('input[text] "Title"'))
    shown = page.locator("#picker-img").bounding_box()
    scale = shown["width"] / snapshot.width
    point = center(title["box"])
    page.locator("#picker-img").click(position={"x": point["x"] * scale, "y": point["y"] * scale})
    expect(row.locator("input[name$='-target_text']")).to_have_value("Title")
    expect(page.locator("#picker-count")).to_have_text("1 match")
    expect(row.locator("[data-pick-result]")).to_contain_text("1 match")
    expect(page.locator("#picker-mark")).to_be_visible()
    page.screenshot(path=str(Path(os.environ.get("VENUS_PICKER_SHOT_DIR", "/tmp")) / "step-picker.png"))
    page.locator("#picker-result [data-picker-close]").click()
    expect(page.locator("#picker")).to_be_hidden()
    assert "demo-password" not in page.content()
