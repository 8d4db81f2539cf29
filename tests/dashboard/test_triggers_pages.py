"""Schedules and webhooks pages over the triggers services (secrets shown once)."""

from __future__ import annotations

from unittest import mock

import pytest

from venus_rpa.dashboard.views.triggers import triggers_available

pytestmark = pytest.mark.skipif(not triggers_available(), reason="venus_rpa.triggers is not installed")


def test_schedules_list_create_pause_and_resume(editor_client, automation, personas):
    from venus_rpa.triggers.models import Schedule

    response = editor_client.post("/schedules/", {"name": "Mornings", "automation": automation.slug,
                                                  "cron": "30 8 * * *", "timezone": "Europe/Paris",
                                                  "params": '{"title": "Taxi", "when": "2026-01-02"}'})
    assert response.status_code == 302, response.content.decode()[:2000]
    schedule = Schedule.objects.get(workspace=personas.workspace)
    html = editor_client.get("/schedules/").content.decode()
    assert "Mornings" in html and "08:30 CET" in html  # next fire times in the schedule's zone
    editor_client.post(f"/schedules/{schedule.pk}/toggle/", {"enabled": "0"})
    schedule.refresh_from_db()
    assert not schedule.enabled
    editor_client.post(f"/schedules/{schedule.pk}/toggle/", {"enabled": "1"})
    schedule.refresh_from_db()
    assert schedule.enabled


def test_a_bad_cron_is_shown_inline(editor_client, automation):
    response = editor_client.post("/schedules/", {"automation": automation.slug, "cron": "every day", "timezone": "UTC"})
    assert response.status_code == 400
    assert 'class="errors"' in response.content.decode()


def test_parameters_that_fail_the_schema_are_shown_under_parameters(editor_client, automation):
    from venus_rpa.triggers.models import Schedule

    response = editor_client.post("/schedules/", {"automation": automation.slug, "cron": "0 9 * * 1-5",
                                                  "timezone": "UTC", "params": '{"count": "lots"}'})
    assert response.status_code == 400
    html = response.content.decode()
    params = html.split('name="params"')[1]
    assert "Title: This parameter is required." in params and "Count: Must be a whole number (integer)." in params
    assert not Schedule.objects.exists()


def test_a_webhook_secret_is_shown_once(editor_client, automation):
    response = editor_client.post("/webhooks/new/", {"name": "ERP", "automation": automation.slug,
                                                     "param_mapping": '{"title": "expense.title"}'}, follow=True)
    assert response.status_code == 200 and response.redirect_chain[0][1] == 302
    html = response.content.decode()
    secret = html.split('id="new-secret">')[1].split("</pre>")[0]
    assert len(secret) > 20
    assert secret not in editor_client.get("/webhooks/").content.decode()


def test_callbacks_and_deliveries_with_resend(editor_client, automation, personas):
    from tests.dashboard.conftest import make_run
    from venus_rpa.triggers.models import CallbackDelivery, CallbackEndpoint

    response = editor_client.post("/webhooks/callbacks/new/", {"url": "https://hooks.example.com/venus"}, follow=True)
    assert response.redirect_chain == [("/webhooks/", 302)] and 'id="new-secret"' in response.content.decode()
    endpoint = CallbackEndpoint.objects.get(workspace=personas.workspace)
    delivery = CallbackDelivery.objects.create(endpoint=endpoint, run=make_run(automation), status="failed",
                                               attempts=5, last_error="connection refused")
    html = editor_client.get("/webhooks/").content.decode()
    assert "connection refused" in html and "Re-send" in html
    with mock.patch("venus_rpa.triggers.services.callbacks._enqueue"):
        editor_client.post(f"/webhooks/deliveries/{delivery.pk}/resend/")
    delivery.refresh_from_db()
    assert delivery.status == "pending" and delivery.attempts == 0


def test_outsiders_get_404_and_viewers_403(outsider_client, viewer_client, automation, personas):
    from venus_rpa.triggers.services import schedule_create

    schedule = schedule_create(workspace=personas.workspace, user=personas.owner, automation=automation,
                               name="S", cron="0 9 * * *", params={"title": "x", "when": "2026-01-02"})
    assert outsider_client.post(f"/schedules/{schedule.pk}/toggle/", {"enabled": "0"}).status_code == 404
    assert viewer_client.post(f"/schedules/{schedule.pk}/toggle/", {"enabled": "0"}).status_code == 403
    assert viewer_client.get("/schedules/").status_code == 200


def test_the_webhooks_list_searches_by_name_and_pages(editor_client, automation, personas):
    from venus_rpa.triggers.services import webhook_trigger_create

    for number in range(27):
        webhook_trigger_create(workspace=personas.workspace, user=personas.owner, automation=automation,
                               name=f"Hook {number:02d}", param_mapping={})
    webhook_trigger_create(workspace=personas.workspace, user=personas.owner, automation=automation,
                           name="Invoices from SAP", param_mapping={})
    first = editor_client.get("/webhooks/").content.decode()
    assert "Hook 00" in first and "Invoices from SAP" not in first  # 25 a page, by name
    assert "Page 1 of 2 · 28 webhooks" in first and 'rel="next"' in first
    second = editor_client.get("/webhooks/?page=2").content.decode()
    assert "Invoices from SAP" in second and "Hook 00" not in second
    found = editor_client.get("/webhooks/?q=sap").content.decode()
    assert "Invoices from SAP" in found and "Hook 01" not in found and ">1 webhook</p>" in found
    assert "No webhook matches “nothing”" in editor_client.get("/webhooks/?q=nothing").content.decode()
    assert editor_client.get("/webhooks/?q=%00&page=x").status_code == 200


def test_bad_parameters_json_does_not_hide_a_bad_cron_or_time_zone(editor_client, automation):
    response = editor_client.post("/schedules/", {"name": "S", "automation": automation.slug, "cron": "99 * * * *",
                                                  "timezone": "Mars/Base", "params": "{not json"})
    assert response.status_code == 400
    import html as html_lib

    page = html_lib.unescape(response.content.decode())
    assert "99 is past the last minute, 59." in page and "Unknown time zone 'Mars/Base'" in page
    assert page.count('class="errors"') >= 3  # the parameters' JSON, the cron and the time zone, each at its box
