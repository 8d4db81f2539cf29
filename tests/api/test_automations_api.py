"""Automations API: create/validate, versioning on update, roles, isolation. Authentication and
the OpenAPI document are in test_api_auth.py."""

from __future__ import annotations

import copy

import json

import pytest

from tests.api.conftest import PRACTICE_PASSWORD, assert_error
from venus_rpa.automations.models import Automation, AutomationVersion

LIST = "/api/automations/"


def detail(slug: str) -> str:
    return f"/api/automations/{slug}/"


def versions(slug: str) -> str:
    return f"/api/automations/{slug}/versions/"


def payload(definition: dict, slug: str = "expense", name: str = "Expense report", **extra) -> dict:
    return {"slug": slug, "name": name, **definition, **extra}


def simple_definition(**overrides) -> dict:
    """A small valid definition that needs no credential."""
    base = {
        "start_url": "https://erp.example.com/",
        "allowed_domains": ["erp.example.com"],
        "param_schema": {
            "type": "object",
            "properties": {"query": {"type": "string"}},
            "required": ["query"],
            "additionalProperties": False,
        },
        "steps": [
            {"kind": "fill", "target": "Search", "value": "{{query}}"},
            {"kind": "press", "key": "Enter"},
        ],
    }
    return {**base, **overrides}


# --- create --------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_owner_creates_the_demo_automation_as_version_1(owner, personas, practice_credential, definition):
    response = owner.post(LIST, payload(definition, description="Files an expense"), format="json")

    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["slug"] == "expense"
    assert body["name"] == "Expense report"
    assert body["description"] == "Files an expense"
    version = body["version"]
    assert version["number"] == 1
    assert version["change_note"] == "Created"
    assert version["credentials"] == ["practice-login"]
    assert version["param_schema"] == definition["param_schema"]
    assert len(version["steps"]) == len(definition["steps"])
    # Steps are stored in canonical form: string targets become objects.
    assert version["steps"][0]["target"] == {"text": "Username"}
    # The credential is referenced by placeholder, never resolved.
    assert PRACTICE_PASSWORD not in response.content.decode()

    automation = Automation.objects.get(workspace=personas.workspace, slug="expense")
    assert automation.created_by == personas.owner
    assert automation.versions.count() == 1
    assert automation.current_version.number == 1


@pytest.mark.django_db
def test_created_automation_is_listed_and_fetchable(owner, practice_credential, definition):
    assert owner.post(LIST, payload(definition), format="json").status_code == 201

    listed = owner.get(LIST)
    assert listed.status_code == 200
    assert [a["slug"] for a in listed.json()["results"]] == ["expense"]

    fetched = owner.get(detail("expense"))
    assert fetched.status_code == 200
    assert fetched.json()["version"]["number"] == 1


@pytest.mark.django_db
def test_editor_can_create_an_automation(editor, personas):
    response = editor.post(LIST, payload(simple_definition()), format="json")
    assert response.status_code == 201, response.json()
    assert Automation.objects.get(slug="expense").created_by == personas.teammate


@pytest.mark.django_db
def test_duplicate_slug_in_the_same_workspace_is_a_409_conflict(owner):
    assert owner.post(LIST, payload(simple_definition()), format="json").status_code == 201

    response = owner.post(LIST, payload(simple_definition(), name="Another"), format="json")

    error = assert_error(response, 409, "conflict")
    assert "slug" in error["fields"]
    assert Automation.objects.filter(slug="expense").count() == 1


@pytest.mark.django_db
def test_same_slug_in_another_workspace_is_allowed(owner, outsider):
    assert owner.post(LIST, payload(simple_definition()), format="json").status_code == 201
    assert outsider.post(LIST, payload(simple_definition()), format="json").status_code == 201
    assert Automation.objects.filter(slug="expense").count() == 2


@pytest.mark.django_db
def test_a_missing_name_is_a_field_error_and_a_missing_slug_is_made_from_it(owner):
    error = assert_error(owner.post(LIST, simple_definition(), format="json"), 400, "invalid")
    assert set(error["fields"]) == {"name"}
    response = owner.post(LIST, {**simple_definition(), "name": "Weekly Report"}, format="json")
    assert response.status_code == 201 and response.json()["slug"] == "weekly-report"


@pytest.mark.django_db
def test_a_step_that_is_not_an_object_is_a_field_error_naming_the_step(owner):
    definition = simple_definition(steps=[{"kind": "press", "key": "Enter"}, "click the button"])
    error = assert_error(owner.post(LIST, payload(definition), format="json"), 400, "invalid")
    assert "steps.1" in error["fields"]
    assert not Automation.objects.exists()


