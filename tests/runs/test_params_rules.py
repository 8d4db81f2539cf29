"""One rule for run parameters in `run_start` / `params_validate`, whatever starts the run (API,
dashboard, schedule, webhook, command line): bounded in size, an empty required value refused;
and a run page shows a long value shortened, with its full length."""

from __future__ import annotations

import pytest

from venus_rpa.core.errors import InvalidInput
from venus_rpa.runs.models import Run, Trigger
from venus_rpa.runs.services import params_validate

BLANK_REQUIRED = "This parameter is required."  # the same words as the dashboard form's

pytestmark = pytest.mark.django_db

SCHEMA = {"type": "object", "properties": {"to": {"type": "string"}, "subject": {"type": "string"}},
          "required": ["to"]}


@pytest.fixture
def automation(personas):
    from venus_rpa.automations.services import automation_create

    return automation_create(
        workspace=personas.workspace, user=personas.owner, slug="mailer", name="Mailer",
        definition={"allowed_domains": ["mail.example.com"], "param_schema": SCHEMA,
                    "steps": [{"kind": "fill", "target": "To", "value": "{{to}}"}]})


@pytest.mark.parametrize("trigger", [Trigger.SCHEDULE, Trigger.WEBHOOK, Trigger.CLI, Trigger.DASHBOARD])
def test_every_start_path_refuses_a_too_long_value_and_an_empty_required_one(automation, trigger):
    from venus_rpa.runs.services import run_start

    with pytest.raises(InvalidInput) as too_long:
        run_start(automation=automation, params={"to": "a@example.com", "subject": "S" * 10_001}, trigger=trigger)
    assert too_long.value.fields == {"params.subject": [
        "Must be at most 10000 characters long (this value has 10001)."]}
    with pytest.raises(InvalidInput) as blank:
        run_start(automation=automation, params={"to": ""}, trigger=trigger)
    assert blank.value.fields == {"params.to": [BLANK_REQUIRED]}
    assert not Run.objects.exists()


def test_a_long_value_inside_a_list_counts_as_json(settings):
    settings.VENUS_PARAM_MAX_CHARS = 10
    with pytest.raises(InvalidInput) as exc:
        params_validate(schema={}, params={"tags": ["abcdef", "ghijkl"]})
    assert list(exc.value.fields) == ["params.tags"]
    assert params_validate(schema={}, params={"tags": ["ab"]}) == {"tags": ["ab"]}


def test_a_schedule_with_an_empty_required_parameter_is_refused_when_saved(automation, personas):
    from venus_rpa.triggers.services.schedules import schedule_create

    with pytest.raises(InvalidInput) as exc:
        schedule_create(workspace=personas.workspace, automation=automation, user=personas.owner, name="Daily",
                        cron="0 9 * * *", params={"to": ""})
    assert exc.value.fields == {"params.to": [BLANK_REQUIRED]}


def test_a_run_page_shows_a_long_value_shortened_with_its_length(automation):
    from venus_rpa.runs.models import params_shortened

    assert params_shortened({"s": "S" * 1_000_000, "n": 3, "l": ["x" * 600], "short": "ok"}) == {
        "s": "S" * 500 + "… [1,000,000 characters in all; first 500 shown]", "n": 3,
        "l": ["x" * 500 + "… [600 characters in all; first 500 shown]"], "short": "ok"}
    run = Run.objects.create(workspace=automation.workspace, automation=automation,
                             version=automation.current_version, params={"subject": "S" * 1_000_000})  # from before the limit
    assert len(run.params_shown["subject"]) < 600
