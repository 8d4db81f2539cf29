"""What a run would refuse is refused at save, in the user's words: a goto that is not an
address, a credential without (or with bad) domains, a parameter that fails a pattern (described,
the regex never shown). A credential saved without domains before they were required is typed
nowhere: the step fails with a clear reason."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.api.conftest import assert_error
from tests.api.test_automations_api import LIST, payload, simple_definition
from tests.dashboard.test_editor import editor_post

CODE = "^[A-Z]{3}-[0-9]+$"


def schema_with(**code) -> dict:
    return {"type": "object", "properties": {"code": {"type": "string", "pattern": CODE, **code}},
            "required": ["code"]}


@pytest.mark.django_db
def test_a_goto_that_is_not_an_address_is_refused_at_save(owner):
    definition = simple_definition(steps=[{"kind": "goto", "url": "not a url"}])
    error = assert_error(owner.post(LIST, payload(definition), format="json"), 400, "invalid")
    assert error["fields"]["steps.0.url"] == [
        "Not a web address: give one such as https://example.com/page, or a path on the start URL's site such as /login."]
    good = simple_definition(steps=[{"kind": "goto", "url": "/orders/{{ query }}"}])
    assert owner.post(LIST, payload(good), format="json").status_code == 201


@pytest.mark.django_db
@pytest.mark.parametrize(("surface", "start", "where"), [("desktop", "mousepad", "the desktop"),
                                                         ("android", "com.example.notes", "Android")])
def test_a_web_only_step_on_android_or_the_desktop_is_refused_at_save(owner, surface, start, where):
    definition = simple_definition(surface=surface, start_url=start, allowed_domains=[], steps=[
        {"kind": "download", "target": "Monthly report", "into": "report"},
        {"kind": "if", "condition": {"text_visible": "Receipt"},
         "steps": [{"kind": "upload", "target": "Receipt", "filename": "r.txt", "content": "r"}]},
        {"kind": "click", "target": "Save"}])
    error = assert_error(owner.post(LIST, payload(definition), format="json"), 400, "invalid")
    assert error["fields"]["steps.0.kind"] == [
        f"A download step works on web pages only; this automation runs on {where} "
        "(use click, fill, press, wait_for, assert, extract or an agent step)."]
    assert "steps.1.steps.0.kind" in error["fields"] and "steps.2.kind" not in error["fields"]


@pytest.mark.django_db
@pytest.mark.parametrize(("domains", "message"), [
    ([], "List the domains this credential may be typed on, such as erp.example.com."),
    (["not-a-url!"], "'not-a-url!' is not a host name such as example.com."),
    (["erp example.com"], "'erp example.com' is not a host name (it has spaces): give one domain per line, such as "
                          "example.com or *.example.com."),  # as an automation's allowed domains
    (["https://erp.example.com/login"], "'https://erp.example.com/login' is a URL: enter only its host, such as "
                                        "erp.example.com."),
])
def test_a_credential_without_valid_domains_is_refused_at_save(owner, domains, message):
    response = owner.post("/api/credentials/", {"name": "erp", "domains": domains, "fields": {"password": "x"}},
                          format="json")
    assert assert_error(response, 400, "invalid")["fields"] == {"domains": [message]}


@pytest.mark.django_db
def test_credential_domains_are_stored_in_canonical_form(owner):
    response = owner.post("/api/credentials/", {"name": "erp", "domains": ["ERP.Example.com.", "erp.example.com"],
                                                "fields": {"password": "x"}}, format="json")
    assert response.status_code == 201 and response.json()["domains"] == ["erp.example.com"]


def test_the_credentials_page_refuses_no_domains_under_the_domains_field(personas):
    from venus_rpa.automations.models import Credential

    client = Client()
    client.force_login(personas.teammate)
    response = client.post("/credentials/", {"name": "erp", "domains": "", "field_name": ["password"],
                                             "field_value": ["s3cret"]})
    assert response.status_code == 400
    domains = response.content.decode().split('name="domains"')[1].split("</label>")[0]
    assert "List the domains this credential may be typed on" in domains
    assert not Credential.objects.exists()


def test_the_editor_refuses_a_goto_that_is_not_an_address_and_empty_domains(personas):
    client = Client()
    client.force_login(personas.teammate)
    response = client.post("/automations/new/", editor_post(steps=[{"kind": "goto", "url": "not a url"}],
                                                            allowed_domains=""))
    html = response.content.decode()
    assert response.status_code == 400
    row = html.split('class="step-row')[1]
    assert "Step 1 (goto) › URL: Not a web address" in row.split('name="s-u0-url"')[1].split("</label>")[0]
    box = html.split('name="allowed_domains"')[1].split("</label>")[0]
    assert "List the domains runs may visit" in box
    assert "Not a web address" not in html.split('class="step-row')[0]  # once, under its field


@pytest.mark.django_db
@pytest.mark.parametrize(("code_schema", "message"), [
    ({"description": "An order code such as ABC-123"}, "Not in the expected form: An order code such as ABC-123."),
    ({"title": "Order code"}, "Not in the expected form: Order code."),
    ({"examples": ["ABC-123"]}, "Must look like ABC-123."),
    ({"default": "XYZ-9"}, "Must look like XYZ-9."),
    ({"format": "date"}, "Must look like 2026-01-31."),
    ({}, "Not in the form this automation expects."),
])
def test_a_parameter_failing_its_pattern_is_described_and_the_regex_never_shown(owner, personas, code_schema,
                                                                                 message):
    from venus_rpa.automations.services import automation_create

    automation = automation_create(workspace=personas.workspace, user=personas.owner, slug="lookup", name="Lookup",
                                   definition=simple_definition(param_schema=schema_with(**code_schema), steps=[
                                       {"kind": "fill", "target": "Search", "value": "{{code}}"}]))
    response = owner.post(f"/api/automations/{automation.slug}/runs/", {"params": {"code": "abc"}}, format="json")
    error = assert_error(response, 400, "invalid")
    assert error["fields"] == {"params.code": [message]}
    assert CODE not in response.content.decode()


@pytest.mark.django_db
def test_common_schema_errors_are_in_words(owner, personas):
    from venus_rpa.core.errors import InvalidInput
    from venus_rpa.runs.services import params_validate

    schema = {"type": "object", "additionalProperties": False, "properties": {
        "n": {"type": "integer", "minimum": 1}, "kind": {"enum": ["a", "b"]}, "name": {"type": "string", "minLength": 1}}}
    with pytest.raises(InvalidInput) as info:
        params_validate(schema=schema, params={"n": "x", "kind": "c", "name": "", "extra": 1})
    assert info.value.fields == {"params": ["Not a parameter of this automation: extra."],
                                 "params.kind": ["Must be one of: a, b."], "params.n": ["Must be a whole number (integer)."],
                                 "params.name": ["Must not be empty."]}
    with pytest.raises(InvalidInput) as info:
        params_validate(schema=schema, params={"n": 0})
    assert info.value.fields == {"params.n": ["Must be at least 1."]}


@pytest.mark.django_db
def test_a_credential_saved_without_domains_before_is_typed_nowhere(personas):
    from venus_rpa.automations.models import Credential
    from venus_rpa.automations.services import automation_create, credential_set
    from venus_rpa.runs.services import version_secrets
    from workers.errors import StepError

    credential_set(workspace=personas.workspace, name="erp", fields={"password": "s3cret"}, domains=["erp.example.com"])
    automation = automation_create(workspace=personas.workspace, user=personas.owner, slug="erp", name="ERP",
                                   definition=simple_definition(credentials=["erp"]))
    Credential.objects.filter(name="erp").update(domains=[])  # as saved by an older version
    box = version_secrets(workspace=personas.workspace, version=automation.current_version)
    with pytest.raises(StepError, match="credential 'erp' has no domains, so it may not be typed on any site"):
        box.reveal("{{credentials.erp.password}}", url="https://erp.example.com/login")
