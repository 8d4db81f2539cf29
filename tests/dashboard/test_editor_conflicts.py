"""Two editor tabs on one automation: the page posts the version it was opened at
(`base_version`), and a save over a newer version is refused with the reason, keeping the
typed input and making no version.

The field can only refuse a save: a hostile editor who changes or drops it gets at most what
they could do before it existed (save over the current version, which their role allows anyway);
a viewer is refused as before; an unreadable value is the same as none."""

from __future__ import annotations

import html

import pytest

from tests.helpers.form_fields import form_data
from venus_rpa.automations.models import AutomationVersion

pytestmark = pytest.mark.django_db


def opened(client, automation) -> dict[str, list[str]]:
    """What the editor tab posts when saved unchanged: every field of its page's form."""
    page = client.get(f"/automations/{automation.slug}/")
    assert page.status_code == 200
    return form_data(page.content.decode(), "automation-form")


def set_save_target(data: dict[str, list[str]], name: str) -> None:
    """Change the second step's target (the fixture's "Save" button) in a tab's fields."""
    uid = data["step"][1]
    assert data[f"s-{uid}-target_name"] == ["Save"]
    data[f"s-{uid}-target_name"] = [name]


def test_the_editor_page_sends_the_version_it_shows(editor_client, automation):
    assert opened(editor_client, automation)["base_version"] == ["1"]


def test_a_save_from_a_stale_tab_is_refused_with_the_reason_and_keeps_the_typed_input(
        editor_client, owner_client, automation, personas):
    tab_a, tab_b = opened(editor_client, automation), opened(owner_client, automation)
    set_save_target(tab_a, "Submit")
    assert editor_client.post(f"/automations/{automation.slug}/", tab_a).status_code == 302  # version 2
    tab_b["description"] = ["Files one expense report, typed in tab B"]

    refused = owner_client.post(f"/automations/{automation.slug}/", tab_b)

    assert refused.status_code == 409
    page = html.unescape(refused.content.decode())
    assert "This automation was changed (version 2 by bob, " in page
    assert "since you opened version 1: reload to see it." in page
    assert "Your changes are kept in the form below" in page
    assert "Files one expense report, typed in tab B" in page  # nothing typed is lost
    assert f"/automations/{automation.slug}/versions/?a=1&b=2" in page  # what came in between
    automation.refresh_from_db()
    assert automation.description == ""
    assert AutomationVersion.objects.filter(automation=automation).count() == 2
    assert automation.current_version.steps[1]["target"]["name"] == "Submit"  # tab A's change stands
    # The refused page still holds the version tab B started from: saving it again is refused again.
    again = form_data(refused.content.decode(), "automation-form")
    assert again["base_version"] == ["1"]
    assert again["description"] == ["Files one expense report, typed in tab B"]
    assert owner_client.post(f"/automations/{automation.slug}/", again).status_code == 409
    assert AutomationVersion.objects.filter(automation=automation).count() == 2


def test_a_save_from_a_tab_opened_after_the_change_goes_through(editor_client, owner_client, automation):
    first = opened(editor_client, automation)
    set_save_target(first, "Submit")
    assert editor_client.post(f"/automations/{automation.slug}/", first).status_code == 302

    reloaded = opened(owner_client, automation)
    assert reloaded["base_version"] == ["2"]
    reloaded["description"] = ["Reloaded, then described"]
    response = owner_client.post(f"/automations/{automation.slug}/", reloaded)

    assert response.status_code == 302
    automation.refresh_from_db()
    assert automation.description == "Reloaded, then described"
    assert automation.current_version.number == 2  # only the description changed: no new version
    assert automation.current_version.steps[1]["target"]["name"] == "Submit"


def test_a_field_error_keeps_the_base_so_the_corrected_save_is_still_checked(editor_client, automation):
    tab = opened(editor_client, automation)
    tab["name"] = [""]
    refused = editor_client.post(f"/automations/{automation.slug}/", tab)
    assert refused.status_code == 400
    assert form_data(refused.content.decode(), "automation-form")["base_version"] == ["1"]


@pytest.mark.parametrize("base, status", [("7", 409), ("not a number", 302), ("", 302)])
def test_a_forged_base_only_refuses_or_is_ignored(editor_client, automation, base, status):
    tab = opened(editor_client, automation)
    tab["base_version"] = [base]
    set_save_target(tab, "Submit")
    assert editor_client.post(f"/automations/{automation.slug}/", tab).status_code == status
    automation.refresh_from_db()
    assert automation.current_version.number == (1 if status == 409 else 2)


def test_a_viewer_sending_the_current_base_is_still_refused(viewer_client, editor_client, automation):
    tab = opened(editor_client, automation)
    tab["description"] = ["Viewer was here"]
    assert viewer_client.post(f"/automations/{automation.slug}/", tab).status_code == 403
    automation.refresh_from_db()
    assert automation.description == ""


# -- a change that makes no version (the name, the description) ----------------------------------

