"""PATCH /api/automations/{slug}/ with `base_version`: an update made from an old read is refused
(409, the one error shape) instead of silently reverting the versions in between; without the
field the update applies as it always did.

The field can only refuse an update: a hostile client that forges or drops it gets at most what it
could do before the field existed (update whatever version is current, which its role allows
anyway); a viewer or an outsider is refused as before, whatever base it sends."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, transaction

from tests.api.conftest import assert_error
from venus_rpa.automations.models import AutomationVersion
from venus_rpa.automations.services import automation_update
from venus_rpa.core.errors import Conflict


def detail(slug: str) -> str:
    return f"/api/automations/{slug}/"


def retargeted(definition: dict, target: str) -> list[dict]:
    steps = [dict(step) for step in definition["steps"]]
    steps[4]["target"] = target
    return steps


@pytest.mark.django_db
def test_an_update_from_an_old_version_is_409_and_changes_nothing(owner, editor, automation, definition):
    first = editor.patch(detail(automation.slug), {"steps": retargeted(definition, "Expense title"),
                                                   "base_version": 1}, format="json")
    assert first.status_code == 200, first.json()
    assert first.json()["version"]["number"] == 2

    stale = owner.patch(detail(automation.slug), {"description": "From an old read", "base_version": 1,
                                                  "steps": definition["steps"]}, format="json")

    error = assert_error(stale, 409, "conflict")
    assert error["message"].startswith("This automation was changed (version 2 by bob, ")
    assert error["message"].endswith("since you opened version 1: reload to see it.")
    assert error["fields"] == {"base_version": ["Version 1 is not the current version (2)."]}
    automation.refresh_from_db()
    assert automation.description == ""
    assert AutomationVersion.objects.filter(automation=automation).count() == 2
    assert automation.current_version.steps[4]["target"] == {"text": "Expense title"}


@pytest.mark.django_db
def test_an_update_from_the_current_version_goes_through(owner, automation, definition):
    response = owner.patch(detail(automation.slug), {"steps": retargeted(definition, "Expense title"),
                                                     "base_version": 1}, format="json")
    assert response.status_code == 200, response.json()
    again = owner.patch(detail(automation.slug), {"description": "Next", "base_version": 2}, format="json")
    assert again.status_code == 200, again.json()
    assert again.json()["description"] == "Next"
    assert again.json()["version"]["number"] == 2


@pytest.mark.django_db
def test_without_a_base_an_update_applies_to_the_current_version_as_before(owner, editor, automation, definition):
    assert editor.patch(detail(automation.slug), {"steps": retargeted(definition, "Expense title")},
                        format="json").status_code == 200
    response = owner.patch(detail(automation.slug), {"steps": definition["steps"], "description": "Mine"},
                           format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["version"]["number"] == 3
    assert response.json()["version"]["steps"][4]["target"] == {"text": "Title"}


@pytest.mark.django_db
def test_a_base_newer_than_the_current_version_is_refused(owner, automation):
    error = assert_error(owner.patch(detail(automation.slug), {"name": "Forged", "base_version": 9}, format="json"),
                         409, "conflict")
    assert error["fields"] == {"base_version": ["The current version is 1."]}
    automation.refresh_from_db()
    assert automation.name == "Demo expense"


@pytest.mark.django_db
@pytest.mark.parametrize("base", ["1", 0, -1, 1.5, True, None, 2**31])
def test_a_base_that_is_not_a_version_number_is_a_field_error(owner, automation, base):
    error = assert_error(owner.patch(detail(automation.slug), {"name": "X", "base_version": base}, format="json"),
                         400, "invalid")
    assert list(error["fields"]) == ["base_version"]


@pytest.mark.django_db
def test_the_right_base_gives_a_viewer_or_an_outsider_nothing(viewer, outsider, automation):
    assert_error(viewer.patch(detail(automation.slug), {"name": "Hijacked", "base_version": 1}, format="json"),
                 403, "permission_denied")
    assert_error(outsider.patch(detail(automation.slug), {"name": "Mine", "base_version": 1}, format="json"),
                 404, "not_found")
    automation.refresh_from_db()
    assert automation.name == "Demo expense"


@pytest.mark.django_db
def test_the_openapi_document_describes_base_version_and_the_409(owner):
    document = owner.get("/api/schema/", {"format": "json"}).json()
    patch = document["paths"]["/api/automations/{slug}/"]["patch"]
    assert "409" in patch["responses"]
    body = patch["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
    field = document["components"]["schemas"][body]["properties"]["base_version"]
    assert field["type"] == "integer" and field["minimum"] == 1
    assert "409" in field["description"]


@pytest.mark.django_db(transaction=True)
def test_two_saves_from_the_same_base_at_once_cannot_both_pass(personas, automation):
    """The first save holds the automation's row lock until it commits; the second waits for it,
    then sees the first's version and is refused."""
    first_saved, release, outcome = threading.Event(), threading.Event(), {}

    def save(name: str, goal: str, hold: bool) -> None:
        try:
            with transaction.atomic():
                automation_update(automation=automation, user=personas.owner, definition={"goal": goal},
                                  base_version=1)
                if hold:
                    first_saved.set()
                    release.wait(30)
            outcome[name] = "saved"
        except Conflict as exc:
            outcome[name] = exc
        finally:
            connection.close()

    first = threading.Thread(target=save, args=("first", "First goal", True))
    first.start()
    assert first_saved.wait(30)
    second = threading.Thread(target=save, args=("second", "Second goal", False))
    second.start()
    second.join(1.0)
    assert second.is_alive()  # waiting on the row lock, not deciding from what it read before
    release.set()
    first.join(30)
    second.join(30)

    assert outcome["first"] == "saved"
    assert isinstance(outcome["second"], Conflict), outcome
    assert "version 2 by alice" in outcome["second"].message
    automation.refresh_from_db()
    assert automation.current_version.number == 2
    assert automation.current_version.goal == "First goal"


