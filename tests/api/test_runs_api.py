"""Runs API: start (params validated, defaults applied), list with filters, detail with steps, cancel,
roles, workspace isolation and the screenshot media endpoint."""

from __future__ import annotations

import copy
import io

import pytest
from django.core.files.base import ContentFile
from django.utils import timezone
from rest_framework.test import APIClient

from tests.api.conftest import PRACTICE_PASSWORD, PRACTICE_USERNAME, assert_error
from venus_rpa.runs.models import Run, RunStatus, Step, Trigger

DEFAULTS = {
    "title": "Taxi to the airport", "amount": "42.50", "date": "2026-11-30", "category": "Travel",
    "notes": "Filed by Venus RPA",
}


def start(slug: str) -> str:
    return f"/api/automations/{slug}/runs/"


def run_url(run_id: int) -> str:
    return f"/api/runs/{run_id}/"


def cancel_url(run_id: int) -> str:
    return f"/api/runs/{run_id}/cancel/"


def _jpeg() -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (4, 4), (200, 30, 30)).save(buffer, format="JPEG")
    return buffer.getvalue()


@pytest.fixture
def queued_run(automation, personas):
    from venus_rpa.runs.services import run_start

    return run_start(automation=automation, params={}, user=personas.owner)


@pytest.fixture
def other_automation(personas):
    """An automation in the outsider's workspace."""
    from venus_rpa.automations.services import automation_create

    return automation_create(
        workspace=personas.other_workspace, user=personas.outsider, slug="globex-report", name="Globex report",
        definition={"start_url": "https://globex.example.com/", "allowed_domains": ["globex.example.com"],
                    "steps": [{"kind": "press", "key": "Enter"}]},
    )


def make_step(run: Run, index: int, **fields) -> Step:
    values = {"kind": "click", "name": f"Step {index}", "status": "ok", "started_at": timezone.now(),
              "action": {"kind": "click"}, **fields}
    return Step.objects.create(run=run, index=index, **values)


# --- start ---------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_start_run_returns_202_with_a_queued_run_of_the_current_version(owner, automation, personas):
    response = owner.post(start(automation.slug), {"params": {"title": "Lunch with a client", "category": "Meals"}},
                          format="json")

    assert response.status_code == 202, response.json()
    body = response.json()
    assert isinstance(body["id"], int)
    assert body["status"] == "queued"
    assert body["automation"] == "demo-expense"
    assert body["version"] == 1
    assert body["trigger"] == "api"
    run = Run.objects.get(pk=body["id"])
    assert run.status == RunStatus.QUEUED
    assert run.workspace == personas.workspace
    assert run.created_by == personas.owner
    assert run.version == automation.current_version
    assert run.trigger == Trigger.API


@pytest.mark.django_db
def test_start_run_applies_the_schema_defaults(owner, automation):
    response = owner.post(start(automation.slug), {"params": {"title": "Lunch", "amount": "12"}}, format="json")

    assert response.status_code == 202, response.json()
    expected = {**DEFAULTS, "title": "Lunch", "amount": "12"}
    assert response.json()["params"] == expected
    assert Run.objects.get(pk=response.json()["id"]).params == expected


@pytest.mark.django_db
def test_start_run_without_a_body_uses_all_defaults(owner, automation):
    response = owner.post(start(automation.slug), format="json")
    assert response.status_code == 202, response.json()
    assert response.json()["params"] == DEFAULTS


