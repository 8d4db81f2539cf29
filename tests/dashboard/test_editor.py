"""The automation editor: create, edit (new versions), inline field errors, versions and diffs."""

from __future__ import annotations

import json

from venus_rpa.automations.models import Automation
from venus_rpa.dashboard import editor
from venus_rpa.dashboard.automation_form import AutomationEditor


def editor_post(*, name="Sign in", slug="sign-in", steps=(), params=(), **extra) -> dict:
    """The fields the editor page posts (uids as the page makes them)."""
    data: dict = {"name": name, "slug": slug, "surface": "web", "start_url": "http://127.0.0.1:9/login",
                  "allowed_domains": "127.0.0.1", "goal": "", "output_schema": "", "param_mode": "table",
                  "captcha_enabled": "on", "captcha_solver_1": "local", "captcha_solver_2": "human",
                  "captcha_max_attempts": "2", "max_steps": "20", "max_seconds": "60", "output_valid": "on",
                  "step": [], "param": []}
    for i, step in enumerate(steps):
        uid = f"u{i}"
        data["step"].append(uid)
        data.update({f"s-{uid}-{k}": v for k, v in step.items()})
    for i, param in enumerate(params):
        uid = f"p{i}"
        data["param"].append(uid)
        data.update({f"p-{uid}-{k}": v for k, v in param.items()})
    data.update(extra)
    return data


def test_creating_an_automation_makes_version_1(editor_client, personas):
    response = editor_client.post("/automations/new/", editor_post(
        steps=[{"kind": "fill", "target_text": "Username", "value": "{{user}}"},
               {"kind": "click", "target_role": "button", "target_name": "Sign in"},
               {"kind": "wait_for", "text": "Welcome", "timeout_s": "5"}],
        params=[{"name": "user", "type": "string", "required": "on", "default": "demo"},
                {"name": "day", "type": "date"}, {"name": "n", "type": "integer", "enum": "1, 2, 3"}],
    ))
    assert response.status_code == 302, response.content.decode()[:3000]
    automation = Automation.objects.get(workspace=personas.workspace, slug="sign-in")
    version = automation.current_version
    assert version.number == 1
    assert [s["kind"] for s in version.steps] == ["fill", "click", "wait_for"]
    assert version.steps[1]["target"] == {"role": "button", "name": "Sign in"}
    assert version.steps[2]["timeout_s"] == 5.0
    assert version.param_schema == {
        "type": "object",
        "properties": {"user": {"type": "string", "default": "demo"}, "day": {"type": "string", "format": "date"},
                       "n": {"type": "integer", "enum": [1, 2, 3]}},
        "required": ["user"],
    }
    assert version.captcha == {"enabled": True, "solvers": ["local", "human"], "max_attempts": 2, "letter_case": "unknown"}
    assert version.limits == {"max_steps": 20, "max_seconds": 60.0}


def test_the_letter_case_of_text_captchas_is_a_policy_choice_and_a_bad_one_is_a_field_error(editor_client, personas):
    steps = [{"kind": "wait_for", "text": "Welcome", "timeout_s": "5"}]
    response = editor_client.post("/automations/new/", editor_post(steps=steps, captcha_letter_case="ignored"))
    assert response.status_code == 302, response.content.decode()[:3000]
    automation = Automation.objects.get(workspace=personas.workspace, slug="sign-in")
    assert automation.current_version.captcha["letter_case"] == "ignored"
    page = editor_client.get(f"/automations/{automation.slug}/").content.decode()
    assert '<option value="ignored" selected>' in page
    bad = editor_client.post("/automations/new/", editor_post(slug="other", steps=steps, captcha_letter_case="sometimes"))
    assert bad.status_code == 400
    assert "&#x27;unknown&#x27;, &#x27;ignored&#x27; or &#x27;matters&#x27;" in bad.content.decode()
    assert not Automation.objects.filter(workspace=personas.workspace, slug="other").exists()


