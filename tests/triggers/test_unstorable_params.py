"""Text that is not Unicode (an unpaired surrogate, which JSON's escapes and undecodable argv bytes
give) or holds a NUL is refused by name on every start path and in the editor's boxes, never a
500; and an accepted start can always be retried: run parameters are bounded with the schema's
defaults added, and a default longer than a parameter may be is refused when saved."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from tests.triggers.test_webhooks import body_of, post_hook
from venus_rpa.core.errors import InvalidInput
from venus_rpa.core.text import NOT_STORABLE
from venus_rpa.runs.models import Run

pytestmark = pytest.mark.django_db

LONE = "\ud800"  # an unpaired surrogate: not Unicode, not storable


@pytest.fixture
def hook(owner, automation) -> dict:
    response = owner.post("/api/webhooks/", {"automation": automation.slug, "name": "Orders",
                                             "param_mapping": {"order_id": "data.order.id"}}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def test_a_signed_webhook_with_such_text_is_refused_with_a_field_error_and_starts_nothing(hook):
    body = b'{"data": {"order": {"id": "\\ud800"}}}'  # as a sender's JSON escapes it
    response = post_hook(hook, body)
    assert response.status_code == 400, response.content
    assert NOT_STORABLE in response.content.decode()
    assert not Run.objects.exists()
    assert post_hook(hook, body_of({"data": {"order": {"id": "1042"}}})).status_code in (200, 201, 202)


def test_the_command_line_refuses_undecodable_bytes_in_a_param(automation):
    with pytest.raises(CommandError) as exc:
        call_command("run_automation", automation.slug, param=["order_id=12\udcff"])  # b"12\xff" as argv decodes it
    assert NOT_STORABLE in str(exc.value) and "params.order_id" in str(exc.value)
    assert not Run.objects.exists()


def test_a_schedule_and_the_dashboard_schedule_form_refuse_such_text(personas, automation):
    from venus_rpa.triggers.models import Schedule
    from venus_rpa.triggers.services.schedules import schedule_create

    with pytest.raises(InvalidInput) as exc:
        schedule_create(workspace=personas.workspace, automation=automation, user=personas.owner, name="Daily",
                        cron="0 9 * * *", params={"order_id": "1" + LONE})
    assert exc.value.fields == {"params.order_id": [NOT_STORABLE]}
    client = Client()
    client.force_login(personas.owner)
    page = client.post("/schedules/", {"name": "Daily", "automation": automation.slug, "cron": "0 9 * * *",
                                       "timezone": "UTC", "params": '{"order_id": "\\ud800"}'})
    assert page.status_code == 400 and NOT_STORABLE in page.content.decode()  # the form again, with the error
    assert not Schedule.objects.exists()


def test_a_definition_with_such_text_is_refused_by_where_it_is(personas):
    from venus_rpa.automations.services import automation_create

    with pytest.raises(InvalidInput) as exc:
        automation_create(workspace=personas.workspace, user=personas.owner, slug="odd", name="Odd",
                          definition={"allowed_domains": ["shop.example.com"],
                                      "output_schema": {"description": LONE},
                                      "steps": [{"kind": "press", "key": "Enter"},
                                                {"kind": "fill", "target": "Name", "value": "a\x00b"}]})
    assert exc.value.fields == {"steps.1": [NOT_STORABLE], "output_schema": [NOT_STORABLE]}
    with pytest.raises(InvalidInput) as exc:
        automation_create(workspace=personas.workspace, user=personas.owner, slug="odd", name="Odd" + LONE,
                          definition={"steps": [{"kind": "press", "key": "Enter"}]})
    assert exc.value.fields["name"] == [NOT_STORABLE]


def test_a_default_longer_than_a_parameter_is_refused_when_saved_and_an_old_one_refuses_the_start(
        personas, automation, settings):
    """A start is bounded as it is stored, defaults added, so the run it makes can be retried."""
    from venus_rpa.automations.models import AutomationVersion
    from venus_rpa.automations.services import automation_create
    from venus_rpa.runs.services import run_start

    settings.VENUS_PARAM_MAX_CHARS = 50
    schema = {"type": "object", "properties": {"body": {"type": "string", "default": "B" * 60}}}
    with pytest.raises(InvalidInput) as exc:
        automation_create(workspace=personas.workspace, user=personas.owner, slug="long-default", name="Long",
                          definition={"param_schema": schema, "allowed_domains": ["shop.example.com"],
                                      "steps": [{"kind": "press", "key": "Enter"}]})
    assert exc.value.fields == {"param_schema": ["Default of 'body' has 60 characters; a run parameter has at most 50."]}
    # A version saved before the bound: its start is refused, naming the schema, rather than
    # accepted and then refused when retried.
    AutomationVersion.objects.filter(pk=automation.current_version_id).update(param_schema={
        **automation.current_version.param_schema,
        "properties": {**automation.current_version.param_schema["properties"],
                       "note": {"type": "string", "default": "N" * 60}}})
    automation.refresh_from_db()
    with pytest.raises(InvalidInput) as exc:
        run_start(automation=automation, params={"order_id": "7"})
    assert list(exc.value.fields) == ["param_schema"]
    assert exc.value.fields["param_schema"][0] == (
        "With its defaults added, params.note: Must be at most 50 characters long (this value has 60).")
    assert not Run.objects.exists()
