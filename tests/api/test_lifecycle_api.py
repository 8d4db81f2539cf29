"""Retry / re-run, clone, archive and restore, version restore, credential delete and paginated,
searchable lists through the REST API; roles and workspace isolation for each."""

from __future__ import annotations

import copy

import pytest

from tests.api.conftest import PRACTICE_PASSWORD, assert_error
from tests.dashboard.conftest import make_run
from venus_rpa.audit.models import AuditEvent
from venus_rpa.runs.models import Run

PARAMS = {"title": "Taxi to the airport", "amount": "42.50", "date": "2026-11-30", "category": "Travel",
          "notes": "Filed by Venus RPA"}


@pytest.fixture
def failed_run(automation):
    return make_run(automation, status="failed", params=PARAMS, status_reason="the Save button was not found")


def actions(workspace) -> list[str]:
    return list(AuditEvent.objects.filter(workspace=workspace).order_by("id").values_list("action", flat=True))


# -- retry / re-run --------------------------------------------------------------------------------

def test_retrying_a_failed_run_starts_a_linked_run_with_the_same_params(personas, editor, failed_run):
    response = editor.post(f"/api/runs/{failed_run.pk}/retry/")
    assert response.status_code == 202, response.json()
    new = response.json()
    assert new["retry_of"] == failed_run.pk and new["params"] == PARAMS and new["status"] == "queued"
    assert new["id"] != failed_run.pk and new["trigger"] == "api"
    assert editor.get(f"/api/runs/{failed_run.pk}/").json()["retries"] == [new["id"]]
    assert "run_retried" in actions(personas.workspace)


def test_a_succeeded_run_is_re_run_but_a_running_one_is_refused(editor, automation):
    done = make_run(automation, status="succeeded", params=PARAMS)
    assert editor.post(f"/api/runs/{done.pk}/retry/").json()["retry_of"] == done.pk
    running = make_run(automation, status="running", params=PARAMS)
    error = assert_error(editor.post(f"/api/runs/{running.pk}/retry/"), 409, "conflict")
    assert "has not ended yet" in error["message"]


def test_a_retry_copies_no_secret_and_the_credential_stays_a_reference(editor, failed_run):
    new = Run.objects.get(pk=editor.post(f"/api/runs/{failed_run.pk}/retry/").json()["id"])
    assert PRACTICE_PASSWORD not in str(new.params) and new.version.credentials == failed_run.version.credentials
    assert PRACTICE_PASSWORD not in editor.get(f"/api/runs/{new.pk}/").content.decode()


def test_a_retry_whose_params_no_longer_validate_names_the_field(owner, automation, failed_run):
    schema = copy.deepcopy(automation.current_version.param_schema)
    schema["properties"]["cost_centre"] = {"type": "string"}
    schema["required"] = [*schema.get("required", []), "cost_centre"]
    assert owner.patch(f"/api/automations/{automation.slug}/", {"param_schema": schema}, format="json").status_code == 200
    error = assert_error(owner.post(f"/api/runs/{failed_run.pk}/retry/"), 400, "invalid")
    assert "no longer fit" in error["message"] and "cost_centre" in error["message"]
    assert error["fields"] == {"params.cost_centre": ["This parameter is required."]}


def test_a_viewer_cannot_retry_and_another_workspace_sees_404(viewer, outsider, failed_run):
    assert_error(viewer.post(f"/api/runs/{failed_run.pk}/retry/"), 403)
    assert_error(outsider.post(f"/api/runs/{failed_run.pk}/retry/"), 404)
    assert Run.objects.count() == 1


# -- bulk --------------------------------------------------------------------------------------------

def test_bulk_cancel_reports_each_run_and_hides_other_workspaces(personas, editor, automation, foreign_run):
    queued = make_run(automation, status="queued", params=PARAMS)
    done = make_run(automation, status="succeeded", params=PARAMS)
    body = editor.post("/api/runs/bulk/", {"action": "cancel", "ids": [queued.pk, done.pk, foreign_run.pk, 999999]},
                       format="json").json()["results"]
    assert [(r["id"], r["ok"]) for r in body] == [(queued.pk, True), (done.pk, False), (foreign_run.pk, False),
                                                  (999999, False)]
    assert "already ended" in body[1]["message"]
    # Another workspace's run reads exactly like one that does not exist.
    assert body[2]["message"] == body[3]["message"] == "No such run in this workspace."
    foreign_run.refresh_from_db()
    assert foreign_run.status == "running"
    assert Run.objects.get(pk=queued.pk).status == "cancelled"


