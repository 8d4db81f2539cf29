"""Schedule and webhook names: at most 120 characters for a schedule (as an automation's name; an
older longer one is kept while unchanged), unique in a workspace in any letter case, refused with
a field error by the form and the API, held by a database constraint too, and the migration that
added the constraints renames older duplicates instead of failing on them."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps
from django.db import IntegrityError, connection, transaction

from tests.api.conftest import assert_error
from tests.dashboard.conftest import signed_in
from venus_rpa.core.errors import Conflict
from venus_rpa.triggers import services
from venus_rpa.triggers.models import Schedule, WebhookTrigger

LIST = "/api/schedules/"
migration = importlib.import_module("venus_rpa.triggers.migrations.0002_unique_trigger_names")


def body(automation, **overrides) -> dict:
    return {"automation": automation.slug, "name": "Nightly", "cron": "0 3 * * *", "timezone": "UTC",
            "params": {"order_id": "7"}, **overrides}


def schedule_make(automation, name: str) -> Schedule:
    return services.schedule_create(workspace=automation.workspace, user=None, automation=automation, name=name,
                                    cron="0 3 * * *", params={"order_id": "7"})


def _name_label(response) -> str:
    return response.content.decode().split('name="name"')[1].split("</label>")[0]


@pytest.mark.django_db
def test_a_schedule_name_in_use_is_refused_in_any_letter_case_by_the_form_and_the_api(
        personas, automation, other_automation, editor):
    first = schedule_make(automation, "Nightly")
    page = signed_in(personas.teammate).post("/schedules/", {
        "name": " nightly ", "automation": automation.slug, "cron": "0 4 * * *", "timezone": "UTC",
        "params": '{"order_id": "7"}'})
    assert page.status_code == 400 and "Another schedule has this name." in _name_label(page)
    error = assert_error(editor.post(LIST, body(automation, name="NIGHTLY"), format="json"), 409, "conflict")
    assert error["fields"] == {"name": ["Another schedule has this name."]}
    assert "A schedule named “NIGHTLY” exists already in this workspace" in error["message"]
    second = schedule_make(automation, "Weekly")
    error = assert_error(editor.patch(f"{LIST}{second.pk}/", {"name": "nightly"}, format="json"), 409, "conflict")
    assert error["fields"] == {"name": ["Another schedule has this name."]}
    assert editor.patch(f"{LIST}{first.pk}/", {"name": "Nightly", "cron": "0 5 * * *"},
                        format="json").status_code == 200  # its own name is no clash
    assert Schedule.objects.filter(workspace=personas.workspace).count() == 2
    assert schedule_make(other_automation, "Nightly").name == "Nightly"  # another workspace: fine


@pytest.mark.django_db
def test_a_schedule_left_unnamed_is_named_by_its_cron_and_a_second_one_shows_that_name_in_use(personas, automation):
    client = signed_in(personas.teammate)
    form = {"name": "", "automation": automation.slug, "cron": "0 4 * * *", "timezone": "UTC",
            "params": '{"order_id": "7"}'}
    assert client.post("/schedules/", form).status_code == 302
    page = client.post("/schedules/", form)
    assert page.status_code == 400
    assert 'value="0 4 * * *"' in _name_label(page) and "Another schedule has this name." in _name_label(page)
    assert [s.name for s in Schedule.objects.all()] == ["0 4 * * *"]


@pytest.mark.django_db
def test_a_schedule_name_over_120_characters_is_refused_but_an_older_long_one_is_kept(personas, automation,
                                                                                      editor):
    error = assert_error(editor.post(LIST, body(automation, name="n" * 121), format="json"), 400, "invalid")
    assert error["fields"] == {"name": ["At most 120 characters (this one has 121)."]}
    client = signed_in(personas.teammate)
    form = client.get("/schedules/").content.decode()
    assert 'maxlength="120"' in form.split('name="name"')[1].split(">")[0]
    page = client.post("/schedules/", {"name": "n" * 121, "automation": automation.slug, "cron": "0 4 * * *",
                                       "timezone": "UTC", "params": '{"order_id": "7"}'})
    assert page.status_code == 400 and "At most 120 characters (this one has 121)." in _name_label(page)
    assert not Schedule.objects.exists()
    schedule = schedule_make(automation, "n" * 120)
    old = "o" * 150  # saved before the bound (the column holds 200)
    Schedule.objects.filter(pk=schedule.pk).update(name=old)
    assert editor.patch(f"{LIST}{schedule.pk}/", {"name": old, "cron": "0 6 * * *"}, format="json").status_code == 200
    assert_error(editor.patch(f"{LIST}{schedule.pk}/", {"name": "p" * 150}, format="json"), 400, "invalid")


@pytest.mark.django_db
def test_a_name_in_use_and_a_bad_cron_are_reported_together(automation, editor):
    schedule_make(automation, "Nightly")
    error = assert_error(editor.post(LIST, body(automation, cron="nope"), format="json"), 400, "invalid")
    assert set(error["fields"]) == {"name", "cron"}


@pytest.mark.django_db
def test_the_database_refuses_a_second_name_past_the_check_and_the_services_answer_409(personas, automation,
                                                                                         monkeypatch):
    schedule = schedule_make(automation, "Nightly")
    trigger, _ = services.webhook_trigger_create(workspace=personas.workspace, user=None, automation=automation,
                                                 name="ERP")
    with pytest.raises(IntegrityError, match="one_schedule_name_per_workspace"), transaction.atomic():
        Schedule.objects.create(workspace=personas.workspace, automation=automation, name="NIGHTLY", cron="0 3 * * *")
    with pytest.raises(IntegrityError, match="one_webhook_name_per_workspace"), transaction.atomic():
        WebhookTrigger.objects.create(workspace=personas.workspace, automation=automation, name="erp", public_id="x",
                                      secret_ciphertext="x")
    # Two saves at once: both passed the check before either was written.
    monkeypatch.setattr("venus_rpa.triggers.services.schedules._name_check", lambda **kwargs: kwargs["name"])
    monkeypatch.setattr("venus_rpa.triggers.services.webhooks._name_check", lambda **kwargs: kwargs["name"])
    with pytest.raises(Conflict, match="A schedule named “nightly” exists already"):
        schedule_make(automation, "nightly")
    with pytest.raises(Conflict, match="A webhook named “Erp” exists already"):
        services.webhook_trigger_create(workspace=personas.workspace, user=None, automation=automation, name="Erp")
    assert [s.name for s in Schedule.objects.all()] == [schedule.name]
    assert [t.name for t in WebhookTrigger.objects.all()] == [trigger.name]


def _constraints_dropped():
    """Drop the two constraints for this test (rolled back with it), as before the migration."""
    with connection.schema_editor() as editor:
        for model in (Schedule, WebhookTrigger):
            for constraint in model._meta.constraints:
                editor.remove_constraint(model, constraint)


def _constraints_added():
    with connection.cursor() as cursor:  # the rows' deferred foreign-key checks, before the index is built
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    with connection.schema_editor() as editor:
        for model in (Schedule, WebhookTrigger):
            for constraint in model._meta.constraints:
                editor.add_constraint(model, constraint)


@pytest.mark.django_db
def test_the_migration_renames_later_duplicates_so_the_constraints_can_be_added(personas, automation,
                                                                               other_automation):
    _constraints_dropped()
    long = "L" * 200

    def schedule(name, on=automation):
        return Schedule.objects.create(workspace=on.workspace, automation=on, name=name, cron="0 3 * * *").pk

    def hook(name):
        return WebhookTrigger.objects.create(workspace=personas.workspace, automation=automation, name=name,
                                             public_id=f"p{WebhookTrigger.objects.count()}", secret_ciphertext="x").pk

    ids = [schedule("Nightly"), schedule("nightly"), schedule("Nightly (2)"), schedule("NIGHTLY"),
           schedule("Nightly", on=other_automation), schedule(long), schedule(long)]
    hooks = [hook("ERP"), hook("ERP"), hook("CRM")]
    migration.rename_duplicates(apps, None)
    names = dict(Schedule.objects.values_list("pk", "name"))
    assert [names[pk] for pk in ids] == ["Nightly", "nightly (3)", "Nightly (2)", "NIGHTLY (4)", "Nightly", long,
                                         "L" * 196 + " (2)"]
    assert [WebhookTrigger.objects.get(pk=pk).name for pk in hooks] == ["ERP", "ERP (2)", "CRM"]
    migration.rename_duplicates(apps, None)  # run again: nothing left to rename
    assert dict(Schedule.objects.values_list("pk", "name")) == names
    _constraints_added()  # what the migration's next steps do: no duplicate left to refuse them
