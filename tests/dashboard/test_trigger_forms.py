"""The New schedule, New webhook and New callback forms: archived automations are not offered (and
the services refuse them); creating a webhook or a callback endpoint is Post/Redirect/Get, so a
reload makes no second one and the secret is shown once, in no URL; two webhooks of a workspace
never share a name."""

from __future__ import annotations

import pytest

from venus_rpa.automations.lifecycle import automation_archive
from venus_rpa.core.errors import Conflict
from venus_rpa.dashboard.views.triggers import triggers_available

pytestmark = pytest.mark.skipif(not triggers_available(), reason="venus_rpa.triggers is not installed")


def _options(page: str, form: str) -> str:
    return page.split(form)[1].split("</select>")[0]


def test_archived_automations_are_not_offered_for_a_new_schedule_or_webhook(editor_client, automation, personas):
    from venus_rpa.automations.services import automation_create
    from tests.dashboard.conftest import definition

    old = automation_create(workspace=personas.workspace, user=personas.owner, slug="old-report", name="Old report",
                            definition=definition())
    automation_archive(automation=old, user=personas.owner)
    schedules = editor_client.get("/schedules/").content.decode()
    assert 'value="file-expense"' in _options(schedules, 'name="automation"')
    assert 'value="old-report"' not in _options(schedules, 'name="automation"')
    webhooks = editor_client.get("/webhooks/").content.decode()
    assert 'value="file-expense"' in webhooks and 'value="old-report"' not in webhooks


def test_the_services_refuse_a_trigger_for_an_archived_automation(editor_client, automation, personas):
    from venus_rpa.triggers.models import Schedule, WebhookTrigger
    from venus_rpa.triggers.services import schedule_create, webhook_trigger_create

    automation_archive(automation=automation, user=personas.owner)
    with pytest.raises(Conflict, match="is archived"):
        schedule_create(workspace=personas.workspace, user=personas.owner, automation=automation, name="S",
                        cron="0 9 * * *", params={"title": "x", "when": "2026-01-02"})
    with pytest.raises(Conflict, match="is archived"):
        webhook_trigger_create(workspace=personas.workspace, user=personas.owner, automation=automation, name="W")
    response = editor_client.post("/webhooks/new/", {"name": "ERP", "automation": automation.slug, "param_mapping": ""})
    assert response.status_code == 400 and "This automation is archived." in response.content.decode()
    assert not Schedule.objects.exists() and not WebhookTrigger.objects.exists()


def test_creating_a_webhook_redirects_and_a_reload_makes_no_second_one(editor_client, automation, personas):
    from venus_rpa.triggers.models import WebhookTrigger

    response = editor_client.post("/webhooks/new/", {"name": "ERP", "automation": automation.slug,
                                                     "param_mapping": '{"title": "expense.title"}'})
    trigger = WebhookTrigger.objects.get(workspace=personas.workspace)
    assert response.status_code == 302 and response["Location"] == f"/webhooks/{trigger.pk}/"
    shown = editor_client.get(response["Location"])
    page = shown.content.decode()
    secret = page.split('id="new-secret">')[1].split("</pre>")[0]
    assert secret.startswith("whsec_") and shown["Cache-Control"] == "no-store"
    assert "Webhook ERP created." in page
    assert secret not in response["Location"]
    again = editor_client.get(response["Location"])  # the reload: the same page, no secret, no new webhook
    assert again.status_code == 200 and secret not in again.content.decode() and "whsec_" not in again.content.decode()
    assert WebhookTrigger.objects.filter(workspace=personas.workspace).count() == 1
    assert secret not in editor_client.get("/webhooks/").content.decode()
    assert secret not in str(dict(editor_client.session))  # kept encrypted until shown, then gone


def test_rotating_redirects_too_and_shows_the_new_secret_once(editor_client, automation, personas):
    from venus_rpa.triggers.services import webhook_trigger_create

    trigger, old = webhook_trigger_create(workspace=personas.workspace, user=personas.owner, automation=automation,
                                          name="ERP")
    response = editor_client.post(f"/webhooks/{trigger.pk}/rotate/")
    assert response.status_code == 302 and response["Location"] == f"/webhooks/{trigger.pk}/"
    page = editor_client.get(response["Location"]).content.decode()
    new = page.split('id="new-secret">')[1].split("</pre>")[0]
    assert new.startswith("whsec_") and new != old
    assert new not in editor_client.get(response["Location"]).content.decode()
    trigger.refresh_from_db()
    from venus_rpa.triggers.services._common import secret_read
    assert secret_read(trigger.secret_ciphertext) == new  # reloading rotated nothing more


