"""Run parameters through the API: bounded in size, an empty required value refused the same way
as on the dashboard's form, and a `params` that is not an object said in those words."""

from __future__ import annotations

import json

import pytest

from tests.api.conftest import assert_error
from venus_rpa.runs.models import Run

BLANK_REQUIRED = "This parameter is required."
BLANK_REQUIRED_WITH_DEFAULT = "This parameter is required (a cleared field does not fall back to its default)."
PARAMS_NOT_OBJECT = 'Must be an object of parameter name → value, such as {"title": "Taxi"}.'


def start(slug: str) -> str:
    return f"/api/automations/{slug}/runs/"


@pytest.fixture
def mailer(personas):
    """An automation with a required `to` (no default) and an optional `subject`."""
    from venus_rpa.automations.services import automation_create

    return automation_create(
        workspace=personas.workspace, user=personas.owner, slug="mailer", name="Mailer",
        definition={
            "allowed_domains": ["mail.example.com"],
            "param_schema": {"type": "object", "properties": {
                "to": {"type": "string"}, "subject": {"type": "string"},
                "count": {"type": "integer", "default": 1}}, "required": ["to", "count"]},
            "steps": [{"kind": "fill", "target": "To", "value": "{{to}}"},
                      {"kind": "fill", "target": "Subject", "value": "{{subject}}"}],
        },
    )


@pytest.mark.django_db
def test_a_megabyte_parameter_value_is_a_400_naming_it_and_no_run(owner, mailer, settings):
    assert settings.VENUS_PARAM_MAX_CHARS == 10_000
    response = owner.post(start("mailer"), {"params": {"to": "a@example.com", "subject": "S" * 1_000_000}},
                          format="json")

    error = assert_error(response, 400, "invalid")
    assert error["fields"] == {"params.subject": [
        "Must be at most 10000 characters long (this value has 1000000)."]}
    assert not Run.objects.exists()


@pytest.mark.django_db
def test_a_value_at_the_bound_is_accepted_and_the_bound_is_a_setting(owner, mailer, settings):
    assert owner.post(start("mailer"), {"params": {"to": "a@example.com", "subject": "S" * 10_000}},
                      format="json").status_code == 202
    settings.VENUS_PARAM_MAX_CHARS = 20
    error = assert_error(owner.post(start("mailer"), {"params": {"to": "a@example.com", "subject": "S" * 21}},
                                    format="json"), 400, "invalid")
    assert "params.subject" in error["fields"]
    assert Run.objects.count() == 1


@pytest.mark.django_db
def test_params_too_large_together_or_too_many_keys_are_a_400(owner, mailer, settings):
    settings.VENUS_PARAMS_MAX_BYTES = 1000
    params = {"to": "a@example.com", "subject": "S" * 600, "body": "B" * 600}
    error = assert_error(owner.post(start("mailer"), {"params": params}, format="json"), 400, "invalid")
    assert error["fields"]["params"][0].startswith("The parameters together must be at most 1000 bytes of JSON")

    settings.VENUS_PARAMS_MAX_KEYS = 3
    many = {f"p{i}": "x" for i in range(4)}
    error = assert_error(owner.post(start("mailer"), {"params": many}, format="json"), 400, "invalid")
    assert error["fields"] == {"params": ["At most 3 parameters may be given (4 were)."]}
    assert not Run.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("blank", ["", "   "])
def test_an_empty_required_parameter_is_refused_like_on_the_dashboard(owner, mailer, blank):
    response = owner.post(start("mailer"), {"params": {"to": blank}}, format="json")

    error = assert_error(response, 400, "invalid")
    assert error["fields"] == {"params.to": [BLANK_REQUIRED]}
    assert not Run.objects.exists()


@pytest.mark.django_db
def test_an_empty_required_parameter_with_a_default_does_not_fall_back_to_it(owner, mailer):
    response = owner.post(start("mailer"), {"params": {"to": "a@example.com", "count": ""}}, format="json")

    error = assert_error(response, 400, "invalid")
    assert error["fields"] == {"params.count": [BLANK_REQUIRED_WITH_DEFAULT]}  # said once, not also "Must be a whole number"
    assert not Run.objects.exists()


@pytest.mark.django_db
def test_an_empty_optional_parameter_is_still_accepted(owner, mailer):
    response = owner.post(start("mailer"), {"params": {"to": "a@example.com", "subject": ""}}, format="json")

    assert response.status_code == 202, response.json()
    assert Run.objects.get().params["subject"] == ""


@pytest.mark.django_db
@pytest.mark.parametrize("params", ["x", "{\"to\": \"a@example.com\"}", 3, ["to"]])
def test_params_that_are_not_an_object_say_so_not_that_the_json_is_invalid(owner, mailer, params):
    response = owner.post(start("mailer"), {"params": params}, format="json")

    error = assert_error(response, 400, "invalid")
    assert error["fields"] == {"params": [PARAMS_NOT_OBJECT]}, error
    assert "JSON" not in json.dumps(error["fields"])
    assert not Run.objects.exists()


@pytest.mark.django_db
def test_in_a_multipart_body_params_is_still_json_text(owner, mailer):
    ok = owner.post(start("mailer"), {"params": json.dumps({"to": "a@example.com"})}, format="multipart")
    assert ok.status_code == 202, ok.json()

    bad = assert_error(owner.post(start("mailer"), {"params": "{to:"}, format="multipart"), 400, "invalid")
    assert bad["fields"]["params"][0].startswith("Not valid JSON: line 1, column 2")
    listed = assert_error(owner.post(start("mailer"), {"params": "[1]"}, format="multipart"), 400, "invalid")
    assert listed["fields"] == {"params": [PARAMS_NOT_OBJECT]}