# -- base_revision: a change that makes no version (name, description, replay cache) -----------------

@pytest.mark.django_db
def test_a_stale_update_cannot_revert_a_change_to_the_name_only(owner, editor, automation):
    read = owner.get(detail(automation.slug)).json()
    assert (read["revision"], read["version"]["number"]) == (1, 1)
    renamed = editor.patch(detail(automation.slug), {"name": "Expense report", "base_revision": 1}, format="json")
    assert renamed.status_code == 200, renamed.json()
    assert (renamed.json()["revision"], renamed.json()["version"]["number"]) == (2, 1)  # no new version

    stale = owner.patch(detail(automation.slug), {"name": "Demo expense", "description": "From an old read",
                                                  "base_revision": 1, "base_version": 1}, format="json")

    error = assert_error(stale, 409, "conflict")
    assert error["message"].startswith("This automation was changed (by bob, ")
    assert error["message"].endswith("since you opened it: reload to see it.")
    assert error["fields"] == {"base_revision": ["Revision 1 is not the current revision (2)."]}
    automation.refresh_from_db()
    assert (automation.name, automation.description, automation.revision) == ("Expense report", "", 2)


@pytest.mark.django_db
def test_every_change_moves_the_revision_and_an_update_from_the_current_one_goes_through(owner, automation,
                                                                                            definition):
    changes = [{"description": "One"}, {"replay_cache": False}, {"steps": retargeted(definition, "Expense title")},
               {"name": "Four"}]
    for revision, change in enumerate(changes, start=1):
        response = owner.patch(detail(automation.slug), {**change, "base_revision": revision}, format="json")
        assert response.status_code == 200, response.json()
        assert response.json()["revision"] == revision + 1
    same = owner.patch(detail(automation.slug), {"name": "Four", "base_revision": 5}, format="json")
    assert same.json()["revision"] == 5  # nothing changed: no new revision
    assert same.json()["version"]["number"] == 2


@pytest.mark.django_db
def test_without_base_revision_a_name_change_applies_as_before(owner, editor, automation):
    assert editor.patch(detail(automation.slug), {"name": "Expense report"}, format="json").status_code == 200
    response = owner.patch(detail(automation.slug), {"name": "Mine", "base_version": 1}, format="json")
    assert response.status_code == 200, response.json()
    assert (response.json()["name"], response.json()["revision"]) == ("Mine", 3)


@pytest.mark.django_db
def test_a_revision_newer_than_the_current_one_is_refused(owner, automation):
    error = assert_error(owner.patch(detail(automation.slug), {"name": "Forged", "base_revision": 9}, format="json"),
                         409, "conflict")
    assert error["fields"] == {"base_revision": ["The current revision is 1."]}
    automation.refresh_from_db()
    assert automation.name == "Demo expense"


@pytest.mark.django_db
@pytest.mark.parametrize("base", ["1", 0, -1, 1.5, True, None, 2**31])
def test_a_revision_that_is_not_a_number_is_a_field_error(owner, automation, base):
    error = assert_error(owner.patch(detail(automation.slug), {"name": "X", "base_revision": base}, format="json"),
                         400, "invalid")
    assert list(error["fields"]) == ["base_revision"]


@pytest.mark.django_db
def test_the_right_revision_gives_a_viewer_or_an_outsider_nothing(viewer, outsider, automation):
    assert_error(viewer.patch(detail(automation.slug), {"name": "Hijacked", "base_revision": 1}, format="json"),
                 403, "permission_denied")
    assert_error(outsider.patch(detail(automation.slug), {"name": "Mine", "base_revision": 1}, format="json"),
                 404, "not_found")
    automation.refresh_from_db()
    assert (automation.name, automation.revision) == ("Demo expense", 1)


@pytest.mark.django_db
def test_the_openapi_document_describes_base_revision_and_revision(owner):
    document = owner.get("/api/schema/", {"format": "json"}).json()
    patch = document["paths"]["/api/automations/{slug}/"]["patch"]
    body = patch["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
    field = document["components"]["schemas"][body]["properties"]["base_revision"]
    assert field["type"] == "integer" and field["minimum"] == 1 and "409" in field["description"]
    out = patch["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
    assert "revision" in document["components"]["schemas"][out]["properties"]
