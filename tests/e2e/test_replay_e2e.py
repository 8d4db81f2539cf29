"""The replay cache end to end: runs started through the API service, executed by the real Celery
worker (Chromium, the safety and CAPTCHA gates, PostgreSQL), the model test double answering at
points measured on the practice site's /lab/replay pages."""

from __future__ import annotations

import httpx
import pytest
from django.test import Client

from tests.e2e.conftest import wait_for_run
from tests.e2e.test_runs_end_to_end import api_client
from tests.helpers.fake_model import venus
from tests.helpers.layout import replay_layout

pytestmark = pytest.mark.e2e
TERMINAL = {"succeeded", "failed", "cancelled", "timed_out"}
EMAIL = "ada@example.com"


@pytest.fixture(scope="module")
def points(practice_url):
    return replay_layout(practice_url, EMAIL)


def definition(practice_url: str, goal: str = f"Send the weekly updates to {EMAIL}") -> dict:
    return {"start_url": practice_url + "/lab/replay", "allowed_domains": ["127.0.0.1"],
            "steps": [{"kind": "agent", "name": "Preferences", "goal": goal, "max_actions": 8}],
            "success_criteria": {"url_contains": "/lab/replay/done", "text_visible": "Preferences saved"}}


def script(fake_model, points, *, button: str = "Save preferences", start: int = 0) -> None:
    turns = [venus("Focus the email field.", click(points["Email"])),
             venus("Type the address.", f"Type(content='{EMAIL}')"),
             venus("Continue.", click(points["Continue"])),
             venus("Save.", click(points[button])),
             venus("Saved.", "Finished(content='saved')")]
    fake_model.script(*turns[start:])


def click(point) -> str:
    return f"Click(point=({point[0]}, {point[1]}))"


def finished(automation):
    from venus_rpa.runs.services import run_start

    run = run_start(automation=automation, params={})
    run = wait_for_run(run.pk, statuses=TERMINAL, timeout=120)
    assert run.status == "succeeded", run.status_reason
    return run


def test_a_verified_run_is_replayed_by_the_next_without_the_model(worker, demo, fake_model, points, practice_url):
    from venus_rpa.automations.models import ReplayPath
    from venus_rpa.automations.services import automation_create

    workspace = demo["workspace"]
    automation = automation_create(workspace=workspace, user=None, slug="newsletter", name="Newsletter",
                                   definition=definition(practice_url))
    script(fake_model, points)
    first = finished(automation)
    assert len(fake_model.requests) == 5
    (cached,) = ReplayPath.objects.filter(version=automation.current_version)
    assert cached.run_id == first.pk and len(cached.turns) == 5

    fake_model.clear()
    second = finished(automation)
    assert fake_model.requests == []
    steps = api_client(workspace).get(f"/api/runs/{second.pk}/").json()["steps"]
    assert [s["replayed"] for s in steps if s["kind"] == "agent"] == [True] * 5
    assert [s["replayed"] for s in steps if s["kind"] != "agent"] == [None]
    owner = workspace.memberships.filter(role="owner").first().user
    browser = Client()
    browser.force_login(owner)
    page = browser.get(f"/runs/{second.pk}/").content.decode()
    assert page.count('data-replay="replayed"') == 5
    saved = httpx.get(practice_url + "/api/lab/replay").json()["saved"]
    assert saved == [EMAIL, EMAIL]

    # The page changes under the automation: replay up to the changed screen, the model from there.
    httpx.post(practice_url + "/api/lab/replay", json={"layout": "renamed"})
    fake_model.clear()
    script(fake_model, points, button="Keep these settings", start=3)
    third = finished(automation)
    assert len(fake_model.requests) == 2
    assert [s.replayed for s in third.steps.filter(kind="agent").order_by("index")] == [True] * 3 + [False] * 2
    page = browser.get(f"/runs/{third.pk}/").content.decode()
    assert page.count('data-replay="replayed"') == 3 and page.count('data-replay="reasoned"') == 2
    assert "controls changed" in page  # why the model was asked, on the first reasoned turn's badge
    cached.refresh_from_db()
    assert cached.run_id == third.pk and cached.turns[3]["anchors"][0]["name"] == "Keep these settings"


def test_a_new_version_and_the_cache_switched_off_are_not_replayed(worker, demo, fake_model, points, practice_url):
    from venus_rpa.automations.models import ReplayPath
    from venus_rpa.automations.services import automation_create, automation_update

    workspace = demo["workspace"]
    automation = automation_create(workspace=workspace, user=None, slug="newsletter-v", name="Newsletter v",
                                   definition=definition(practice_url))
    script(fake_model, points)
    finished(automation)
    old_version = automation.current_version

    automation = automation_update(automation=automation, user=None, definition={"limits": {"max_seconds": 500}})
    assert automation.current_version != old_version
    fake_model.clear()
    script(fake_model, points)
    finished(automation)
    assert len(fake_model.requests) == 5  # the new version's first run reasons every turn
    assert ReplayPath.objects.filter(version=automation.current_version).count() == 1

    client = api_client(workspace)
    answer = client.patch("/api/automations/newsletter-v/", {"replay_cache": False}, format="json")
    assert answer.status_code == 200 and answer.json()["replay_cache"] is False
    assert answer.json()["version"]["number"] == 2  # not part of the definition: no new version
    assert not ReplayPath.objects.filter(version__automation=automation).exists()
    fake_model.clear()
    script(fake_model, points)
    run = finished(automation)
    assert len(fake_model.requests) == 5 and not ReplayPath.objects.filter(version__automation=automation).exists()
    first_turn = run.steps.filter(kind="agent").order_by("index").first()
    assert first_turn.model["replay"] == {"applies": False, "reason": "the replay cache is off for this automation"}
