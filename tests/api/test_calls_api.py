"""Sub-automations through the API and the services: a `call` step runs another automation of the
workspace in place. Checked at save, with a field error on the call step: an unknown or archived
automation, a missing version, a parameter it does not have or one it needs and is not given, a
cycle (also one made later by editing the called automation), another surface, domains this one
does not allow, a value used that the called automation does not store. The saved definition
keeps the call, never the steps a run fills in. A run keeps the versions it was created with, so
editing the called automation does not change a run under way; a called automation archived
since refuses the launch with a reason, and no run is created.

What a hostile editor can do with it, tested here: call only automations of their own workspace
(another workspace's slug is "no automation"); not smuggle steps into a call (refused at save);
not widen where a run goes (the called automation's domains must be this one's); not lower the
safety review (a called automation's safety settings are not used: the caller's apply to every
step); credentials a called version names reach only runs that call it."""

from __future__ import annotations

import pytest

from tests.api.conftest import PRACTICE_URL, assert_error
from venus_rpa.automations.models import Automation
from venus_rpa.runs.models import Run

SIGN_IN = {
    "start_url": PRACTICE_URL + "/login", "allowed_domains": ["127.0.0.1"],
    "param_schema": {"type": "object", "properties": {"who": {"type": "string", "default": "demo-user"},
                                                      "where": {"type": "string"}}, "required": ["where"]},
    "steps": [
        {"kind": "fill", "target": "Username", "value": "{{who}}"},
        {"kind": "fill", "target": "Password", "value": "{{credentials.practice-login.password}}"},
        {"kind": "click", "target": {"role": "button", "name": "Sign in"}},
        {"kind": "goto", "url": "{{where}}"},
        {"kind": "extract", "target": {"css": "h1"}, "into": "heading"},
    ],
}


def caller(*steps, **extra) -> dict:
    return {"name": "Caller", "slug": extra.pop("slug", "caller"), "start_url": PRACTICE_URL + "/",
            "allowed_domains": ["127.0.0.1"], "steps": list(steps), **extra}


def call(**fields) -> dict:
    return {"kind": "call", "automation": "shared-sign-in", "params": {"where": "/expenses/new"}, **fields}


@pytest.fixture
def callee(personas, practice_credential):
    from venus_rpa.automations.services import automation_create

    return automation_create(workspace=personas.workspace, user=personas.owner, slug="shared-sign-in",
                             name="Shared sign-in", definition=SIGN_IN)


def test_a_call_is_saved_without_steps_and_its_returned_value_may_be_used_later(owner, callee):
    response = owner.post("/api/automations/", caller(
        call(name="Sign in"), {"kind": "fill", "target": "Title", "value": "{{steps.heading.value}}"}), format="json")
    assert response.status_code == 201, response.json()
    saved = Automation.objects.get(slug="caller").current_version.steps
    assert saved[0] == {"kind": "call", "name": "Sign in", "automation": "shared-sign-in",
                        "params": {"where": "/expenses/new"}}


@pytest.mark.parametrize("step, field, words", [
    (call(automation="nobody"), "steps.0", "no automation 'nobody' in this workspace"),
    (call(version=7), "steps.0", "has no version 7"),
    (call(params={}), "steps.0", "give shared-sign-in's parameter 'where'"),
    (call(params={"where": "/x", "colour": "red"}), "steps.0", "has no parameter(s) colour"),
    (call(params={"bad name": "x", "where": "/x"}), "steps.0.call.params", "not a parameter name"),
    (call(steps=[{"kind": "goto", "url": "https://elsewhere.example/"}]), "steps.0", "filled in when a run starts"),
    (call(automation="caller"), "steps.0", "cycle (caller → caller)"),
])
def test_a_bad_call_is_a_field_error_on_its_step(owner, callee, step, field, words):
    error = assert_error(owner.post("/api/automations/", caller(step), format="json"), 400)
    assert any(words in message for message in error["fields"][field]), error["fields"]
    assert not Automation.objects.filter(slug="caller").exists()


def test_a_value_the_called_automation_does_not_store_is_unknown(owner, callee):
    error = assert_error(owner.post("/api/automations/", caller(
        call(), {"kind": "fill", "target": "Title", "value": "{{steps.total.value}}"}), format="json"), 400)
    assert "no step stores a value by that name (values: heading)" in error["fields"]["steps.1"][0]


def test_the_called_automation_may_not_go_where_this_one_may_not(owner, personas, callee):
    from venus_rpa.automations.services import automation_update

    automation_update(automation=callee, user=personas.owner,
                      definition={"allowed_domains": ["127.0.0.1", "reports.example.com"]})
    error = assert_error(owner.post("/api/automations/", caller(call()), format="json"), 400)
    assert "it visits reports.example.com" in error["fields"]["steps.0"][0]
    response = owner.post("/api/automations/", caller(call(), allowed_domains=["127.0.0.1", "example.com"]),
                          format="json")
    assert response.status_code == 201, response.json()


def test_another_surface_and_an_archived_automation_cannot_be_called(owner, personas, callee):
    from venus_rpa.automations.lifecycle import automation_archive

    error = assert_error(owner.post("/api/automations/", caller(call(), surface="desktop", start_url="app:mousepad",
                                                                allowed_domains=[]), format="json"), 400)
    assert "it works on web, this automation on desktop" in error["fields"]["steps.0"][0]
    automation_archive(automation=callee, user=personas.owner)
    error = assert_error(owner.post("/api/automations/", caller(call()), format="json"), 400)
    assert "shared-sign-in is archived" in error["fields"]["steps.0"][0]