@pytest.mark.django_db
def test_start_run_enqueues_the_run_after_commit(owner, automation, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = owner.post(start(automation.slug), {"params": {}}, format="json")
    assert response.status_code == 202
    # The dispatch (and the live "run changed" event) wait for the commit.
    assert [c.__name__ for c in callbacks].count("runs_dispatch") == 1


@pytest.mark.django_db
@pytest.mark.parametrize(("params", "field"), [
    ({"amount": 42.5}, "params.amount"),              # wrong type
    ({"amount": "forty-two"}, "params.amount"),       # pattern
    ({"date": "30/11/2026"}, "params.date"),          # pattern
    ({"category": "Gadgets"}, "params.category"),     # enum
    ({"title": ""}, "params.title"),                  # minLength
    ({"notes": ["a", "b"]}, "params.notes"),          # wrong type
])
def test_start_run_with_invalid_params_is_a_400_naming_the_param(owner, automation, params, field):
    response = owner.post(start(automation.slug), {"params": params}, format="json")

    error = assert_error(response, 400, "invalid")
    assert field in error["fields"], error["fields"]
    assert not Run.objects.exists()


@pytest.mark.django_db
def test_start_run_with_an_unknown_param_is_a_400(owner, automation):
    response = owner.post(start(automation.slug), {"params": {"title": "Lunch", "tip": "5"}}, format="json")

    error = assert_error(response, 400, "invalid")
    assert "params" in error["fields"]
    assert "tip" in " ".join(error["fields"]["params"])
    assert not Run.objects.exists()


@pytest.mark.django_db
def test_start_run_missing_a_required_param_without_default_is_a_400(owner, personas):
    from venus_rpa.automations.services import automation_create

    automation_create(
        workspace=personas.workspace, user=personas.owner, slug="search", name="Search",
        definition={
            "allowed_domains": ["erp.example.com"],
            "param_schema": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
            "steps": [{"kind": "fill", "target": "Search", "value": "{{query}}"}],
        },
    )
    error = assert_error(owner.post(start("search"), {"params": {}}, format="json"), 400, "invalid")
    assert "params.query" in error["fields"], error["fields"]
    assert not Run.objects.exists()

    assert owner.post(start("search"), {"params": {"query": "invoices"}}, format="json").status_code == 202


@pytest.mark.django_db
def test_start_run_with_params_that_are_not_an_object_is_a_400(owner, automation):
    error = assert_error(owner.post(start(automation.slug), {"params": ["title"]}, format="json"), 400, "invalid")
    assert "params" in error["fields"]


@pytest.mark.django_db
def test_start_run_of_an_unknown_automation_is_404(owner, personas):
    assert_error(owner.post(start("nope"), {"params": {}}, format="json"), 404, "not_found")


@pytest.mark.django_db
def test_run_keeps_the_version_it_started_with_after_the_automation_changes(owner, automation, definition):
    started = owner.post(start(automation.slug), {"params": {}}, format="json").json()
    assert started["version"] == 1

    steps = copy.deepcopy(definition["steps"])
    steps[4]["target"] = "Expense title"
    assert owner.patch(f"/api/automations/{automation.slug}/", {"steps": steps}, format="json").json()["version"][
        "number"] == 2

    assert owner.get(run_url(started["id"])).json()["version"] == 1
    assert Run.objects.get(pk=started["id"]).version.steps[4]["target"] == {"text": "Title"}
    # A new run uses the new version.
    assert owner.post(start(automation.slug), {"params": {}}, format="json").json()["version"] == 2


@pytest.mark.django_db
def test_run_params_are_validated_against_the_current_versions_schema(owner, automation, definition):
    schema = copy.deepcopy(definition["param_schema"])
    schema["properties"]["category"]["enum"].append("Gadgets")
    owner.patch(f"/api/automations/{automation.slug}/", {"param_schema": schema}, format="json")

    response = owner.post(start(automation.slug), {"params": {"category": "Gadgets"}}, format="json")
    assert response.status_code == 202, response.json()
    assert response.json()["version"] == 2


# --- list, detail --------------------------------------------------------------------------------


@pytest.mark.django_db
def test_list_runs_is_paginated_and_newest_first(owner, automation, personas):
    from venus_rpa.runs.services import run_start

    first = run_start(automation=automation, params={}, user=personas.owner)
    second = run_start(automation=automation, params={}, user=personas.owner)

    response = owner.get("/api/runs/")
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 2
    assert [r["id"] for r in body["results"]] == [second.pk, first.pk]
    assert "steps" not in body["results"][0]

    page = owner.get("/api/runs/", {"limit": 1}).json()
    assert page["count"] == 2 and len(page["results"]) == 1 and page["next"]


@pytest.mark.django_db
def test_list_runs_filters_by_status_automation_and_trigger(owner, automation, personas):
    from venus_rpa.automations.services import automation_create
    from venus_rpa.runs.services import run_start

    other = automation_create(workspace=personas.workspace, user=personas.owner, slug="other", name="Other",
                              definition={"steps": [{"kind": "press", "key": "Enter"}], "allowed_domains": ["erp.example.com"]})
    queued = run_start(automation=automation, params={}, user=personas.owner)
    failed = run_start(automation=automation, params={}, user=personas.owner, trigger=Trigger.SCHEDULE)
    Run.objects.filter(pk=failed.pk).update(status=RunStatus.FAILED, status_reason="boom")
    other_run = run_start(automation=other, params={}, user=personas.owner)

    def ids(**query):
        response = owner.get("/api/runs/", query)
        assert response.status_code == 200
        return {r["id"] for r in response.json()["results"]}

    assert ids() == {queued.pk, failed.pk, other_run.pk}
    assert ids(status="failed") == {failed.pk}
    assert ids(status="queued") == {queued.pk, other_run.pk}
    assert ids(automation="other") == {other_run.pk}
    assert ids(automation="demo-expense") == {queued.pk, failed.pk}
    assert ids(automation="demo-expense", status="queued") == {queued.pk}
    assert ids(trigger="schedule") == {failed.pk}
    assert ids(status="succeeded") == set()


@pytest.mark.django_db
def test_run_detail_includes_steps_in_order_and_never_secrets(owner, queued_run):
    placeholder = "{{credentials.practice-login.password}}"
    make_step(queued_run, 1, kind="fill", name="Type the password",
              action={"kind": "fill", "target": {"text": "Password"}, "value": placeholder},
              grounding={"x": 10, "y": 20}, url="http://127.0.0.1:8765/login", act_ms=12.5)
    make_step(queued_run, 0, kind="fill", name="Type the username", status="failed", error="not found",
              action={"kind": "fill", "value": "{{credentials.practice-login.username}}"})

    response = owner.get(run_url(queued_run.pk))

    assert response.status_code == 200
    body = response.json()
    assert body["id"] == queued_run.pk
    assert body["status"] == "queued"
    assert body["version"] == 1
    assert [s["index"] for s in body["steps"]] == [0, 1]
    step = body["steps"][1]
    assert set(step) == {"index", "kind", "name", "status", "error", "thought", "action", "grounding", "output",
                         "url", "screenshot", "screenshot_before", "started_at", "act_ms", "observe_ms", "model_ms", "model", "item", "called_in",
                         "replayed"}
    assert step["kind"] == "fill" and step["replayed"] is None  # only agent turns are replayed or reasoned
    assert step["name"] == "Type the password"
    assert step["action"]["value"] == placeholder
    assert step["grounding"] == {"x": 10, "y": 20}
    assert step["act_ms"] == 12.5
    assert step["screenshot"] is None
    assert body["steps"][0]["status"] == "failed"
    assert body["steps"][0]["error"] == "not found"

    text = response.content.decode()
    assert PRACTICE_PASSWORD not in text
    assert PRACTICE_USERNAME not in text


@pytest.mark.django_db
def test_run_detail_links_the_step_screenshot(owner, queued_run, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    step = make_step(queued_run, 0)
    step.screenshot.save("shot.jpg", ContentFile(_jpeg()), save=True)

    shot = owner.get(run_url(queued_run.pk)).json()["steps"][0]["screenshot"]
    assert shot == f"http://testserver{step.screenshot.url}"


@pytest.mark.django_db
def test_run_detail_of_an_unknown_run_is_404(owner, personas):
    assert_error(owner.get(run_url(999999)), 404, "not_found")


# --- cancel --------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_cancel_a_queued_run_cancels_it_with_a_reason(owner, queued_run):
    response = owner.post(cancel_url(queued_run.pk))

    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["status"] == "cancelled"
    assert body["status_reason"]
    assert body["finished_at"] and body["cancel_requested_at"]
    queued_run.refresh_from_db()
    assert queued_run.status == RunStatus.CANCELLED
    assert queued_run.status_reason == body["status_reason"]


@pytest.mark.django_db
@pytest.mark.parametrize("status", [RunStatus.SUCCEEDED, RunStatus.FAILED, RunStatus.CANCELLED, RunStatus.TIMED_OUT])
def test_cancel_an_ended_run_is_a_409(owner, queued_run, status):
    Run.objects.filter(pk=queued_run.pk).update(status=status, status_reason="ended", finished_at=timezone.now())

    assert_error(owner.post(cancel_url(queued_run.pk)), 409, "conflict")
    queued_run.refresh_from_db()
    assert queued_run.status == status
    assert queued_run.status_reason == "ended"


@pytest.mark.django_db
def test_cancel_a_running_run_requests_cancellation_and_leaves_it_to_the_worker(owner, queued_run):
    Run.objects.filter(pk=queued_run.pk).update(status=RunStatus.RUNNING, started_at=timezone.now())

    response = owner.post(cancel_url(queued_run.pk))

    assert response.status_code == 200
    assert response.json()["status"] == "running"
    assert response.json()["cancel_requested_at"]
    queued_run.refresh_from_db()
    assert queued_run.cancel_requested_at is not None
    assert queued_run.finished_at is None


@pytest.mark.django_db
def test_editor_can_start_and_cancel_runs(editor, automation, personas):
    started = editor.post(start(automation.slug), {"params": {}}, format="json")
    assert started.status_code == 202
    assert Run.objects.get(pk=started.json()["id"]).created_by == personas.teammate
    assert editor.post(cancel_url(started.json()["id"])).json()["status"] == "cancelled"


# --- roles ---------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_viewer_can_list_and_get_runs(viewer, queued_run):
    assert [r["id"] for r in viewer.get("/api/runs/").json()["results"]] == [queued_run.pk]
    assert viewer.get(run_url(queued_run.pk)).status_code == 200


@pytest.mark.django_db
def test_viewer_cannot_start_a_run(viewer, automation):
    assert_error(viewer.post(start(automation.slug), {"params": {}}, format="json"), 403, "permission_denied")
    assert not Run.objects.exists()


@pytest.mark.django_db
def test_viewer_cannot_cancel_a_run(viewer, queued_run):
    assert_error(viewer.post(cancel_url(queued_run.pk)), 403, "permission_denied")
    queued_run.refresh_from_db()
    assert queued_run.status == RunStatus.QUEUED


@pytest.mark.django_db
def test_runs_endpoints_need_authentication(automation, queued_run):
    client = APIClient()
    assert_error(client.get("/api/runs/"), 401)
    assert_error(client.get(run_url(queued_run.pk)), 401)
    assert_error(client.post(start(automation.slug), {"params": {}}, format="json"), 401)
    assert_error(client.post(cancel_url(queued_run.pk)), 401)
    queued_run.refresh_from_db()
    assert queued_run.status == RunStatus.QUEUED
    assert Run.objects.count() == 1


# --- workspace isolation -------------------------------------------------------------------------


@pytest.mark.django_db
def test_outsider_cannot_start_a_run_of_another_workspaces_automation(outsider, automation):
    assert_error(outsider.post(start(automation.slug), {"params": {}}, format="json"), 404, "not_found")
    assert not Run.objects.exists()


@pytest.mark.django_db
def test_outsider_gets_404_for_another_workspaces_run(outsider, queued_run):
    assert_error(outsider.get(run_url(queued_run.pk)), 404, "not_found")
    assert_error(outsider.post(cancel_url(queued_run.pk)), 404, "not_found")
    queued_run.refresh_from_db()
    assert queued_run.status == RunStatus.QUEUED
    assert queued_run.cancel_requested_at is None


@pytest.mark.django_db
def test_run_lists_only_show_the_callers_workspace(owner, outsider, queued_run, other_automation, personas):
    from venus_rpa.runs.services import run_start

    theirs = run_start(automation=other_automation, params={}, user=personas.outsider)

    assert [r["id"] for r in owner.get("/api/runs/").json()["results"]] == [queued_run.pk]
    assert [r["id"] for r in outsider.get("/api/runs/").json()["results"]] == [theirs.pk]
    # Filtering by another workspace's automation slug finds nothing.
    assert outsider.get("/api/runs/", {"automation": "demo-expense"}).json()["results"] == []


# --- screenshot media ----------------------------------------------------------------------------


@pytest.fixture
def screenshot_step(queued_run, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    step = make_step(queued_run, 0)
    step.screenshot.save("shot.jpg", ContentFile(_jpeg()), save=True)
    return step


@pytest.mark.django_db
def test_member_can_fetch_a_step_screenshot(owner, viewer, screenshot_step):
    url = screenshot_step.screenshot.url
    assert url.startswith("/media/screenshots/")
    for client in (owner, viewer):
        response = client.get(url)
        assert response.status_code == 200
        assert response["Content-Type"] == "image/jpeg"
        assert b"".join(response.streaming_content) == _jpeg()


@pytest.mark.django_db
def test_outsider_gets_404_for_another_workspaces_screenshot(outsider, screenshot_step):
    response = outsider.get(screenshot_step.screenshot.url)
    assert_error(response, 404, "not_found")


@pytest.mark.django_db
def test_screenshot_needs_authentication(screenshot_step):
    assert_error(APIClient().get(screenshot_step.screenshot.url), 401)


@pytest.mark.django_db
def test_media_path_that_no_step_owns_is_404_even_if_the_file_exists(owner, screenshot_step, tmp_path):
    (tmp_path / "stray.jpg").write_bytes(_jpeg())
    assert_error(owner.get("/media/stray.jpg"), 404, "not_found")


@pytest.mark.django_db
def test_run_artifact_file_is_served_to_members_only(owner, outsider, queued_run, settings, tmp_path):
    from venus_rpa.runs.models import Artifact

    settings.MEDIA_ROOT = tmp_path
    artifact = Artifact(run=queued_run, kind=Artifact.Kind.FILE, name="receipt.txt")
    artifact.file.save("receipt.txt", ContentFile(b"EXP-1234"), save=True)

    response = owner.get(artifact.file.url)
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == b"EXP-1234"
    assert_error(outsider.get(artifact.file.url), 404, "not_found")


@pytest.mark.django_db
def test_token_of_a_removed_member_no_longer_reads_the_workspace(personas, queued_run, screenshot_step):
    from venus_rpa.accounts.models import Membership

    client = personas.client(personas.viewer)
    assert client.get("/api/runs/").status_code == 200
    Membership.objects.filter(user=personas.viewer, workspace=personas.workspace).delete()

    assert client.get("/api/runs/").status_code in (401, 403)
    assert client.get(run_url(queued_run.pk)).status_code in (401, 403, 404)
    assert client.get(screenshot_step.screenshot.url).status_code in (401, 403, 404)
