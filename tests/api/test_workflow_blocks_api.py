"""Automations API with values between steps and blocks: accepted and returned nested; bad input
(unknown value name, loop without cap, malformed condition, over-deep nesting) is a field error at
save and nothing is stored."""

from __future__ import annotations

import pytest

from tests.api.conftest import assert_error
from tests.api.test_automations_api import LIST, detail, payload, simple_definition
from venus_rpa.automations.models import Automation

READ = {"kind": "extract", "name": "Read the total", "target": "Total", "into": "total"}
TYPE = {"kind": "fill", "name": "Type the total", "target": "Amount", "value": "{{steps.total.value}}"}


def blocks(*steps) -> dict:
    return payload(simple_definition(steps=list(steps)))


def refused(owner, body: dict) -> dict[str, list[str]]:
    error = assert_error(owner.post(LIST, body, format="json"), 400, "invalid")
    assert not Automation.objects.exists()
    return error["fields"]


@pytest.mark.django_db
def test_blocks_and_values_are_accepted_and_returned_nested(owner):
    repeat = {"kind": "repeat", "until": {"element": {"role": "link", "name": "Next"}, "negate": True},
              "max_iterations": 5, "steps": [{"kind": "click", "target": "Next"}, {**READ, "append": True}]}
    body = blocks(READ, {"kind": "if", "name": "Big", "condition": {"value": "total", "op": "greater_than", "to": "100"},
                         "steps": [TYPE], "else": [repeat]})
    assert owner.post(LIST, body, format="json").status_code == 201
    steps = owner.get(detail("expense")).json()["version"]["steps"]
    assert steps[1]["kind"] == "if" and steps[1]["steps"][0]["value"] == "{{steps.total.value}}"
    assert steps[1]["else"][0]["max_iterations"] == 5 and steps[1]["else"][0]["steps"][1]["append"] is True


@pytest.mark.django_db
def test_an_unknown_value_name_is_a_field_error_naming_the_step(owner):
    fields = refused(owner, blocks(READ, {**TYPE, "value": "{{steps.totl.value}}"}))
    assert list(fields) == ["steps.1"]
    assert fields["steps.1"][0].startswith("Step 'Type the total' (steps.1) uses value 'totl'")


@pytest.mark.django_db
def test_a_value_used_before_it_is_stored_is_a_field_error(owner):
    fields = refused(owner, blocks(TYPE, READ))
    assert "before it is stored" in fields["steps.0"][0]


@pytest.mark.django_db
def test_a_loop_without_a_cap_is_refused(owner):
    fields = refused(owner, blocks({"kind": "repeat", "until": {"text_visible": "Done"}, "steps": [READ]}))
    assert fields == {"steps.0.repeat.max_iterations": ["Field required"]}


@pytest.mark.django_db
def test_a_malformed_condition_is_a_field_error(owner):
    fields = refused(owner, blocks({"kind": "if", "condition": {"text_visible": "a", "url_matches": "b"}, "steps": [READ]}))
    assert list(fields) == ["steps.0.if.condition"]
    assert "exactly one of" in fields["steps.0.if.condition"][0]


@pytest.mark.django_db
def test_over_deep_nesting_is_a_field_error(owner):
    step = READ
    for _ in range(5):
        step = {"kind": "if", "condition": {"text_visible": "x"}, "steps": [step]}
    fields = refused(owner, blocks(step))
    assert any("nests blocks more than 4 deep" in m for m in sum(fields.values(), []))


@pytest.mark.django_db
def test_a_bad_step_inside_a_block_is_named_by_its_path(owner):
    fields = refused(owner, blocks({"kind": "if", "condition": {"text_visible": "x"},
                                    "steps": [{"kind": "goto", "url": "ftp://elsewhere.example.com/"}]}))
    assert list(fields) == ["steps.0.steps.0.url"]
