"""Dashboard pages for retry, bulk actions, archive, deletes and lists: what each role sees and
may do, other workspaces' objects as 404, per-item bulk results, and paged, searchable lists."""

from __future__ import annotations

import pytest

from tests.dashboard.conftest import make_run, signed_in
from tests.reviews.conftest import make_automation

PARAMS = {"title": "Lunch", "when": "2026-11-30"}


@pytest.fixture
def failed(automation):
    return make_run(automation, status="failed", params=PARAMS, status_reason="the form was gone")


def test_outsiders_get_404_on_every_object_action(outsider_client, automation, failed):
    for path in (f"/runs/{failed.pk}/retry/", f"/automations/{automation.slug}/clone/",
                 f"/automations/{automation.slug}/archive/", f"/automations/{automation.slug}/unarchive/",
                 f"/automations/{automation.slug}/versions/1/restore/"):
        assert outsider_client.post(path).status_code == 404, path
    assert outsider_client.get(f"/automations/{automation.slug}/archive/").status_code == 404


def test_bulk_on_the_dashboard_refuses_other_workspaces_ids_per_item(personas, editor_client, failed,
                                                                     foreign_automation):
    theirs = make_run(foreign_automation, status="failed")
    response = editor_client.post("/runs/bulk/", {"action": "retry", "ids": [failed.pk, theirs.pk, "x1"]})
    page = response.content.decode()
    assert response.status_code == 200
    assert "1 of 2 done; 1 not done" in page
    assert f"#{theirs.pk}: No such run in this workspace." in page
    assert "Globex" not in page and theirs.retries.count() == 0


def test_a_bulk_without_a_choice_or_selection_says_so(editor_client):
    assert "Choose Cancel selected or Retry selected." in editor_client.post("/runs/bulk/").content.decode()
    response = editor_client.post("/runs/bulk/", {"action": "cancel"})
    assert response.status_code == 400 and "Select at least one item." in response.content.decode()


def test_a_retry_refused_for_params_shows_which_field(owner_client, automation, failed):
    from venus_rpa.automations.services import automation_update

    schema = {**automation.current_version.param_schema}
    schema["properties"] = {**schema["properties"], "project": {"type": "string"}}
    schema["required"] = [*schema["required"], "project"]
    automation_update(automation=automation, user=None, definition={"param_schema": schema})
    response = owner_client.post(f"/runs/{failed.pk}/retry/", follow=True)
    page = response.content.decode()
    assert "no longer fit" in page and "project: This parameter is required." in page


def test_the_runs_filters_use_words_and_the_pager_keeps_them(editor_client, automation):
    for _ in range(12):
        make_run(automation, status="failed", params=PARAMS)
    page = editor_client.get("/runs/?status=failed&per_page=10&q=File").content.decode()
    assert ">Waiting for a reviewer</option>" in page and ">awaiting_review</option>" not in page
    assert "Page 1 of 2" in page and "status=failed" in page and "per_page=10" in page and "page=2" in page
    bounded = editor_client.get("/runs/?per_page=100000").context["page"]
    assert bounded.paginator.per_page == 25


def test_viewers_see_lists_without_action_buttons(viewer_client, automation, failed):
    runs = viewer_client.get("/runs/").content.decode()
    assert 'name="ids"' not in runs and "Retry selected" not in runs
    assert "data-rerun" not in viewer_client.get(f"/runs/{failed.pk}/").content.decode()
    assert "Delete…" not in viewer_client.get("/credentials/").content.decode()
    assert viewer_client.post("/runs/bulk/", {"action": "cancel", "ids": [failed.pk]}).status_code == 403
    assert viewer_client.get("/credentials/x/delete/").status_code == 403


def test_automations_list_searches_and_hides_archived(owner_client, personas, automation):
    from venus_rpa.automations.lifecycle import automation_archive, automation_clone

    automation_clone(automation=automation, user=personas.owner)
    automation_archive(automation=automation, user=personas.owner)
    page = owner_client.get("/automations/?q=copy").content.decode()
    assert "Copy of File expense" in page and 'href="/automations/file-expense/"' not in page
    archived = owner_client.get("/automations/?show=archived").content.decode()
    assert 'href="/automations/file-expense/"' in archived and "Restore" in archived
    assert "No automation matches" in owner_client.get("/automations/?q=zzz").content.decode()


