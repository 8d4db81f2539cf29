"""The run launcher: inputs from the parameter schema, `params_validate` messages inline."""

from __future__ import annotations

from unittest import mock

from venus_rpa.runs.models import Run


def test_the_form_follows_the_schema(editor_client, automation):
    html = editor_client.get(f"/automations/{automation.slug}/run/").content.decode()
    assert 'type="date" name="param_when"' in html
    assert 'type="number" name="param_count" id="param_count" value="2" step="1"' in html
    assert ('<select name="param_category" id="param_category"><option value="">–</option>'
            '<option selected>Travel</option><option>Meals</option></select>') in html
    assert 'type="checkbox" name="param_urgent"' in html
    assert 'type="text" name="param_title"' in html


def test_invalid_parameters_come_back_with_messages(editor_client, automation):
    response = editor_client.post(f"/automations/{automation.slug}/run/",
                                  {"param_title": "", "param_count": "lots", "param_when": "2026-01-02"})
    assert response.status_code == 400
    html = response.content.decode()
    assert "The parameters do not match the automation&#x27;s parameter schema." in html
    title = html.split('name="param_title"')[1].split('class="field')[0]
    assert "This parameter is required." in title
    count = html.split('name="param_count"')[1].split('class="field')[0]
    assert "Must be a whole number (integer)." in count
    assert 'value="lots"' in html  # what was typed stays
    assert not Run.objects.exists()


def test_valid_parameters_start_a_run_and_open_its_page(editor_client, automation):
    with mock.patch("venus_rpa.runs.services.run_enqueue") as enqueue:
        response = editor_client.post(f"/automations/{automation.slug}/run/", {
            "param_title": "Taxi", "param_when": "2026-03-04", "param_count": "3", "param_category": "Meals",
            "param_urgent": "on"})
    run = Run.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/runs/{run.pk}/"
    assert run.params == {"title": "Taxi", "when": "2026-03-04", "count": 3, "category": "Meals", "urgent": True}
    assert run.trigger == "dashboard"
    assert enqueue.call_count <= 1  # on_commit: not called inside the test transaction


def test_a_cleared_required_field_is_an_error_not_its_default(editor_client, automation):
    """A required parameter with a default, cleared in the form, must not silently run with the default."""
    from venus_rpa.automations.models import AutomationVersion

    version = automation.current_version
    schema = {**version.param_schema, "required": [*version.param_schema.get("required", []), "count"]}
    AutomationVersion.objects.filter(pk=version.pk).update(param_schema=schema)
    assert schema["properties"]["count"]["default"] == 2
    response = editor_client.post(f"/automations/{automation.slug}/run/",
                                  {"param_title": "Taxi", "param_count": "  ", "param_when": "2026-01-02"})
    assert response.status_code == 400
    count = response.content.decode().split('name="param_count"')[1].split('class="field')[0]
    assert "This parameter is required (a cleared field does not fall back to its default)." in count
    assert not Run.objects.exists()


def test_a_too_long_value_is_an_error_under_its_input_and_no_run(editor_client, automation, settings):
    settings.VENUS_PARAM_MAX_CHARS = 50
    response = editor_client.post(f"/automations/{automation.slug}/run/",
                                  {"param_title": "T" * 51, "param_when": "2026-01-02"})
    assert response.status_code == 400
    title = response.content.decode().split('name="param_title"')[1].split('class="field')[0]
    assert "Must be at most 50 characters long (this value has 51)." in title
    assert not Run.objects.exists()


def test_an_emptied_required_field_is_refused_by_the_service_rule(editor_client, automation):
    """The form passes the emptied field on; `params_validate` refuses it (the same rule as the API's)."""
    from venus_rpa.dashboard.launcher import launcher_params
    from django.http import QueryDict

    schema = automation.current_version.param_schema
    assert launcher_params(schema, QueryDict("param_title=&param_when=2026-01-02"))["title"] == ""
    response = editor_client.post(f"/automations/{automation.slug}/run/", {"param_title": " ", "param_when": "2026-01-02"})
    title = response.content.decode().split('name="param_title"')[1].split('class="field')[0]
    assert "This parameter is required." in title and "Must not be empty" not in title
    assert not Run.objects.exists()


def test_the_run_page_shortens_a_huge_parameter_value(editor_client, automation):
    run = Run.objects.create(workspace=automation.workspace, automation=automation,
                             version=automation.current_version, params={"title": "S" * 1_000_000})
    html = editor_client.get(f"/runs/{run.pk}/").content.decode()
    assert "S" * 500 + "… [1,000,000 characters in all; first 500 shown]" in html
    assert "S" * 501 not in html