@pytest.mark.django_db
def test_step_missing_a_required_field_is_a_400_naming_the_step_and_field(owner):
    definition = simple_definition(steps=[{"kind": "press", "key": "Enter"}, {"kind": "fill", "target": "Search"}])
    error = assert_error(owner.post(LIST, payload(definition), format="json"), 400, "invalid")
    assert "steps.1.fill.value" in error["fields"], error["fields"]
    assert not Automation.objects.exists()


@pytest.mark.django_db
def test_unknown_step_kind_is_a_400_naming_the_step(owner):
    definition = simple_definition(steps=[{"kind": "teleport", "target": "Search"}])
    error = assert_error(owner.post(LIST, payload(definition), format="json"), 400, "invalid")
    assert "steps.0" in error["fields"]
    assert "teleport" in " ".join(error["fields"]["steps.0"])


@pytest.mark.django_db
def test_step_without_a_kind_is_a_400_naming_the_step(owner):
    definition = simple_definition(steps=[{"target": "Search", "value": "x"}])
    error = assert_error(owner.post(LIST, payload(definition), format="json"), 400, "invalid")
    assert "steps.0" in error["fields"]


@pytest.mark.django_db
def test_click_target_with_no_way_to_find_it_is_a_400_naming_the_target(owner):
    definition = simple_definition(steps=[{"kind": "click", "target": {"nth": 1}}])
    error = assert_error(owner.post(LIST, payload(definition), format="json"), 400, "invalid")
    assert "steps.0.click.target" in error["fields"], error["fields"]


@pytest.mark.django_db
def test_a_target_scoped_within_a_region_and_near_a_text_is_accepted_as_given(owner):
    target = {"label": "Email address", "within": "Log In", "near": "Forgot password?"}
    definition = simple_definition(steps=[{"kind": "fill", "target": target, "value": "a@b.example"}])
    response = owner.post(LIST, payload(definition), format="json")
    assert response.status_code == 201, response.json()
    assert Automation.objects.get().current_version.steps[0]["target"] == target


@pytest.mark.django_db
def test_an_empty_within_is_a_400_naming_the_target(owner):
    definition = simple_definition(steps=[{"kind": "click", "target": {"text": "Save", "within": " "}}])
    error = assert_error(owner.post(LIST, payload(definition), format="json"), 400, "invalid")
    assert any(key.startswith("steps.0.click.target") for key in error["fields"]), error["fields"]
    assert "within needs visible words" in json.dumps(error["fields"])


@pytest.mark.django_db
def test_wait_for_without_anything_to_wait_for_is_a_400_naming_the_step(owner):
    definition = simple_definition(steps=[{"kind": "press", "key": "Enter"}, {"kind": "wait_for", "name": "Wait"}])
    error = assert_error(owner.post(LIST, payload(definition), format="json"), 400, "invalid")
    assert any(key.startswith("steps.1") for key in error["fields"]), error["fields"]


@pytest.mark.django_db
def test_unexpected_field_in_a_step_is_a_400_naming_it(owner):
    definition = simple_definition(steps=[{"kind": "press", "key": "Enter", "selector": "#q"}])
    error = assert_error(owner.post(LIST, payload(definition), format="json"), 400, "invalid")
    assert "steps.0.press.selector" in error["fields"], error["fields"]


@pytest.mark.django_db
def test_step_using_an_undeclared_param_is_a_400_naming_the_step(owner):
    definition = simple_definition(steps=[
        {"kind": "fill", "target": "Search", "value": "{{query}}"},
        {"kind": "fill", "target": "Amount", "value": "{{amount}}"},
    ])
    error = assert_error(owner.post(LIST, payload(definition), format="json"), 400, "invalid")
    assert "steps.1" in error["fields"], error["fields"]
    assert "amount" in " ".join(error["fields"]["steps.1"])
    assert "steps.0" not in error["fields"]
    assert not Automation.objects.exists()


@pytest.mark.django_db
def test_goal_using_an_undeclared_param_is_a_400(owner):
    definition = simple_definition(goal="Search for {{product}}")
    error = assert_error(owner.post(LIST, payload(definition), format="json"), 400, "invalid")
    assert "goal" in error["fields"]


@pytest.mark.django_db
def test_start_url_using_an_undeclared_param_is_a_400_on_start_url(owner):
    definition = simple_definition(start_url="https://erp.example.com/{{tenant}}/")
    error = assert_error(owner.post(LIST, payload(definition), format="json"), 400, "invalid")
    assert "start_url" in error["fields"], error["fields"]
    assert "goal" not in error["fields"]


@pytest.mark.django_db
def test_success_criteria_may_use_declared_params_only_and_no_credential(owner):
    definition = simple_definition(success_criteria={"text_visible": "Filed {{title}}"})
    error = assert_error(owner.post(LIST, payload(definition), format="json"), 400, "invalid")
    assert error["fields"]["success_criteria"] == ["Uses parameter(s) not in the parameter schema: title"]
    definition = simple_definition(success_criteria={"text_visible": "{{credentials.erp.password}}"})
    error = assert_error(owner.post(LIST, payload(definition), format="json"), 400, "invalid")
    assert any("may not use a credential" in m for m in error["fields"]["success_criteria"])


