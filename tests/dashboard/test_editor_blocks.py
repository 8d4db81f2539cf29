"""The automation editor with blocks: if/else/repeat rows nest the rows up to their end row,
round-trip through a stored definition, list the step values each step can use, and put bad input
(unknown value, loop without cap, unclosed block) on its row; nothing is saved then."""

from __future__ import annotations

from venus_rpa.automations.models import Automation
from venus_rpa.automations.services import automation_create
from venus_rpa.dashboard import blocks
from venus_rpa.dashboard.automation_form import AutomationEditor
from tests.dashboard.test_editor import _as_post, editor_post

READ = {"kind": "extract", "target_text": "Total", "into": "total"}
TYPE = {"kind": "fill", "name": "Type the total", "target_text": "Amount", "value": "{{steps.total.value}}"}
DEFINITION = {
    "start_url": "http://127.0.0.1:9/", "allowed_domains": ["127.0.0.1"],
    "steps": [
        {"kind": "extract", "target": "Total", "into": "total"},
        {"kind": "if", "name": "Already filed", "condition": {"text_visible": "Filed", "negate": True},
         "steps": [{"kind": "fill", "target": "Amount", "value": "{{steps.total.value}}"}],
         "else": [{"kind": "repeat", "until": {"element": {"role": "link", "name": "Next"}, "negate": True},
                   "max_iterations": 4, "on_cap": "stop", "steps": [{"kind": "click", "target": "Next"}]}]},
        {"kind": "if", "condition": {"value": "total", "op": "greater_than", "to": "100"},
         "steps": [{"kind": "assert", "text": "Approved"}]},
    ],
}


def rows_html(response) -> list[str]:
    return response.content.decode().split('class="step-row')[1:]


def test_blocks_are_saved_nested_from_the_rows(editor_client, personas):
    response = editor_client.post("/automations/new/", editor_post(steps=[
        READ,
        {"kind": "if", "name": "Not filed", "cond_kind": "text_visible", "cond_text": "Filed", "negate": "on"},
        TYPE,
        {"kind": "else"},
        {"kind": "repeat", "cond_kind": "element", "target_role": "link", "target_name": "Next", "negate": "on",
         "max_iterations": "3"},
        {"kind": "click", "target_text": "Next"},
        {"kind": "end"},
        {"kind": "end"},
        {"kind": "if", "cond_kind": "value", "cond_text": "total", "cond_op": "greater_than", "cond_to": "100"},
        {"kind": "assert", "text": "Approved"},
        {"kind": "end"},
    ]))
    assert response.status_code == 302, response.content.decode()[:3000]
    steps = Automation.objects.get(slug="sign-in").current_version.steps
    assert [s["kind"] for s in steps] == ["extract", "if", "if"]
    assert steps[1]["condition"]["text_visible"] == "Filed" and steps[1]["condition"]["negate"] is True
    assert steps[1]["steps"][0]["value"] == "{{steps.total.value}}"
    repeat = steps[1]["else"][0]
    assert repeat["until"]["element"] == {"role": "link", "name": "Next"} and repeat["max_iterations"] == 3
    assert steps[2]["condition"] | {"value": "total", "op": "greater_than", "to": "100"} == steps[2]["condition"]


def test_a_stored_definition_round_trips_through_the_rows(editor_client, personas):
    automation = automation_create(workspace=personas.workspace, user=personas.owner, slug="blocks", name="Blocks",
                                   definition=DEFINITION)
    form = AutomationEditor.from_version(automation, automation.current_version)
    assert [(r.kind, r.depth) for r in form.steps] == [
        ("extract", 0), ("if", 0), ("fill", 1), ("else", 0), ("repeat", 1), ("click", 2), ("end", 1), ("end", 0),
        ("if", 0), ("assert", 1), ("end", 0)]
    response = editor_client.post(f"/automations/{automation.slug}/", _as_post(form))
    assert response.status_code == 302, response.content.decode()[:3000]
    automation.refresh_from_db()
    assert automation.current_version.number == 1  # nothing changed


def test_the_page_lists_the_values_each_step_can_use(editor_client, personas):
    automation = automation_create(workspace=personas.workspace, user=personas.owner, slug="blocks", name="Blocks",
                                   definition=DEFINITION)
    rows = rows_html(editor_client.get(f"/automations/{automation.slug}/"))
    assert "values-here" not in rows[0]  # nothing stored before the first step
    assert "<code>{{steps.total.value}}</code>" in rows[2]
    assert 'style="--depth: 2"' in rows[5]


def test_an_unknown_value_is_an_error_on_its_row(editor_client):
    response = editor_client.post("/automations/new/", editor_post(steps=[
        READ, {"kind": "if", "cond_kind": "text_visible", "cond_text": "Filed"},
        {**TYPE, "value": "{{steps.totl.value}}"}, {"kind": "end"}]))
    assert response.status_code == 400
    rows = rows_html(response)
    assert "uses value &#x27;totl&#x27;, but no step stores a value by that name" in rows[2]
    assert "has-errors" in rows[2].split(">")[0] and "has-errors" not in rows[1].split(">")[0]
    assert not Automation.objects.filter(slug="sign-in").exists()


def test_a_loop_without_a_cap_is_an_error_on_its_row(editor_client):
    response = editor_client.post("/automations/new/", editor_post(steps=[
        {"kind": "repeat", "cond_kind": "text_visible", "cond_text": "Done"}, {"kind": "click", "target_text": "More"},
        {"kind": "end"}]))
    assert response.status_code == 400
    assert "Step 1 (repeat): Max iterations is required." in rows_html(response)[0].split('name="s-u0-max_iterations"')[1]


def test_an_unclosed_block_and_a_stray_end_are_errors_on_their_rows(editor_client):
    response = editor_client.post("/automations/new/", editor_post(steps=[
        {"kind": "end"}, {"kind": "if", "cond_kind": "text_visible", "cond_text": "x"}, {"kind": "goto", "url": "/"}]))
    assert response.status_code == 400
    rows = rows_html(response)
    assert "This &#x27;end&#x27; closes no block." in rows[0]
    assert "This &#x27;if&#x27; block has no &#x27;end&#x27; row." in rows[1]


def test_error_keys_of_nested_steps_find_their_row():
    paths = {"steps.0": 0, "steps.1": 1, "steps.1.steps.0": 2, "steps.1.else.0": 4}
    assert blocks.row_for_key("steps.1.if.steps.0.fill.value", paths) == (2, "value")
    assert blocks.row_for_key("steps.1.if.condition.text_visible", paths) == (1, "condition")
    assert blocks.row_for_key("steps.1.else.0", paths) == (4, "")
    assert blocks.row_for_key("steps.9", paths) is None