def test_a_webhook_name_in_use_in_the_workspace_is_refused_in_any_letter_case(editor_client, automation, personas,
                                                                               foreign_automation):
    from venus_rpa.triggers.models import WebhookTrigger
    from venus_rpa.triggers.services import webhook_trigger_create, webhook_trigger_update

    first, _ = webhook_trigger_create(workspace=personas.workspace, user=personas.owner, automation=automation,
                                      name="ERP")
    response = editor_client.post("/webhooks/new/", {"name": " erp ", "automation": automation.slug,
                                                     "param_mapping": ""})
    assert response.status_code == 400
    assert "Another webhook has this name." in response.content.decode().split('name="name"')[1].split("</label>")[0]
    assert WebhookTrigger.objects.filter(workspace=personas.workspace).count() == 1
    second, _ = webhook_trigger_create(workspace=personas.workspace, user=personas.owner, automation=automation,
                                       name="ERP 2")
    with pytest.raises(Conflict):
        webhook_trigger_update(trigger=second, name="Erp")
    assert webhook_trigger_update(trigger=first, name="ERP").name == "ERP"  # its own name is no clash
    other, _ = webhook_trigger_create(workspace=personas.other_workspace, user=personas.outsider,
                                      automation=foreign_automation, name="ERP")  # another workspace: fine
    assert other.name == "ERP"


CALLBACK_URL = "https://hooks.example.com/venus"


def test_adding_a_callback_redirects_and_a_reload_makes_no_second_one(editor_client, personas):
    from venus_rpa.triggers.models import CallbackEndpoint
    from venus_rpa.triggers.services._common import secret_read

    response = editor_client.post("/webhooks/callbacks/new/", {"url": CALLBACK_URL, "automation": ""})
    assert response.status_code == 302 and response["Location"] == "/webhooks/"
    endpoint = CallbackEndpoint.objects.get(workspace=personas.workspace)
    raw = secret_read(endpoint.secret_ciphertext)
    assert raw not in str(dict(editor_client.session))  # held encrypted until shown
    shown = editor_client.get(response["Location"])
    page = shown.content.decode()
    secret = page.split('id="new-secret">')[1].split("</pre>")[0]
    assert secret == raw and secret.startswith("cbsec_") and shown["Cache-Control"] == "no-store"
    assert f"Callback endpoint {CALLBACK_URL} added." in page
    again = editor_client.get(response["Location"])  # the reload: the list, no secret, no new endpoint
    assert again.status_code == 200 and "cbsec_" not in again.content.decode()
    assert 'id="new-secret"' not in again.content.decode() and again.get("Cache-Control") != "no-store"
    assert CallbackEndpoint.objects.filter(workspace=personas.workspace).count() == 1
    assert raw not in str(dict(editor_client.session))


def test_a_callback_secret_waits_for_the_list_and_is_not_shown_on_a_webhook_page(editor_client, automation,
                                                                                  personas):
    from venus_rpa.triggers.services import webhook_trigger_create

    trigger, _ = webhook_trigger_create(workspace=personas.workspace, user=personas.owner, automation=automation,
                                        name="ERP")
    editor_client.post("/webhooks/callbacks/new/", {"url": CALLBACK_URL, "automation": automation.slug})
    assert "cbsec_" not in editor_client.get(f"/webhooks/{trigger.pk}/").content.decode()
    assert 'id="new-secret">cbsec_' in editor_client.get("/webhooks/").content.decode()


def test_a_refused_callback_shows_the_form_again_with_no_secret_and_a_viewer_cannot_add_one(
        editor_client, viewer_client, personas):
    from venus_rpa.triggers.models import CallbackEndpoint

    response = editor_client.post("/webhooks/callbacks/new/", {"url": "ftp://hooks.example.com/x", "automation": ""})
    assert response.status_code == 400
    page = response.content.decode()
    assert 'value="ftp://hooks.example.com/x"' in page and "cbsec_" not in page
    assert viewer_client.post("/webhooks/callbacks/new/", {"url": CALLBACK_URL, "automation": ""}).status_code == 403
    assert not CallbackEndpoint.objects.exists()


def test_a_held_callback_secret_of_another_workspace_is_not_shown(editor_client, personas):
    from venus_rpa.automations.crypto import encrypt_fields
    from venus_rpa.dashboard.secret_once import SESSION_KEY
    from venus_rpa.triggers.services import callback_endpoint_create

    foreign, raw = callback_endpoint_create(workspace=personas.other_workspace, user=None, url=CALLBACK_URL)
    session = editor_client.session  # as if held before a switch of workspace
    session[SESSION_KEY] = {"kind": "callback", "pk": foreign.pk, "ciphertext": encrypt_fields({"secret": raw})}
    session.save()
    page = editor_client.get("/webhooks/").content.decode()
    assert raw not in page and 'id="new-secret"' not in page
    assert SESSION_KEY not in editor_client.session  # taken, not left for later