@pytest.mark.django_db
def test_unknown_definition_field_is_a_400(owner):
    response = owner.post(LIST, payload({"stepz": [{"kind": "press", "key": "Enter"}]}), format="json")
    error = assert_error(response, 400, "invalid")
    assert "stepz" in error["fields"]


@pytest.mark.django_db
@pytest.mark.parametrize("param_schema", [
    {"type": "array", "items": {"type": "string"}},          # not an object
    {"type": "object", "properties": {"query": {"type": "strin"}}},  # not a JSON Schema type
    {"type": "object", "required": "query"},                 # required must be a list
])
def test_invalid_param_schema_is_a_400_on_param_schema(owner, param_schema):
    definition = simple_definition(param_schema=param_schema, steps=[{"kind": "press", "key": "Enter"}])
    error = assert_error(owner.post(LIST, payload(definition), format="json"), 400, "invalid")
    assert "param_schema" in error["fields"], error["fields"]


@pytest.mark.django_db
def test_param_schema_that_is_not_an_object_is_a_400(owner):
    definition = simple_definition(param_schema=["query"], steps=[{"kind": "press", "key": "Enter"}])
    error = assert_error(owner.post(LIST, payload(definition), format="json"), 400, "invalid")
    assert "param_schema" in error["fields"]


@pytest.mark.django_db
def test_invalid_output_schema_is_a_400(owner):
    definition = simple_definition(output_schema={"type": "objekt"})
    error = assert_error(owner.post(LIST, payload(definition), format="json"), 400, "invalid")
    assert "output_schema" in error["fields"]


@pytest.mark.django_db
def test_demo_definition_without_its_credential_is_a_400_on_credentials(owner, definition):
    # No `practice-login` credential exists in the workspace.
    error = assert_error(owner.post(LIST, payload(definition), format="json"), 400, "invalid")
    assert "credentials" in error["fields"]
    assert "practice-login" in " ".join(error["fields"]["credentials"])
    assert not Automation.objects.exists()


@pytest.mark.django_db
def test_step_placeholder_for_an_unknown_credential_is_a_400(owner, practice_credential):
    definition = simple_definition(
        steps=[{"kind": "fill", "target": "Password", "value": "{{credentials.erp.password}}"}],
    )
    error = assert_error(owner.post(LIST, payload(definition), format="json"), 400, "invalid")
    assert "erp" in " ".join(error["fields"]["credentials"])


@pytest.mark.django_db
def test_another_workspaces_credential_does_not_count(owner, personas):
    from venus_rpa.automations.services import credential_set

    credential_set(workspace=personas.other_workspace, name="erp", fields={"password": "x"},
                   domains=["erp.example.com"])
    definition = simple_definition(credentials=["erp"])
    error = assert_error(owner.post(LIST, payload(definition), format="json"), 400, "invalid")
    assert "credentials" in error["fields"]


