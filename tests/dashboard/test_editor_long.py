"""Long automations in the editor: past `CLOSED_FROM` rows each row is one line with its fields
packed (dashboard.step_lines); what the page posts back is the same definition, a line opens into
the full row, and bad packed fields or an oversized form are clear errors with nothing saved."""

from __future__ import annotations

import html
import re

import pytest

from venus_rpa.automations.models import Automation
from venus_rpa.automations.services import automation_create
from venus_rpa.dashboard import editor, step_lines
from tests.dashboard.test_editor_blocks import DEFINITION
from tests.helpers.form_fields import form_data

VARIED = [
    {"kind": "goto", "url": "/records?page=1"},
    {"kind": "fill", "name": "Amount", "target": {"label": "Amount", "nth": 0}, "value": "{{amount}}", "timeout_s": 2.5},
    {"kind": "check", "target": "Urgent", "checked": False},
    {"kind": "select", "target": {"role": "combobox", "name": "Category"}, "option": "Meals"},
    {"kind": "press", "key": "Enter"},
    {"kind": "extract", "target": {"css": "li.row"}, "into": "rows", "all": True, "pattern": "EXP-\\d+"},
    {"kind": "agent", "goal": "Open the newest report and read its total", "max_actions": 12, "into": "newest"},
    {"kind": "wait_for", "text": "Saved", "timeout_s": 5.0},
    {"kind": "assert", "url_contains": "/done", "absent": True, "text": "Error"},
]


def long_definition(repeat: int) -> dict:
    steps = [{**step, "name": f"{step.get('name', step['kind'])} {i}"} for i in range(repeat) for step in VARIED]
    return {**DEFINITION, "param_schema": {"type": "object", "properties": {"amount": {"type": "string"}}},
            "steps": steps + DEFINITION["steps"], "limits": {"max_steps": 1000, "max_seconds": 600}}


def posted(page: str) -> dict[str, list[str]]:
    return form_data(page, "automation-form")


@pytest.fixture
def long_automation(personas):
    return automation_create(workspace=personas.workspace, user=personas.owner, slug="long", name="Long",
                             definition=long_definition(4))


def test_a_long_automation_opens_as_lines_and_saves_back_unchanged(editor_client, long_automation):
    page = editor_client.get("/automations/long/").content.decode()
    rows = len(long_automation.current_version.steps) + 4  # the block rows: if/else/end, if/end, repeat/end
    assert rows > step_lines.CLOSED_FROM
    assert page.count('class="step-row step-closed"') == page.count('class="step-row') == 36 + 11
    assert "Amount 1 · Amount ← {{amount}}" in html.unescape(page)  # the line says what the step does
    data = posted(page)
    assert len(data["step"]) == 47 and not any(k.endswith("-kind") for k in data)  # two fields a row
    response = editor_client.post("/automations/long/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    long_automation.refresh_from_db()
    assert long_automation.current_version.number == 1  # the same definition: no new version


def test_a_changed_line_and_a_moved_one_make_a_version_with_exactly_those_changes(editor_client, long_automation):
    data = posted(editor_client.get("/automations/long/").content.decode())
    first, second = data["step"][1], data["step"][2]
    packed = html.unescape(data[f"s-{first}-packed"][0])
    data[f"s-{first}-packed"] = [packed.replace('"Amount 0"', '"Amount (typed)"')]
    data["step"][1], data["step"][2] = second, first
    response = editor_client.post("/automations/long/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    before = long_automation.current_version.steps
    after = Automation.objects.get(slug="long").current_version.steps
    assert after[1] == before[2] and after[2] == {**before[1], "name": "Amount (typed)"}
    assert after[2]["target"] == {"label": "Amount", "nth": 0} and after[2]["timeout_s"] == 2.5
    assert after[0] == before[0] and after[3:] == before[3:]


def test_a_line_opens_into_its_full_row_with_the_same_uid_and_values(editor_client, long_automation):
    data = posted(editor_client.get("/automations/long/").content.decode())
    uid = data["step"][1]
    response = editor_client.post("/automations/_step-row/", {"step": uid, f"s-{uid}-packed": data[f"s-{uid}-packed"][0]})
    row = response.content.decode()
    assert response.status_code == 200 and f'id="step-{uid}"' in row and "step-closed" not in row
    assert f'name="s-{uid}-target_label" value="Amount"' in row and f'name="s-{uid}-value" value="{{{{amount}}}}"' in row
    assert f'name="s-{uid}-timeout_s" value="2.5"' in row and 'value="fill" selected' in row


def test_a_viewer_cannot_open_rows_and_a_bad_uid_gets_a_fresh_one(editor_client, viewer_client):
    assert viewer_client.post("/automations/_step-row/", {"step": "a1", "s-a1-packed": '{"kind":"goto"}'}).status_code == 403
    row = editor_client.post("/automations/_step-row/", {"step": '"><script>', 's-"><script>-packed': '{"kind":"goto"}'})
    assert row.status_code == 200 and "<script>" not in row.content.decode()
    assert re.search(r'id="step-[0-9a-f]{8}"', row.content.decode())


def test_packed_fields_that_do_not_read_back_refuse_the_save_on_their_row(editor_client, long_automation):
    data = posted(editor_client.get("/automations/long/").content.decode())
    uid = data["step"][3]
    data[f"s-{uid}-packed"] = ["{not json"]
    response = editor_client.post("/automations/long/", data)
    assert response.status_code == 400
    page = response.content.decode()
    assert editor.NOT_READ.replace("'", "&#x27;") in page
    assert re.search(rf'<li class="step-row has-errors"[^>]*id="step-{uid}"', page)  # shown open, with the reason
    long_automation.refresh_from_db()
    assert long_automation.current_version.number == 1


def test_a_form_over_the_field_limit_gets_the_dashboards_page_and_nothing_is_saved(editor_client, long_automation,
                                                                                     settings):
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 50
    data = posted(editor_client.get("/automations/long/").content.decode())
    response = editor_client.post("/automations/long/", data)
    assert response.status_code == 400
    page = response.content.decode()
    assert "Not accepted" in page and "nothing was saved or started" in page and "50 fields at most" in page
    assert 'href="/static/venus' in page or "venus.css" in page  # the dashboard's page, not a bare one
    long_automation.refresh_from_db()
    assert long_automation.current_version.number == 1


def test_three_thousand_steps_render_as_lines_and_save(editor_client, personas):
    definition = {**long_definition(1), "steps": [{"kind": "click", "name": f"Step {i}", "target": f"Button {i}"}
                                                   for i in range(3000)]}
    automation = automation_create(workspace=personas.workspace, user=personas.owner, slug="huge", name="Huge",
                                   definition=definition)
    page = editor_client.get("/automations/huge/").content.decode()
    assert page.count("step-closed") == 3000 and len(page) < 3000 * 1200
    data = posted(page)
    data["s-" + data["step"][-1] + "-packed"] = ['{"kind":"click","name":"Last","target_text":"Done"}']
    response = editor_client.post("/automations/huge/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    before = automation.current_version.steps
    automation.refresh_from_db()
    steps = automation.current_version.steps
    assert automation.current_version.number == 2 and len(steps) == 3000
    assert steps[-1] == {**before[-1], "name": "Last", "target": {"text": "Done"}} and steps[:-1] == before[:-1]
