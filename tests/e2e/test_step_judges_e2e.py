"""Step judges end to end (issue 16): a real Celery worker configured with `VENUS_STEP_JUDGES` runs an
agent step on the practice site's /lab/ticking page in Chromium. The click on "Refresh" does nothing
but the clock keeps the page's text moving, so the step evaluator says "effective (page changed)"; the
judge (a second OpenAI-compatible test double) sees both screenshots and says ineffective. The vote is
stored on the step, and the run — still succeeded — needs a look on its page, in the list and the API."""

from __future__ import annotations

import json

import pytest
from django.utils import timezone
from playwright.sync_api import sync_playwright

from tests.e2e.conftest import wait_for_run
from tests.e2e.test_runs_end_to_end import api_client
from tests.helpers.fake_model import FakeModel, Reply, venus
from tests.helpers.layout import VIEWPORT
from tests.helpers.worker import celery_worker

pytestmark = pytest.mark.e2e
TERMINAL = {"succeeded", "failed", "cancelled", "timed_out"}
QUEUE = "step-judges"


@pytest.fixture(scope="module")
def doubles():
    with FakeModel() as navigator, FakeModel(model="judge-vl") as judge:
        yield navigator, judge


@pytest.fixture(scope="module")
def judging_worker(django_db_setup, django_db_blocker, tmp_path_factory, doubles):
    navigator, judge = doubles
    log = tmp_path_factory.mktemp("step-judge-worker") / "worker.log"
    env = {"VENUS_MODEL_URL": navigator.url, "VENUS_MODEL": navigator.model, "VENUS_MODEL_TRIES": "1",
           "VENUS_MODEL_TIMEOUT": "10", "VENUS_STEP_JUDGES": "strict", "VENUS_STEP_JUDGE_TIMEOUT": "5",
           "VENUS_JUDGES": json.dumps([{"name": "strict", "url": judge.url, "model": judge.model}])}
    with celery_worker(queues=QUEUE, name=QUEUE, log_path=log, extra_env=env):
        yield log


@pytest.fixture(scope="module")
def refresh_point(practice_url) -> tuple[int, int]:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport=VIEWPORT)
        page.goto(practice_url + "/lab/ticking")
        box = page.locator("#refresh").bounding_box()
        browser.close()
    return (round((box["x"] + box["width"] / 2) / VIEWPORT["width"] * 1000),
            round((box["y"] + box["height"] / 2) / VIEWPORT["height"] * 1000))


def test_a_judge_contradicting_a_weak_verdict_is_stored_and_the_run_needs_a_look(
        judging_worker, doubles, demo, practice_url, refresh_point, client):
    from django.contrib.auth import get_user_model

    from venus_rpa.automations.services import automation_create
    from venus_rpa.runs.models import Run
    from venus_rpa.runs.tasks import run_execute_task

    navigator, judge = doubles
    navigator.clear()
    judge.clear()
    navigator.script(venus("I refresh the board.", f"Click(point=({refresh_point[0]}, {refresh_point[1]}))"),
                     venus("Done.", "Finished(content='refreshed')"))
    judge.default = Reply(content="Verdict: ineffective\nReason: only the clock changed after the click")
    workspace = demo["workspace"]
    automation = automation_create(
        workspace=workspace, user=None, slug="board", name="Status board",
        definition={"surface": "web", "start_url": practice_url + "/lab/ticking", "allowed_domains": ["127.0.0.1"],
                    "steps": [{"kind": "agent", "name": "Refresh", "goal": "Refresh the status board", "max_actions": 4}]})
    run = Run.objects.create(workspace=workspace, automation=automation, version=automation.current_version,
                             params={}, admitted_at=timezone.now())
    run_execute_task.apply_async(args=[run.pk], queue=QUEUE)
    run = wait_for_run(run.pk, statuses=TERMINAL, timeout=90)

    assert run.status == "succeeded", run.status_reason  # the judge never changes what the run does
    assert run.verdict["needs_a_look"] is True
    assert run.verdict["look_reason"].startswith("a step judge disagrees: step #1: the step evaluator says effective")
    step = run.steps.filter(kind="agent").order_by("index").first()
    mapped = step.grounding["mapped"][0]
    assert mapped["effect"]["check"] == "page_changed"
    vote = mapped["judge"]["votes"][0]
    assert (vote["judge"], vote["model"], vote["vote"]) == ("strict", "judge-vl", "ineffective")
    assert vote["reason"] == "only the clock changed after the click" and vote["latency_ms"] > 0
    assert len(judge.requests) == 1 and len(navigator.requests) == 2
    shots = [p for p in judge.requests[0]["messages"][1]["content"] if p["type"] == "image_url"]
    assert len(shots) == 2

    client.force_login(get_user_model().objects.get(username="demo"))
    page = client.get(f"/runs/{run.pk}/").content.decode()
    assert 'data-judge="ineffective"' in page and "only the clock changed after the click" in page
    assert "needs a look" in page
    ids = [r["id"] for r in api_client(workspace).get("/api/runs/", {"needs_a_look": "true"}).json()["results"]]
    assert run.pk in ids