def test_a_webhook_is_deleted_only_after_confirming(personas, owner_client, automation):
    from venus_rpa.triggers.models import WebhookTrigger
    from venus_rpa.triggers.services import webhook_trigger_create

    hook, _ = webhook_trigger_create(workspace=personas.workspace, user=personas.owner, automation=automation,
                                     name="Inbox")
    confirm = owner_client.get(f"/webhooks/{hook.pk}/delete/").content.decode()
    assert "Delete webhook Inbox?" in confirm and "answers 404" in confirm
    assert 'name="confirm" value="delete"' in confirm  # what its Delete button sends
    assert WebhookTrigger.objects.filter(pk=hook.pk).exists()
    assert owner_client.post(f"/webhooks/{hook.pk}/delete/").status_code == 302  # no confirmation: nothing deleted
    assert WebhookTrigger.objects.filter(pk=hook.pk).exists()
    assert owner_client.post(f"/webhooks/{hook.pk}/delete/", {"confirm": "delete"}).status_code == 302
    assert not WebhookTrigger.objects.filter(pk=hook.pk).exists()
    assert personas.workspace.audit_events.filter(action="webhook_deleted").count() == 1


def test_reviews_history_is_searchable_by_outcome_in_words(personas, automation):
    from tests.e2e.test_review_form_e2e import risky_review
    from venus_rpa.reviews.bulk import reviews_bulk_reject

    reviews = [risky_review(make_run(automation, status="awaiting_review"), f"Pay {n}") for n in ("rent", "cab")]
    reviews_bulk_reject(workspace=personas.workspace, ids=[reviews[0].pk], user=personas.owner, comment="no")
    client = signed_in(personas.owner)
    page = client.get("/reviews/?status=rejected&q=rent").content.decode()
    assert ">Approved with changes</option>" in page and "Pay rent" in page
    assert "Nothing decided matches" in client.get("/reviews/?q=cab").content.decode()


def test_the_devices_page_searches_by_serial(personas, owner_client):
    from venus_rpa.devices.services import device_register

    device_register(workspace=personas.workspace, serial="pixel-7a")
    device_register(workspace=personas.workspace, serial="galaxy-s23")
    page = owner_client.get("/devices/?q=pixel").content.decode()
    assert 'data-serial="pixel-7a"' in page and 'data-serial="galaxy-s23"' not in page
    assert "No device matches" in owner_client.get("/devices/?q=nokia").content.decode()


def test_the_devices_page_lists_desktop_displays_with_the_run_holding_each(personas, owner_client, automation):
    """A display held by this workspace's run names the run; one held by another workspace's run
    says only that it is in use; a free one says free. No active run: said plainly."""
    from venus_rpa.pools.displays import display_register
    from venus_rpa.pools.models import ResourceKind
    from venus_rpa.pools.services import lease_acquire

    assert "No display registered" in owner_client.get("/devices/").content.decode()
    for display in (":97", ":98", ":99"):
        display_register(display=display, host="desk-1")
    run = make_run(automation, status="running")
    other = make_run(make_automation(personas.other_workspace), status="running")
    assert lease_acquire(kind=ResourceKind.DISPLAY, holder="w1", run_id=run.pk, ttl_s=60).resource.key == ":97"
    assert lease_acquire(kind=ResourceKind.DISPLAY, holder="w2", run_id=other.pk, ttl_s=60).resource.key == ":98"
    page = owner_client.get("/devices/").content.decode()
    rows = {key: page[page.index(f'data-display="{key}"'):][:600] for key in (":97", ":98", ":99")}
    assert f"run #{run.pk}" in rows[":97"] and "desk-1" in rows[":97"] and "1280x800" in rows[":97"]
    assert "another workspace" in rows[":98"] and f"#{other.pk}" not in page
    assert "free" in rows[":99"]
    run.status = "succeeded"
    run.save()
    assert "No run is under way." in owner_client.get("/devices/").content.decode()


def test_odd_search_input_is_a_page_not_an_error(editor_client, automation):
    for path in ("/runs/?q=%00", "/automations/?q=" + "x" * 5000, "/credentials/?q=%25_", "/runs/?per_page=-1&page=x"):
        assert editor_client.get(path).status_code == 200, path


def test_counts_under_a_list_read_as_words(editor_client, automation):
    make_run(automation, status="failed", params=PARAMS)
    assert ">1 run</p>" in editor_client.get("/runs/").content.decode()
    make_run(automation, status="failed", params=PARAMS)
    assert ">2 runs</p>" in editor_client.get("/runs/").content.decode()
