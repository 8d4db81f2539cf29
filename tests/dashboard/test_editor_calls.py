"""A `call` row in the automation editor: the automation to run (offered from the workspace's
others), an optional pinned version and its parameters as "name = value" lines; saved as a call,
shown again as the same row; a bad line or a call that cannot be made is an error on its row and
nothing is saved. On the run page, the called steps say what they ran in."""

from __future__ import annotations

from tests.dashboard.test_editor import _as_post, editor_post
from tests.dashboard.test_editor_blocks import rows_html
from venus_rpa.automations.models import Automation
from venus_rpa.automations.services import automation_create
from venus_rpa.dashboard.automation_form import AutomationEditor

LOOK_UP = {"start_url": "http://127.0.0.1:9/lab/lookup", "allowed_domains": ["127.0.0.1"],
           "param_schema": {"type": "object", "properties": {"account": {"type": "string"}}, "required": ["account"]},
           "steps": [{"kind": "fill", "target": "Account number", "value": "{{account}}"},
                     {"kind": "extract", "target": {"css": "h1"}, "into": "answer"}]}


def look_up(personas):
    return automation_create(workspace=personas.workspace, user=personas.owner, slug="look-up", name="Look up",
                             definition=LOOK_UP)


def test_a_call_row_is_saved_as_a_call_and_shown_again(editor_client, personas):
    look_up(personas)
    page = editor_client.get("/automations/new/").content.decode()
    assert '<option value="look-up">Look up</option>' in page  # offered in the datalist
    response = editor_client.post("/automations/new/", editor_post(steps=[
        {"kind": "call", "name": "Look the account up", "automation": "look-up", "version": "1",
         "params": "account = A-{{ref}}\n\n"},
        {"kind": "fill", "target_text": "Answer", "value": "{{steps.answer.value}}"},
    ], params=[{"name": "ref", "type": "string"}]))
    assert response.status_code == 302, response.content.decode()[:3000]
    automation = Automation.objects.get(slug="sign-in")
    assert automation.current_version.steps[0] == {"kind": "call", "name": "Look the account up",
                                                   "automation": "look-up", "version": 1,
                                                   "params": {"account": "A-{{ref}}"}}
    form = AutomationEditor.from_version(automation, automation.current_version)
    assert form.steps[0].kind == "call" and form.steps[0].values["params"] == "account = A-{{ref}}"
    assert form.steps[1].values_here == ["answer"]  # the value the call returns, offered after it
    saved = automation.current_version.steps
    again = editor_client.post(f"/automations/{automation.slug}/", _as_post(form))
    assert again.status_code == 302
    automation.refresh_from_db()
    assert automation.current_version.steps == saved  # the row reads back as the same call


def test_a_bad_call_is_an_error_on_its_row_and_nothing_is_saved(editor_client, personas):
    look_up(personas)
    response = editor_client.post("/automations/new/", editor_post(steps=[
        {"kind": "click", "target_text": "Start"},
        {"kind": "call", "automation": "look-up", "params": "acount = 7"},
    ]))
    assert response.status_code == 400
    rows = rows_html(response)
    assert "has-errors" not in rows[0].split(">")[0] and "has-errors" in rows[1].split(">")[0]
    assert "look-up has no parameter(s) acount (its parameters: account)" in rows[1]
    response = editor_client.post("/automations/new/", editor_post(steps=[
        {"kind": "call", "automation": "look-up", "params": "just a line"}]))
    assert response.status_code == 400 and "not a parameter name" in rows_html(response)[0]
    assert not Automation.objects.filter(slug="sign-in").exists()


def test_the_run_page_says_what_a_called_step_ran_in(viewer_client, personas):
    from django.utils import timezone

    from venus_rpa.runs.models import Run, Step

    automation = look_up(personas)
    run = Run.objects.create(workspace=personas.workspace, automation=automation, version=automation.current_version,
                             status="succeeded")
    Step.objects.create(run=run, index=1, kind="fill", name="Type it", status="succeeded", started_at=timezone.now(),
                        called_in="sign-in v3 › look-up v1")
    Step.objects.create(run=run, index=2, kind="click", name="Own step", status="succeeded", started_at=timezone.now())
    page = viewer_client.get(f"/runs/{run.pk}/").content.decode()
    called, own = page.split('id="step-1"')[1], page.split('id="step-2"')[1]
    assert "in sign-in v3 › look-up v1" in called.split("</li>")[0] and "step-called" in page.split('id="step-1"')[0][-80:]
    assert "called-in" not in own.split("</li>")[0]