def test_bulk_retry_starts_one_run_per_finished_run(editor, automation, failed_run):
    running = make_run(automation, status="running", params=PARAMS)
    body = editor.post("/api/runs/bulk/", {"action": "retry", "ids": [failed_run.pk, running.pk]},
                       format="json").json()["results"]
    assert body[0]["ok"] and Run.objects.get(pk=body[0]["new_run_id"]).retry_of_id == failed_run.pk
    assert not body[1]["ok"] and body[1]["new_run_id"] is None


def test_bulk_is_refused_to_a_viewer_and_bounded(viewer, editor, failed_run):
    assert_error(viewer.post("/api/runs/bulk/", {"action": "retry", "ids": [failed_run.pk]}, format="json"), 403)
    error = assert_error(editor.post("/api/runs/bulk/", {"action": "retry", "ids": list(range(1, 102))},
                                     format="json"), 400)
    assert "ids" in error["fields"]


@pytest.fixture
def foreign_run(foreign_automation):
    return make_run(foreign_automation, status="running")


@pytest.fixture
def foreign_automation(personas):
    from venus_rpa.automations.services import automation_create

    return automation_create(workspace=personas.other_workspace, user=personas.outsider, slug="globex-secret",
                             name="Globex secret", definition={"steps": [{"kind": "goto", "url": "http://x.test/"}],
                                                                  "allowed_domains": ["x.test"]})


def test_bulk_reject_of_reviews_needs_a_comment_and_reports_each(personas, owner, automation, foreign_automation):
    from tests.e2e.test_review_form_e2e import risky_review

    mine = risky_review(make_run(automation, status="awaiting_review"), "Pay supplier")
    theirs = risky_review(make_run(foreign_automation, status="awaiting_review"), "Pay Globex")
    assert_error(owner.post("/api/reviews/bulk-reject/", {"ids": [mine.pk]}, format="json"), 400)
    body = owner.post("/api/reviews/bulk-reject/", {"ids": [mine.pk, theirs.pk], "comment": "not this month"},
                      format="json").json()["results"]
    assert [(r["id"], r["ok"]) for r in body] == [(mine.pk, True), (theirs.pk, False)]
    assert body[1]["message"] == "No such review in this workspace."
    mine.refresh_from_db()
    theirs.refresh_from_db()
    assert (mine.status, mine.comment, theirs.status) == ("rejected", "not this month", "pending")
    again = owner.post("/api/reviews/bulk-reject/", {"ids": [mine.pk], "comment": "x"}, format="json").json()
    assert not again["results"][0]["ok"] and "not pending" in again["results"][0]["message"]


def test_an_editor_or_viewer_cannot_bulk_reject(editor, viewer, automation):
    from tests.e2e.test_review_form_e2e import risky_review

    review = risky_review(make_run(automation, status="awaiting_review"), "Pay supplier")
    for client in (editor, viewer):
        assert_error(client.post("/api/reviews/bulk-reject/", {"ids": [review.pk], "comment": "no"},
                                 format="json"), 403)


# -- clone, archive, restore -------------------------------------------------------------------------

