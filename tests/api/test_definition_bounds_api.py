"""Bounds on what an automation may hold: name, description, each step's texts, the number of
steps and the stored definition's size, refused in the API's one error shape. Before: a
5,000-character name and a 2 MB step value were saved (SQLite enforces no column length)."""

from __future__ import annotations

import pytest

from tests.api.conftest import assert_error
from tests.api.test_automations_api import LIST, detail, payload, simple_definition
from venus_rpa.automations import checks
from venus_rpa.automations.models import Automation
from workers import steps as S

pytestmark = pytest.mark.django_db


def test_a_name_over_120_characters_is_refused_and_nothing_is_saved(owner, personas):
    error = assert_error(owner.post(LIST, payload(simple_definition(), name="N" * 150), format="json"), 400, "invalid")
    assert "name" in error["fields"] and "120" in error["fields"]["name"][0]
    assert not Automation.objects.filter(workspace=personas.workspace).exists()
    assert owner.post(LIST, payload(simple_definition(), name="N" * 120), format="json").status_code == 201


def test_a_description_over_2000_characters_is_refused(owner):
    error = assert_error(owner.post(LIST, payload(simple_definition(), description="d" * 2001), format="json"), 400)
    assert "description" in error["fields"]


def test_a_renamed_automation_is_held_to_the_bound_and_an_old_long_name_may_stay(owner, personas):
    assert owner.post(LIST, payload(simple_definition()), format="json").status_code == 201
    error = assert_error(owner.patch(detail("expense"), {"name": "N" * 121}, format="json"), 400)
    assert "name" in error["fields"]
    Automation.objects.filter(slug="expense").update(name="L" * 150)  # saved before the bound existed
    response = owner.patch(detail("expense"), {"name": "L" * 150, "goal": "Still editable"}, format="json")
    assert response.status_code == 200, response.json()


def test_a_step_value_over_10000_characters_is_refused_under_its_field(owner, personas):
    definition = simple_definition(steps=[{"kind": "fill", "target": "Search", "value": "v" * 10_001}])
    error = assert_error(owner.post(LIST, payload(definition), format="json"), 400, "invalid")
    assert error["fields"]["steps.0.fill.value"] == ["String should have at most 10000 characters (this one has 10001)"]
    assert not Automation.objects.filter(workspace=personas.workspace).exists()


def test_a_two_megabyte_value_is_refused_with_the_size_of_the_definition(owner, personas):
    definition = simple_definition(steps=[{"kind": "fill", "target": "Search", "value": "v" * 2_000_000}])
    error = assert_error(owner.post(LIST, payload(definition), format="json"), 400, "invalid")
    assert "steps.0.fill.value" in error["fields"]
    assert "at most 256 KB" in error["fields"]["definition"][0]


def test_labels_and_targets_have_shorter_bounds(owner):
    definition = simple_definition(steps=[{"kind": "click", "target": {"label": "L" * 501}},
                                          {"kind": "select", "target": "Country", "option": "o" * 501}])
    error = assert_error(owner.post(LIST, payload(definition), format="json"), 400)
    assert {"steps.0.click.target.label", "steps.1.select.option"} <= set(error["fields"])


def test_a_definition_over_256_kb_is_refused_though_each_text_is_within_bounds(owner, personas):
    steps = [{"kind": "fill", "target": f"Field {i}", "value": "v" * 9_000} for i in range(30)]
    error = assert_error(owner.post(LIST, payload(simple_definition(steps=steps)), format="json"), 400)
    assert set(error["fields"]) == {"definition"}, error
    assert "KB; at most 256 KB" in error["fields"]["definition"][0]
    assert not Automation.objects.filter(workspace=personas.workspace).exists()


def test_more_than_5000_steps_are_refused(owner):
    steps = [{"kind": "press", "key": "a"}] * (checks.STEPS_MAX + 1)
    error = assert_error(owner.post(LIST, payload(simple_definition(steps=steps)), format="json"), 400)
    assert "at most 5,000 steps" in error["fields"]["steps"][0]


def test_the_bounds_hold_when_saving_only_not_for_a_run_filling_in_values():
    """A value filled in at run time (`{{steps.page.value}}`) and a version saved before the bounds
    existed still run: the bounds are checked under the SAVING context only."""
    long = {"kind": "fill", "target": "Notes", "value": "x" * 20_000}
    assert S.AutomationSpec.model_validate({"steps": [long]}).steps[0].value == "x" * 20_000
    with pytest.raises(Exception, match="at most 10000 characters"):
        S.AutomationSpec.model_validate({"steps": [long]}, context=S.SAVING)
    step = S.FillStep(target="Notes", value="{{notes}}")
    assert S.render_step(step, {"notes": "y" * 20_000}).value == "y" * 20_000