@pytest.mark.django_db
def test_credential_used_by_a_step_is_added_to_the_version_credentials(owner, practice_credential):
    definition = simple_definition(steps=[
        {"kind": "fill", "target": "Password", "value": "{{credentials.practice-login.password}}"},
    ])
    response = owner.post(LIST, payload(definition), format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["version"]["credentials"] == ["practice-login"]


# --- update and versions -------------------------------------------------------------------------


@pytest.mark.django_db
def test_patch_with_a_changed_definition_creates_version_2_and_keeps_version_1(owner, automation, definition):
    changed_steps = copy.deepcopy(definition["steps"])
    changed_steps[4]["target"] = "Expense title"

    response = owner.patch(detail(automation.slug), {"steps": changed_steps, "change_note": "Relabelled"},
                           format="json")

    assert response.status_code == 200, response.json()
    assert response.json()["version"]["number"] == 2
    assert response.json()["version"]["change_note"] == "Relabelled"
    assert response.json()["version"]["steps"][4]["target"] == {"text": "Expense title"}

    listed = owner.get(versions(automation.slug))
    assert listed.status_code == 200
    by_number = {v["number"]: v for v in listed.json()}
    assert sorted(by_number) == [1, 2]
    assert by_number[1]["steps"][4]["target"] == {"text": "Title"}
    assert by_number[2]["steps"][4]["target"] == {"text": "Expense title"}
    # Fields not in the PATCH carry over to the new version.
    assert by_number[2]["param_schema"] == by_number[1]["param_schema"]
    assert by_number[2]["credentials"] == ["practice-login"]

    v1 = AutomationVersion.objects.get(automation=automation, number=1)
    assert v1.steps[4]["target"] == {"text": "Title"}
    automation.refresh_from_db()
    assert automation.current_version.number == 2


@pytest.mark.django_db
def test_patch_with_the_same_definition_does_not_create_a_version(owner, automation, definition):
    response = owner.patch(detail(automation.slug), definition, format="json")

    assert response.status_code == 200, response.json()
    assert response.json()["version"]["number"] == 1
    assert [v["number"] for v in owner.get(versions(automation.slug)).json()] == [1]


@pytest.mark.django_db
def test_patch_of_the_name_only_does_not_create_a_version(owner, automation):
    response = owner.patch(detail(automation.slug), {"name": "Renamed", "description": "New text"}, format="json")

    assert response.status_code == 200, response.json()
    assert response.json()["name"] == "Renamed"
    assert response.json()["description"] == "New text"
    assert response.json()["version"]["number"] == 1
    assert AutomationVersion.objects.filter(automation=automation).count() == 1
    automation.refresh_from_db()
    assert automation.name == "Renamed"


@pytest.mark.django_db
def test_invalid_patch_changes_nothing(owner, automation):
    response = owner.patch(detail(automation.slug), {"name": "Renamed", "steps": [{"kind": "fill"}]}, format="json")

    error = assert_error(response, 400, "invalid")
    assert any(key.startswith("steps.0") for key in error["fields"]), error["fields"]
    automation.refresh_from_db()
    assert automation.name == "Demo expense"
    assert automation.versions.count() == 1


@pytest.mark.django_db
def test_patch_cannot_use_an_undeclared_param(owner, automation):
    response = owner.patch(detail(automation.slug),
                           {"steps": [{"kind": "fill", "target": "Title", "value": "{{nope}}"}]}, format="json")
    error = assert_error(response, 400, "invalid")
    assert "steps.0" in error["fields"]


@pytest.mark.django_db
def test_patch_of_an_unknown_slug_is_404(owner, personas):
    assert_error(owner.patch(detail("nope"), {"name": "x"}, format="json"), 404, "not_found")
    assert_error(owner.get(detail("nope")), 404, "not_found")


# --- roles ---------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_viewer_can_list_get_and_see_versions(viewer, automation):
    assert [a["slug"] for a in viewer.get(LIST).json()["results"]] == ["demo-expense"]
    assert viewer.get(detail(automation.slug)).status_code == 200
    assert viewer.get(versions(automation.slug)).status_code == 200


@pytest.mark.django_db
def test_viewer_cannot_create_an_automation(viewer, personas):
    assert_error(viewer.post(LIST, payload(simple_definition()), format="json"), 403, "permission_denied")
    assert not Automation.objects.exists()


@pytest.mark.django_db
def test_viewer_cannot_patch_an_automation(viewer, automation):
    assert_error(viewer.patch(detail(automation.slug), {"name": "Hijacked"}, format="json"), 403, "permission_denied")
    automation.refresh_from_db()
    assert automation.name == "Demo expense"


@pytest.mark.django_db
def test_reviewer_role_cannot_create_an_automation(personas):
    from venus_rpa.accounts.models import Role
    from tests.factories import MembershipFactory, UserFactory

    reviewer = UserFactory(username="rita")
    MembershipFactory(workspace=personas.workspace, user=reviewer, role=Role.REVIEWER)
    client = personas.client(reviewer)
    assert_error(client.post(LIST, payload(simple_definition()), format="json"), 403)


# --- workspace isolation -------------------------------------------------------------------------


@pytest.mark.django_db
def test_outsider_gets_404_for_another_workspaces_automation(outsider, automation):
    assert_error(outsider.get(detail(automation.slug)), 404, "not_found")
    assert_error(outsider.get(versions(automation.slug)), 404, "not_found")
    assert_error(outsider.patch(detail(automation.slug), {"name": "Mine"}, format="json"), 404, "not_found")
    automation.refresh_from_db()
    assert automation.name == "Demo expense"


@pytest.mark.django_db
def test_lists_only_show_the_callers_workspace(owner, outsider, automation):
    assert outsider.post(LIST, payload(simple_definition(), slug="globex-search"), format="json").status_code == 201

    assert [a["slug"] for a in outsider.get(LIST).json()["results"]] == ["globex-search"]
    assert [a["slug"] for a in owner.get(LIST).json()["results"]] == ["demo-expense"]


@pytest.mark.django_db
def test_outsider_with_the_same_slug_sees_its_own_automation(owner, outsider, automation):
    outsider.post(LIST, payload(simple_definition(), slug=automation.slug, name="Globex's own"), format="json")
    assert outsider.get(detail(automation.slug)).json()["name"] == "Globex's own"
    assert owner.get(detail(automation.slug)).json()["name"] == "Demo expense"