@pytest.fixture
def stable(personas):
    """An automation the editor gives back exactly as stored (no parameter schema, whose order
    PostgreSQL's JSON does not keep), so a save of its name alone makes no version."""
    from tests.dashboard.conftest import definition
    from venus_rpa.automations.services import automation_create

    steps = [{"kind": "fill", "name": "Title", "target": "Title", "value": "Lunch"},
             {"kind": "click", "target": {"role": "button", "name": "Save"}}]
    return automation_create(workspace=personas.workspace, user=personas.owner, slug="file-lunch",
                             name="File lunch", definition=definition(goal="File lunch", param_schema={}, steps=steps))


def test_the_editor_page_sends_the_revision_it_shows(editor_client, automation):
    assert opened(editor_client, automation)["base_revision"] == ["1"]
    tab = opened(editor_client, automation)
    tab["name"] = ["File expense (renamed)"]
    assert editor_client.post(f"/automations/{automation.slug}/", tab).status_code == 302
    assert opened(editor_client, automation)["base_revision"] == ["2"]


def test_a_stale_tab_cannot_revert_a_change_to_the_name_only(editor_client, owner_client, stable):
    """Version 1 opened in two tabs; one renames it (no new version, the next revision); the
    other's save, which would put the old name back, is refused and the new name kept."""
    automation = stable
    tab_a, tab_b = opened(editor_client, automation), opened(owner_client, automation)
    tab_a["name"] = ["File lunch report"]
    assert editor_client.post(f"/automations/{automation.slug}/", tab_a).status_code == 302
    automation.refresh_from_db()
    assert (automation.name, automation.current_version.number, automation.revision) == ("File lunch report", 1, 2)
    tab_b["description"] = ["Typed in tab B"]

    refused = owner_client.post(f"/automations/{automation.slug}/", tab_b)

    assert refused.status_code == 409
    page = html.unescape(refused.content.decode())
    banner = page.split('id="edit-conflict"')[1].split("</div>")[0]
    assert "This automation was changed (by bob, " in banner and "since you opened it: reload to see it." in banner
    assert "see what changed" not in banner  # no version in between to compare
    assert "Typed in tab B" in page  # nothing typed is lost
    automation.refresh_from_db()
    assert (automation.name, automation.description, automation.revision) == ("File lunch report", "", 2)
    assert AutomationVersion.objects.filter(automation=automation).count() == 1
    again = form_data(refused.content.decode(), "automation-form")
    assert again["base_revision"] == ["1"]  # saving the refused page again is refused again
    assert owner_client.post(f"/automations/{automation.slug}/", again).status_code == 409


@pytest.mark.parametrize("stale_change", ["nothing", "steps", "replay_cache"])
def test_after_a_description_change_any_save_from_an_older_tab_is_refused(
        editor_client, owner_client, automation, stale_change):
    tab_a, tab_b = opened(editor_client, automation), opened(owner_client, automation)
    tab_a["description"] = ["Described in tab A"]
    assert editor_client.post(f"/automations/{automation.slug}/", tab_a).status_code == 302
    if stale_change == "steps":
        set_save_target(tab_b, "Submit")
    elif stale_change == "replay_cache":
        del tab_b["replay_cache"]

    assert owner_client.post(f"/automations/{automation.slug}/", tab_b).status_code == 409

    automation.refresh_from_db()
    assert automation.description == "Described in tab A"
    assert automation.replay_cache is True
    assert automation.current_version.steps[1]["target"]["name"] == "Save"


def test_a_save_that_changes_nothing_moves_no_revision(editor_client, owner_client, stable):
    automation = stable
    tab_a, tab_b = opened(editor_client, automation), opened(owner_client, automation)
    assert editor_client.post(f"/automations/{automation.slug}/", tab_a).status_code == 302
    automation.refresh_from_db()
    assert (automation.revision, automation.current_version.number) == (1, 1)
    tab_b["name"] = ["Renamed in tab B"]
    assert owner_client.post(f"/automations/{automation.slug}/", tab_b).status_code == 302


@pytest.mark.parametrize("base, status", [("7", 409), ("not a number", 302), ("", 302)])
def test_a_forged_revision_only_refuses_or_is_ignored(editor_client, automation, base, status):
    tab = opened(editor_client, automation)
    tab["base_revision"] = [base]
    tab["name"] = ["Forged"]
    assert editor_client.post(f"/automations/{automation.slug}/", tab).status_code == status
    automation.refresh_from_db()
    assert automation.name == ("File expense" if status == 409 else "Forged")


def test_a_viewer_sending_the_current_revision_is_still_refused(viewer_client, editor_client, automation):
    tab = opened(editor_client, automation)
    tab["name"] = ["Viewer was here"]
    assert viewer_client.post(f"/automations/{automation.slug}/", tab).status_code == 403
    automation.refresh_from_db()
    assert (automation.name, automation.revision) == ("File expense", 1)