def test_cloning_copies_the_definition_under_a_unique_name_but_not_runs_or_triggers(personas, owner, automation,
                                                                                   failed_run):
    from venus_rpa.triggers.services import schedule_create

    schedule_create(workspace=personas.workspace, user=personas.owner, automation=automation, name="Daily",
                    cron="0 9 * * *", params=PARAMS)
    first = owner.post(f"/api/automations/{automation.slug}/clone/").json()
    second = owner.post(f"/api/automations/{automation.slug}/clone/").json()
    assert (first["name"], second["name"]) == ("Copy of Demo expense", "Copy of Demo expense (2)")
    assert first["slug"] != second["slug"] != automation.slug
    original = automation.current_version.definition()
    assert {k: first["version"][k] for k in original} == original  # steps, schema, domains, policies, credentials
    from venus_rpa.automations.models import Automation, Credential

    clone = Automation.objects.get(slug=first["slug"])
    assert not clone.runs.exists() and not clone.schedules.exists() and not clone.webhook_triggers.exists()
    assert Credential.objects.filter(workspace=personas.workspace).count() == 1  # referenced, not duplicated
    assert "automation_cloned" in actions(personas.workspace)


def test_a_description_from_before_the_limit_is_shortened_in_the_clone(owner, automation):
    from venus_rpa.automations.checks import DESCRIPTION_MAX
    from venus_rpa.automations.models import Automation

    Automation.objects.filter(pk=automation.pk).update(description="D" * (DESCRIPTION_MAX + 500))  # older data
    response = owner.post(f"/api/automations/{automation.slug}/clone/")
    assert response.status_code == 201, response.content
    description = Automation.objects.get(slug=response.json()["slug"]).description
    assert len(description) == DESCRIPTION_MAX and description.endswith("…")


def test_an_editor_cannot_clone_pre_approvals_they_could_not_set_themselves(editor, automation):
    # The demo pre-approves sign-in and submit steps: a copy would carry them to steps nobody
    # reviewed, so the copy is governed like any new automation (owner or reviewer).
    error = assert_error(editor.post(f"/api/automations/{automation.slug}/clone/"), 403)
    assert "Only an owner or a reviewer may lower safety review" in error["message"]


def test_an_archived_automation_is_refused_by_every_start_path(personas, editor, automation, failed_run):
    from venus_rpa.runs.services import run_start
    from venus_rpa.triggers.models import Schedule
    from venus_rpa.triggers.services import schedule_create, schedule_fire, webhook_receive, webhook_trigger_create
    from venus_rpa.triggers.signing import signed_headers

    schedule = schedule_create(workspace=personas.workspace, user=personas.owner, automation=automation,
                               name="Every minute", cron="* * * * *", params=PARAMS)
    hook, secret = webhook_trigger_create(workspace=personas.workspace, user=personas.owner, automation=automation,
                                          name="Inbox")
    body = editor.post(f"/api/automations/{automation.slug}/archive/").json()
    assert body["archived"] is True
    assert [a["slug"] for a in editor.get("/api/automations/").json()["results"]] == []
    assert [a["slug"] for a in editor.get("/api/automations/?archived=true").json()["results"]] == [automation.slug]

    error = assert_error(editor.post(f"/api/automations/{automation.slug}/runs/", {"params": PARAMS},
                                     format="json"), 409)
    assert "is archived" in error["message"]
    assert "is archived" in assert_error(editor.post(f"/api/runs/{failed_run.pk}/retry/"), 409)["message"]
    schedule.refresh_from_db()
    assert schedule.enabled and not schedule.periodic_task.enabled  # beat stops sending it
    from datetime import timedelta

    from django.utils import timezone

    Schedule.objects.filter(pk=schedule.pk).update(created_at=timezone.now() - timedelta(hours=1))
    fire = schedule_fire(schedule_id=schedule.pk)  # a message sent before the archive: no run, a reason
    assert fire.run is None and "is archived" in fire.error
    payload = b'{"title": "x"}'
    from venus_rpa.core.errors import Conflict

    with pytest.raises(Conflict, match="is archived"):
        webhook_receive(public_id=hook.public_id, body=payload, headers=signed_headers(secret, payload))
    with pytest.raises(Conflict, match="is archived"):
        run_start(automation=automation, params=PARAMS)
    assert Run.objects.count() == 1  # runs keep their history; none started

    editor.post(f"/api/automations/{automation.slug}/unarchive/")
    schedule.refresh_from_db()
    assert schedule.periodic_task.enabled
    assert editor.post(f"/api/automations/{automation.slug}/runs/", {"params": PARAMS}, format="json").status_code == 202
    # The start after the restore is audited too (who ran what).
    assert actions(personas.workspace)[-3:] == ["automation_archived", "automation_unarchived", "run_started"]


