"""The editor's error messages: each shown once, under the field it is about (a list at the top
only for what has no place in the page), in plain words that name the step as its row shows it
and the field by its label, never pydantic's wording or an internal key; the resource id (an
Android locator) offered on Android automations only."""

from __future__ import annotations

import html as html_lib
import re

import pytest

from tests.dashboard.conftest import definition
from tests.dashboard.test_editor import editor_post
from tests.helpers.form_fields import form_data
from venus_rpa.automations.models import Automation
from venus_rpa.dashboard.field_errors import error_sentence, plain_message, step_place

pytestmark = pytest.mark.django_db

# What pydantic or the services' keys would put in front of a user.
LEAKS = ("Input should", "Value error", "String should", "Field required", "Extra inputs", "List should",
         "steps.", "timeout_s", "max_steps", "from_input", "unable to parse")


def page_text(response) -> str:
    return html_lib.unescape(response.content.decode())


def errors_in(page: str) -> list[str]:
    """Every error message the page shows: the field lists and the list at the top."""
    lists = re.findall(r'<ul class="errors">(.*?)</ul>', page, re.S)
    summary = page.split('id="error-summary"')[1].split("</div>")[0] if 'id="error-summary"' in page else ""
    return [m.strip() for part in [*lists, summary] for m in re.findall(r"<li>(.*?)</li>", part, re.S)]


BAD_STEPS = [{"kind": "goto", "url": "/"}, {"kind": "click", "name": "Press it"},
             {"kind": "select", "target_text": "Country"},
             {"kind": "fill", "name": "Amount", "target_text": "Amount", "value": "1", "timeout_s": "999"}]


def test_each_error_of_a_new_automation_is_shown_once_under_its_field(editor_client):
    response = editor_client.post("/automations/new/", editor_post(steps=BAD_STEPS, max_steps="0"))

    assert response.status_code == 400
    page = page_text(response)
    shown = errors_in(page)
    assert len(shown) == len(set(shown)) == 4, shown
    rows = page.split('class="step-row')[1:]
    assert "Step 2 (click “Press it”): Target needs text, role, label, placeholder or CSS." in (
        rows[1].split('name="s-u1-target_text"')[1])
    assert "Step 3 (select): Option is required." in rows[2].split('name="s-u2-option"')[1]
    assert "Step 4 (fill “Amount”): Timeout (s) must be 300 or less." in rows[3].split('name="s-u3-timeout_s"')[1]
    assert "Max steps must be 1 or more." in page.split("<legend>Limits</legend>")[1].split("</fieldset>")[0]
    summary = page.split('id="error-summary"')[1].split("</div>")[0]
    assert "Not saved." in summary and "Fix what is marked below." in summary and "<li>" not in summary


def test_each_error_is_shown_once_when_an_automation_is_saved_from_the_editor(editor_client, automation):
    data = form_data(editor_client.get(f"/automations/{automation.slug}/").content.decode(), "automation-form")
    uid = data["step"][1]
    data[f"s-{uid}-target_role"], data[f"s-{uid}-target_name"], data[f"s-{uid}-timeout_s"] = [""], [""], ["-3"]

    response = editor_client.post(f"/automations/{automation.slug}/", data)

    assert response.status_code == 400
    shown = errors_in(page_text(response))
    assert sorted(shown) == ["Step 2 (click): Target needs text, role, label, placeholder or CSS.",
                             "Step 2 (click): Timeout (s) must be more than 0."], shown
    assert automation.current_version.steps[1]["target"] == {"role": "button", "name": "Save"}


def test_a_form_error_and_the_validators_errors_together_are_each_shown_once(editor_client, automation):
    """Bad JSON stops the save before the service: the validator is asked once about the rest."""
    data = form_data(editor_client.get(f"/automations/{automation.slug}/").content.decode(), "automation-form")
    data["output_schema"] = ["{not json"]
    data[f"s-{data['step'][1]}-timeout_s"] = ["abc"]

    response = editor_client.post(f"/automations/{automation.slug}/", data)

    assert response.status_code == 400
    shown = errors_in(page_text(response))
    assert len(shown) == 2, shown
    assert "Step 2 (click): Timeout (s) must be a number." in shown
    assert any(m.startswith("Line 1, column 2: a key in double quotes is expected here") for m in shown)