def test_what_each_site_taught_about_letter_case_is_shown_to_whoever_may_read_the_automation(
        editor_client, viewer_client, personas):
    from tests.factories import WorkspaceFactory
    from tests.reviews.conftest import make_automation
    from venus_rpa.automations.letter_case import site_letter_case_add
    from workers.captcha import letter_case

    steps = [{"kind": "wait_for", "text": "Welcome", "timeout_s": "5"}]
    assert editor_client.post("/automations/new/", editor_post(steps=steps)).status_code == 302
    automation = Automation.objects.get(workspace=personas.workspace, slug="sign-in")
    assert "Learned from the sites" not in editor_client.get("/automations/sign-in/").content.decode()
    for i in range(12):  # answers whose case was a coin toss, accepted: four digits each
        site_letter_case_add(automation_id=automation.pk, host="shop.test",
                             loglik=letter_case.evidence(0.4, 0.9, True).tolist(), accepted=True,
                             answer=f"{1000 + 731 * i}"[:4])
    other = make_automation(WorkspaceFactory(name="Elsewhere"), slug="sign-in")
    site_letter_case_add(automation_id=other.pk, host="elsewhere.test",
                         loglik=letter_case.evidence(0.4, 0.9, False).tolist(), accepted=False)
    for client in (editor_client, viewer_client):
        page = client.get("/automations/sign-in/").content.decode()
        assert "<code>shop.test</code>: letter case is no obstacle; answers read as 4 characters, digits only" in page
        assert "12 answers accepted, 0 refused" in page
        assert "elsewhere.test" not in page  # another workspace's automation of the same name


def test_step_errors_show_inline_on_their_row(editor_client):
    response = editor_client.post("/automations/new/", editor_post(
        steps=[{"kind": "goto", "url": "/"}, {"kind": "click", "name": "Press it"}, {"kind": "select", "target_text": "A"}],
    ))
    assert response.status_code == 400
    html = response.content.decode()
    assert "Not saved" in html
    rows = html.split('class="step-row')[1:]
    assert "has-errors" in rows[1].split(">")[0]
    # the step as its row shows it and the field by its label; pydantic's kind tag and wording dropped
    assert "Step 2 (click “Press it”): Target needs text, role, label, placeholder or CSS." in rows[1]
    assert "Step 3 (select): Option is required." in rows[2].split('name="s-u2-option"')[1]
    assert "errors" not in rows[0]
    assert 'value="Press it"' in rows[1]  # what was typed stays in the form
    assert not Automation.objects.filter(slug="sign-in").exists()


def test_undeclared_parameters_are_flagged_on_the_step(editor_client):
    response = editor_client.post("/automations/new/", editor_post(
        steps=[{"kind": "goto", "url": "/"}, {"kind": "fill", "target_text": "A", "value": "{{nope}}"}]))
    rows = response.content.decode().split('class="step-row')[1:]
    assert "Uses parameter(s) not in the parameter schema: nope" in rows[1]
    assert 'value="{{nope}}"' in rows[1]


def test_section_errors_show_inline(editor_client):
    response = editor_client.post("/automations/new/", editor_post(
        steps=[{"kind": "goto", "url": "/"}], max_steps="0", output_schema="{not json",
        params=[{"name": "n", "type": "integer", "default": "many"}]))
    html = response.content.decode()
    assert response.status_code == 400
    assert "Max steps must be 1 or more." in html.split("<legend>Limits</legend>")[1].split("</fieldset>")[0]
    output = html.split('name="output_schema"')[1].split("</fieldset>")[0]
    assert "Line 1, column 2: a key in double quotes is expected here" in output
    assert "n: the default or a choice is not a whole number (integer)." in html
    summary = html.split('id="error-summary"')[1].split("</div>")[0]
    assert "Fix what is marked below." in summary and "<li>" not in summary  # each error once, at its field
    # no internal keys, no Python messages
    for raw in ("max_steps", "Input should", "char 1", "line 1 column", "invalid literal"):
        assert raw not in html.split('id="error-summary"')[1].split("</form>")[0].replace('name="max_steps"', ""), raw


def test_a_taken_slug_is_a_field_error(editor_client, automation):
    response = editor_client.post("/automations/new/", editor_post(slug=automation.slug, steps=[{"kind": "goto", "url": "/"}]))
    assert response.status_code == 400
    assert "Already in use." in response.content.decode()


def test_a_name_whose_slug_is_taken_is_an_error_at_the_name_when_no_slug_was_typed(editor_client, automation):
    response = editor_client.post("/automations/new/", editor_post(name=automation.name, slug="",
                                                                    steps=[{"kind": "goto", "url": "/"}]))
    assert response.status_code == 400
    html = response.content.decode()
    assert "Another automation has a name that gives the same address" in html and "Already in use." not in html