def test_an_archived_automation_cannot_be_edited(editor, automation):
    editor.post(f"/api/automations/{automation.slug}/archive/")
    error = assert_error(editor.patch(f"/api/automations/{automation.slug}/", {"goal": "x"}, format="json"), 409)
    assert "restore it from the archive" in error["message"]


def test_viewers_cannot_clone_archive_or_restore_and_outsiders_see_404(viewer, outsider, automation):
    for path in ("clone/", "archive/", "unarchive/", "versions/1/restore/"):
        assert_error(viewer.post(f"/api/automations/{automation.slug}/{path}"), 403)
        assert_error(outsider.post(f"/api/automations/{automation.slug}/{path}"), 404)


def test_restoring_a_version_makes_a_new_equal_version(personas, owner, automation):
    v1 = automation.current_version
    owner.patch(f"/api/automations/{automation.slug}/", {"goal": "Something else entirely"}, format="json")
    response = owner.post(f"/api/automations/{automation.slug}/versions/1/restore/")
    assert response.status_code == 201, response.json()
    assert response.json()["number"] == 3 and response.json()["change_note"] == "Restored from v1"
    versions = owner.get(f"/api/automations/{automation.slug}/versions/").json()
    assert [v["number"] for v in versions] == [3, 2, 1]
    assert versions[1]["goal"] == "Something else entirely"  # history is not rewritten
    automation.refresh_from_db()
    assert automation.current_version.definition() == v1.definition()
    error = assert_error(owner.post(f"/api/automations/{automation.slug}/versions/1/restore/"), 409)
    assert "already has the definition" in error["message"]
    assert_error(owner.post(f"/api/automations/{automation.slug}/versions/9/restore/"), 404)
    assert "version_restored" in actions(personas.workspace)


# -- credentials -------------------------------------------------------------------------------------

def test_a_credential_in_use_is_not_deleted_and_an_unused_one_is(personas, editor, viewer, automation,
                                                                 practice_credential):
    from venus_rpa.automations.services import credential_set

    error = assert_error(editor.delete(f"/api/credentials/{practice_credential.name}/"), 409)
    assert "Demo expense" in error["message"]
    credential_set(workspace=personas.workspace, name="old-login", fields={"password": "x"}, domains=["a.test"])
    assert_error(viewer.delete("/api/credentials/old-login/"), 403)
    assert editor.delete("/api/credentials/old-login/").status_code == 204
    assert [c["name"] for c in editor.get("/api/credentials/").json()["results"]] == [practice_credential.name]
    assert "credential_deleted" in actions(personas.workspace)
    # Once the automation using it is archived, it may go.
    editor.post(f"/api/automations/{automation.slug}/archive/")
    assert editor.delete(f"/api/credentials/{practice_credential.name}/").status_code == 204


# -- lists -------------------------------------------------------------------------------------------

def test_list_endpoints_are_paginated_searchable_and_bounded(owner, editor, automation, failed_run):
    owner.post(f"/api/automations/{automation.slug}/clone/")
    page = editor.get("/api/automations/?limit=1").json()
    assert page["count"] == 2 and len(page["results"]) == 1 and page["next"]
    assert [a["name"] for a in editor.get("/api/automations/?q=copy").json()["results"]] == ["Copy of Demo expense"]
    assert editor.get(f"/api/runs/?q=%23{failed_run.pk}").json()["count"] == 1
    assert editor.get("/api/runs/?q=button").json()["count"] == 1  # words of the status reason
    assert editor.get("/api/runs/?q=nothing-like-this").json()["count"] == 0
    for path in ("automations", "credentials", "schedules", "webhooks", "callbacks", "devices", "runs", "reviews"):
        body = editor.get(f"/api/{path}/").json()
        assert set(body) == {"count", "next", "previous", "results"}, path
        assert_error(editor.get(f"/api/{path}/?limit=1000"), 400)
    assert_error(editor.get("/api/automations/?q=" + "x" * 201), 400)