def test_an_error_with_no_field_in_the_page_is_listed_at_the_top_and_only_there(editor_client):
    content = "x" * 95_000
    steps = [{"kind": "upload", "target_text": f"File {i}", "filename": "a.txt", "content": content} for i in range(3)]
    steps.append({"kind": "upload", "target_text": "Last", "filename": "b.txt", "mime_type": "m" * 300})

    response = editor_client.post("/automations/new/", editor_post(steps=steps))

    assert response.status_code == 400
    page = page_text(response)
    summary = page.split('id="error-summary"')[1].split("</div>")[0]
    assert "Fix what is marked below, and:" in summary
    assert re.search(r"<li>The definition is [0-9,]+ KB; at most 256 KB can be saved\.", summary)
    # a field the row has no error list for: at the row's head, named by its label
    last = page.split('class="step-row')[4]
    assert "Step 4 (upload): MIME type is too long: at most 200 characters (this one has 300)." in last
    shown = errors_in(page)
    assert len(shown) == len(set(shown)) == 2, shown


@pytest.mark.parametrize(("step", "field", "expected"), [
    ({"kind": "click", "target_text": "A", "target_nth": "-1"}, "target_text",
     "Step 1 (click): Target › Nth match must be 0 or more."),
    ({"kind": "extract", "target_text": "Total", "into": "1x"}, "into",
     "Step 1 (extract): Into must start with a letter or _ and hold only letters, digits and _."),
    ({"kind": "extract", "target_text": "Total", "from_file": "report", "into": "x"}, None,
     "Step 1 (extract): Extract reads a target on the page or a downloaded file (“From a downloaded file”): "
     "exactly one of them."),
    ({"kind": "upload", "target_text": "Receipt"}, None,
     "Step 1 (upload): Upload needs “File given at launch” (a file given with the run) or a file name."),
    ({"kind": "wait_for", "name": "Until saved"}, None,
     "Step 1 (wait_for “Until saved”): wait_for needs a target, text or URL contains."),
    ({"kind": "agent", "goal": "Do it", "max_actions": "0"}, "max_actions",
     "Step 1 (agent): Max actions must be 1 or more."),
])
def test_pydantic_wording_never_reaches_the_page(editor_client, step, field, expected):
    response = editor_client.post("/automations/new/", editor_post(steps=[step, {"kind": "goto", "url": "/"}]))

    assert response.status_code == 400
    page = page_text(response)
    row = page.split('class="step-row')[1]
    assert expected in (row.split(f'name="s-u0-{field}"')[1] if field else row.split('class="step-fields"')[0])
    assert errors_in(page) == [expected]
    for leak in LEAKS:
        assert leak not in " ".join(errors_in(page)), leak


def test_a_block_error_names_the_row_as_the_editor_numbers_it(editor_client):
    """Rows of blocks count as the page counts them (the if, its steps, its end)."""
    response = editor_client.post("/automations/new/", editor_post(steps=[
        {"kind": "goto", "url": "/"}, {"kind": "if", "cond_kind": "text_visible", "cond_text": "Draft"},
        {"kind": "fill", "name": "Note", "target_text": "Note", "value": "x", "timeout_s": "0"}, {"kind": "end"}]))

    assert response.status_code == 400
    row = page_text(response).split('class="step-row')[3]
    assert "Step 3 (fill “Note”): Timeout (s) must be more than 0." in row


@pytest.mark.parametrize(("message", "label", "expected"), [
    ("Input should be 'unknown', 'ignored' or 'matters'", "Letter case in text CAPTCHAs",
     "Letter case in text CAPTCHAs must be one of 'unknown', 'ignored' or 'matters'."),
    ("Input should be a valid integer, unable to parse string as an integer", "Max iterations",
     "Max iterations must be a whole number."),
    ("List should have at least 1 item after validation, not 0", "The block's steps",
     "The block's steps must not be empty."),
    ("Not a web address: give one such as https://example.com/page.", "URL",
     "Not a web address: give one such as https://example.com/page."),  # the services' own: kept
])
def test_plain_message_turns_pydantic_templates_into_sentences(message, label, expected):
    assert plain_message(message, label)[0] == expected


def test_a_message_names_the_step_and_the_field_it_is_about():
    where = step_place(12, "fill", "  Type the   amount ")
    assert where == "Step 12 (fill “Type the amount”)"
    assert error_sentence("Value error, '1a' is not a parameter name", label="Its parameters", where=where) == (
        "Step 12 (fill “Type the amount”) › Its parameters: '1a' is not a parameter name.")
    assert step_place(1, "click", "n" * 100).endswith("n…”)")