def test_an_automation_that_takes_files_or_items_cannot_be_called(owner, personas, callee):
    from venus_rpa.automations.services import automation_update

    automation_update(automation=callee, user=personas.owner, definition={"steps": [
        *SIGN_IN["steps"], {"kind": "upload", "target": "Receipt", "from_input": "receipt"}]})
    error = assert_error(owner.post("/api/automations/", caller(call()), format="json"), 400)
    assert "it uploads a file given at launch (from_input)" in error["fields"]["steps.0"][0]
    automation_update(automation=callee, user=personas.owner, definition={"steps": [
        {"kind": "for_each", "steps": [{"kind": "fill", "target": "Title", "value": "{{item.title}}"}]}]})
    error = assert_error(owner.post("/api/automations/", caller(call()), format="json"), 400)
    assert "it runs a block per item (for_each)" in error["fields"]["steps.0"][0]


def test_a_cycle_made_by_editing_the_called_automation_is_refused(owner, callee):
    assert owner.post("/api/automations/", caller(call()), format="json").status_code == 201
    edited = {**SIGN_IN, "steps": [*SIGN_IN["steps"], {"kind": "call", "automation": "caller"}]}
    error = assert_error(owner.patch("/api/automations/shared-sign-in/", {"steps": edited["steps"]}, format="json"),
                         400)
    assert "cycle (shared-sign-in → caller → shared-sign-in)" in error["fields"]["steps.5"][0], error["fields"]


def test_calls_nest_at_most_three_deep(owner, callee):
    owner.post("/api/automations/", caller(call(), slug="one"), format="json")
    owner.post("/api/automations/", caller({"kind": "call", "automation": "one"}, slug="two"), format="json")
    owner.post("/api/automations/", caller({"kind": "call", "automation": "two"}, slug="three"), format="json")
    error = assert_error(owner.post("/api/automations/", caller({"kind": "call", "automation": "three"}, slug="four"),
                                    format="json"), 400)
    assert "calls nest more than 3 deep" in error["fields"]["steps.0"][0]


def test_another_workspaces_automation_is_not_found(owner, personas, practice_credential):
    from venus_rpa.accounts.models import Workspace
    from venus_rpa.automations.services import automation_create

    other = Workspace.objects.create(slug="other", name="Other")
    automation_create(workspace=other, user=None, slug="shared-sign-in", name="Theirs",
                      definition={**SIGN_IN, "steps": SIGN_IN["steps"][:1] + SIGN_IN["steps"][2:]})
    error = assert_error(owner.post("/api/automations/", caller(call()), format="json"), 400)
    assert "no automation 'shared-sign-in' in this workspace" in error["fields"]["steps.0"][0]


def test_a_run_keeps_the_versions_it_was_created_with(owner, personas, callee):
    from venus_rpa.automations.services import automation_update
    from venus_rpa.runs.services import secrets_for, spec_for

    owner.post("/api/automations/", caller(call(params={"where": "/expenses/new", "who": "{{user}}"}),
                                           param_schema={"type": "object", "properties": {"user": {"type": "string"}}}),
               format="json")
    response = owner.post("/api/automations/caller/runs/", {"params": {"user": "rita"}}, format="json")
    assert response.status_code == 202, response.json()
    run = Run.objects.get(pk=response.json()["id"])
    automation_update(automation=callee, user=personas.owner,
                      definition={"steps": [{"kind": "goto", "url": "/somewhere-else"}]})
    (block,) = spec_for(run=run).steps
    assert block.resolved == "shared-sign-in v1"
    assert [s.kind for s in block.steps] == ["goto", "fill", "fill", "click", "goto", "extract"]
    assert block.steps[0].url == PRACTICE_URL + "/login"  # its start URL first
    assert block.steps[1].value == "{{user}}"  # its parameter, filled from this run's
    assert block.steps[4].url == PRACTICE_URL + "/expenses/new"  # relative to its own start URL
    assert "practice-login" in secrets_for(run=run).credentials  # named by the called version only
    later = Run.objects.get(pk=owner.post("/api/automations/caller/runs/", {"params": {"user": "rita"}},
                                          format="json").json()["id"])
    assert [s.kind for s in spec_for(run=later).steps[0].steps] == ["goto", "goto"]  # the new version


def test_a_called_automation_archived_since_refuses_the_launch(owner, personas, callee):
    from venus_rpa.automations.lifecycle import automation_archive

    owner.post("/api/automations/", caller(call()), format="json")
    automation_archive(automation=callee, user=personas.owner)
    before = Run.objects.count()
    error = assert_error(owner.post("/api/automations/caller/runs/", {}, format="json"), 409)
    assert "shared-sign-in is archived" in error["message"]
    assert Run.objects.count() == before


def test_calls_that_multiply_past_the_step_bound_are_refused_quickly(owner, personas, callee,
                                                                   django_assert_max_num_queries):
    """A hostile editor's 30 calls of an automation of 30 calls of one of 30 calls… would make a
    program of hundreds of thousands of steps: refused at save, each called automation looked up once."""
    from venus_rpa.automations.services import automation_create

    plain = {k: v for k, v in caller().items() if k not in ("name", "slug")}
    automation_create(workspace=personas.workspace, user=personas.owner, slug="fan-1", name="Fan 1",
                      definition={**plain, "steps": [call()] * 30})
    automation_create(workspace=personas.workspace, user=personas.owner, slug="fan-2", name="Fan 2",
                      definition={**plain, "steps": [{"kind": "call", "automation": "fan-1"}] * 30})
    with django_assert_max_num_queries(25):
        error = assert_error(owner.post("/api/automations/", caller(*[{"kind": "call", "automation": "fan-2"}] * 30),
                                        format="json"), 400)
    messages = " ".join(m for key, found in error["fields"].items() for m in found)
    assert "the calls would put more than 10,000 steps in one run" in messages
    assert not Automation.objects.filter(slug="caller").exists()