def test_editing_keeps_the_version_when_nothing_changed(editor_client, automation):
    page = editor_client.get(f"/automations/{automation.slug}/")
    assert page.status_code == 200
    form = AutomationEditor.from_version(automation, automation.current_version)
    assert form.param_mode == "table"  # minLength / additionalProperties ride along as extras
    data = _as_post(form)
    response = editor_client.post(f"/automations/{automation.slug}/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    automation.refresh_from_db()
    assert automation.current_version.number == 1


def test_editing_a_step_makes_a_new_version_with_a_diff(editor_client, automation):
    form = AutomationEditor.from_version(automation, automation.current_version)
    data = _as_post(form)
    data["s-s0-value"] = "{{title}} (edited)"
    data["change_note"] = "edited value"
    response = editor_client.post(f"/automations/{automation.slug}/", data)
    assert response.status_code == 302
    automation.refresh_from_db()
    assert automation.current_version.number == 2
    assert automation.current_version.steps[0]["value"] == "{{title}} (edited)"
    versions = editor_client.get(f"/automations/{automation.slug}/versions/").content.decode()
    assert "edited value" in versions
    # the step's change in words (tests/dashboard/test_version_diff_page.py)
    assert "<del>&#x27;{{title}}&#x27;</del> → <ins>&#x27;{{title}} (edited)&#x27;</ins>" in versions


def test_moving_steps_follows_the_posted_order(editor_client, automation):
    data = _as_post(AutomationEditor.from_version(automation, automation.current_version))
    data["step"] = list(reversed(data["step"]))
    editor_client.post(f"/automations/{automation.slug}/", data)
    automation.refresh_from_db()
    assert [s["kind"] for s in automation.current_version.steps] == ["click", "fill"]


def test_the_param_table_switches_to_json_and_back(editor_client):
    post = editor_post(params=[{"name": "city", "type": "string", "required": "on", "enum": "Paris, Rome"}])
    to_json = editor_client.post("/automations/_param-schema/", {**post, "to": "json"})
    assert to_json.status_code == 200
    html = to_json.content.decode()
    assert 'name="param_json"' in html and "&quot;enum&quot;: [" in html
    schema = {"type": "object", "properties": {"city": {"type": "string", "enum": ["Paris", "Rome"]}},
              "required": ["city"]}
    back = editor_client.post("/automations/_param-schema/",
                              {"param_mode": "json", "param_json": json.dumps(schema), "to": "table"})
    assert 'value="Paris, Rome"' in back.content.decode()
    nested = {"type": "object", "properties": {"items": {"type": "array"}}}
    stays = editor_client.post("/automations/_param-schema/",
                               {"param_mode": "json", "param_json": json.dumps(nested), "to": "table"})
    assert "keep editing it as JSON" in stays.content.decode()


def test_step_and_param_rows_render_for_htmx(editor_client):
    row = editor_client.get("/automations/_step-row/?kind=extract").content.decode()
    assert 'data-kind="extract"' in row and 'name="step"' in row
    assert "Param" not in row
    assert 'name="param"' in editor_client.get("/automations/_param-row/").content.decode()


def test_credentials_are_chosen_from_the_workspace(editor_client, personas):
    from venus_rpa.automations.services import credential_set

    credential_set(workspace=personas.workspace, name="crm", fields={"password": "s3cret"}, domains=["crm.test"])
    page = editor_client.get("/automations/new/").content.decode()
    assert 'name="credentials" value="crm"' in page
    response = editor_client.post("/automations/new/", editor_post(
        steps=[{"kind": "fill", "target_text": "Password", "value": "{{credentials.crm.password}}"}],
        credentials="crm"))
    assert response.status_code == 302
    assert Automation.objects.get(slug="sign-in").current_version.credentials == ["crm"]


def _as_post(form: AutomationEditor) -> dict:
    """What the browser posts for an editor page rendered from `form` (uids renamed s0, s1...)."""
    definition = form.definition
    data = editor_post(name=form.name, slug=form.slug, steps=[], params=[],
                       start_url=definition["start_url"], allowed_domains="\n".join(definition["allowed_domains"]),
                       goal=definition["goal"], output_schema=form.output_schema_json,
                       captcha_solver_1="local", captcha_solver_2="model", captcha_solver_3="human",
                       captcha_max_attempts="3", max_steps="100", max_seconds="600", param_extra=form.param_extra)
    for i, row in enumerate(form.steps):
        data["step"].append(f"s{i}")
        values = {**row.values, "kind": row.kind}
        for key, value in values.items():
            if isinstance(value, bool):
                if value:
                    data[f"s-s{i}-{key}"] = "on"
            else:
                data[f"s-s{i}-{key}"] = str(value)
    for i, row in enumerate(form.params or []):
        data["param"].append(f"p{i}")
        for key in ("name", "type", "default", "enum", "description", "extra"):
            data[f"p-p{i}-{key}"] = getattr(row, key)
        if row.required:
            data[f"p-p{i}-required"] = "on"
    return data


def test_step_rows_round_trip_every_kind():
    steps = [
        {"kind": "goto", "url": "/x"}, {"kind": "check", "target": {"label": "Agree"}, "checked": False},
        {"kind": "upload", "target": "Receipt", "filename": "r.txt", "content": "hi"},
        {"kind": "press", "key": "Enter"}, {"kind": "assert", "text": "Done", "absent": True},
        {"kind": "extract", "target": {"css": "#ref"}, "into": "ref", "pattern": "(EXP-\\d+)", "all": True},
        {"kind": "agent", "goal": "Find the invoice", "max_actions": 10},
        {"kind": "select", "target": "Category", "option": "Meals"},
        {"kind": "fill", "target": {"label": "Email address", "within": "Log In", "near": "Forgot?"}, "value": "a"},
    ]
    for step in steps:
        row = editor.step_row_from_step(step)
        back = editor.step_from_row(row)
        for key, value in step.items():
            expected = {"text": value} if key == "target" and isinstance(value, str) else value
            assert back[key] == expected, (step, back)


def test_the_json_view_keeps_the_parameter_order(editor_client):
    post = editor_post(params=[{"name": "zeta", "type": "string", "required": "on"},
                               {"name": "alpha", "type": "integer", "required": "on"}])
    html = editor_client.post("/automations/_param-schema/", {**post, "to": "json"}).content.decode()
    assert html.index("zeta") < html.index("alpha")
    schema = json.loads(html.split('name="param_json"')[1].split(">", 1)[1].split("</textarea>")[0]
                        .replace("&quot;", '"'))
    assert list(schema["properties"]) == ["zeta", "alpha"] and schema["required"] == ["zeta", "alpha"]


def test_a_change_note_longer_than_its_column_is_a_field_error_not_a_crash(editor_client, personas):
    response = editor_client.post("/automations/new/", editor_post(change_note="n" * 301,
                                                                    steps=[{"kind": "goto", "url": "/"}]))
    assert response.status_code == 400
    assert "A change note has at most 300 characters (this one has 301)." in response.content.decode()
    from venus_rpa.automations.models import Automation

    assert not Automation.objects.filter(workspace=personas.workspace, slug="sign-in").exists()


def test_a_new_automation_starts_with_a_click_to_fill_in_not_a_second_visit_to_the_site(editor_client):
    html = editor_client.get("/automations/new/").content.decode()
    assert html.count('name="step"') == 1 and 'value="/"' not in html
    response = editor_client.post("/automations/new/", editor_post(steps=[{"kind": "click"}]))
    assert response.status_code == 400  # left as it came: said at the row, nothing saved
    assert "Step 1" in response.content.decode()


def test_every_problem_is_said_on_the_first_save_not_the_rest_after_the_next(editor_client):
    """A definition that does not parse (a limit out of range) still has its start URL, allowed
    domains and schemas judged, so one save lists them all."""
    import html as html_lib

    data = editor_post(steps=[{"kind": "click", "target_text": "Go"}])
    data.update(start_url="not a url", allowed_domains="bad domain here", max_steps="0")
    page = html_lib.unescape(editor_client.post("/automations/new/", data).content.decode())
    assert "Max steps must be 1 or more." in page
    assert "Start the address with https:// or http://, e.g. https://example.com/page." in page
    assert "'bad domain here' is not a host name (it has spaces)" in page