def test_the_resource_id_is_named_on_android_only():
    message = "Value error, a target needs text, role, label, placeholder, css or resource_id"
    assert error_sentence(message, label="Target", surface="web") == "Target needs text, role, label, placeholder or CSS."
    assert error_sentence(message, label="Target", surface="desktop") == (
        "Target needs text, role, label, placeholder or CSS.")
    assert error_sentence(message, label="Target", surface="android") == (
        "Target needs text, role, label, placeholder, CSS or resource id.")


# -- the resource id box ---------------------------------------------------------------------------

def resource_boxes(page: str) -> list[str]:
    return re.findall(r'<label class="f-android"[^>]*>', page)


def android_automation(personas, steps):
    from venus_rpa.automations.services import automation_create

    return automation_create(workspace=personas.workspace, user=personas.owner, slug="notes", name="Notes",
                             definition={"surface": "android", "start_url": "com.example.notes",
                                         "allowed_domains": [], "steps": steps})


def test_a_web_automations_rows_keep_the_resource_id_out_of_sight(editor_client, automation):
    page = editor_client.get(f"/automations/{automation.slug}/").content.decode()
    boxes = resource_boxes(page)
    assert boxes and all(" hidden" in box for box in boxes)
    new_row = editor_client.get("/automations/_step-row/", {"surface": "web"}).content.decode()
    assert all(" hidden" in box for box in resource_boxes(new_row))
    response = editor_client.post("/automations/new/", editor_post(steps=[{"kind": "click"}]))
    assert errors_in(page_text(response)) == ["Step 1 (click): Target needs text, role, label, placeholder or CSS."]


def test_an_android_automation_offers_and_keeps_the_resource_id(editor_client, personas):
    automation = android_automation(personas, [{"kind": "click", "target": {"resource_id": "save_profile"}},
                                               {"kind": "click", "target": "Send"}])
    page = editor_client.get(f"/automations/{automation.slug}/").content.decode()
    boxes = resource_boxes(page)
    assert len(boxes) == 2 and not any(" hidden" in box for box in boxes)
    new_row = editor_client.get("/automations/_step-row/", {"surface": "android"}).content.decode()
    assert resource_boxes(new_row) and " hidden" not in resource_boxes(new_row)[0]
    opened = editor_client.post("/automations/_step-row/", {  # a long automation's closed line, opened
        "step": "abc123", "s-abc123-packed": '{"kind":"click","target_text":"Send"}', "surface": "android"})
    assert " hidden" not in resource_boxes(opened.content.decode())[0]

    data = form_data(page, "automation-form")
    assert data[f"s-{data['step'][0]}-target_resource_id"] == ["save_profile"]
    data["name"] = ["Notes, renamed"]
    assert editor_client.post(f"/automations/{automation.slug}/", data).status_code == 302
    automation.refresh_from_db()
    assert automation.current_version.number == 1  # the resource id came back as it was: no new version
    assert automation.current_version.steps[0]["target"] == {"resource_id": "save_profile"}

    data = form_data(editor_client.get(f"/automations/{automation.slug}/").content.decode(), "automation-form")
    data[f"s-{data['step'][1]}-target_text"] = [""]
    page = page_text(editor_client.post(f"/automations/{automation.slug}/", data))
    assert "Step 2 (click): Target needs text, role, label, placeholder, CSS or resource id." in page


def test_a_resource_id_stored_on_another_surface_stays_in_sight(editor_client, personas):
    from venus_rpa.automations.services import automation_create

    automation = automation_create(workspace=personas.workspace, user=personas.owner, slug="odd", name="Odd",
                                   definition=definition(steps=[{"kind": "click", "target": {"resource_id": "x"}}]))
    page = editor_client.get(f"/automations/{automation.slug}/").content.decode()
    assert len(resource_boxes(page)) == 1 and " hidden" not in resource_boxes(page)[0]
    assert Automation.objects.get(pk=automation.pk).current_version.steps[0]["target"] == {"resource_id": "x"}


def test_a_step_name_in_a_message_is_shown_as_text(editor_client):
    response = editor_client.post("/automations/new/", editor_post(steps=[
        {"kind": "click", "name": "<img src=x onerror=alert(1)>"}]))
    page = response.content.decode()
    assert "<img src=x" not in page
    assert "Step 1 (click “&lt;img src=x onerror=alert(1)&gt;”): Target needs" in page
