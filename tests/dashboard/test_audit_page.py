"""The workspace audit log: automation edits, runs started, reviews decided and credential
changes are recorded by their services; the page searches and pages them for the roles that act."""

from __future__ import annotations

from tests.dashboard.conftest import definition, make_run, signed_in
from venus_rpa.audit.models import AuditEvent


def actions(workspace) -> list[str]:
    return list(AuditEvent.objects.filter(workspace=workspace).order_by("id").values_list("action", flat=True))


def test_edits_runs_and_credentials_are_recorded_with_who_and_what(personas, automation):
    from venus_rpa.automations.services import automation_update, credential_set
    from venus_rpa.runs.services import run_start

    automation_update(automation=automation, user=personas.teammate, name="File an expense",
                      definition=definition(goal="File {{title}} today"), change_note="clearer goal")
    run = run_start(automation=automation, params={"title": "Taxi", "when": "2026-03-01"}, user=personas.owner,
                    trigger="dashboard")
    credential_set(workspace=personas.workspace, name="erp", fields={"username": "a", "password": "s3cret-value"},
                   domains=["erp.example.com"], user=personas.owner)
    credential_set(workspace=personas.workspace, name="erp", fields={"username": "a", "password": "other-value"},
                   domains=["erp.example.com"], user=personas.teammate)
    assert actions(personas.workspace) == ["automation_created", "automation_edited", "run_started",
                                           "credential_created", "credential_changed"]
    edited = AuditEvent.objects.get(action="automation_edited")
    assert edited.actor_name == "bob" and edited.version_number == 2
    assert "name: “File expense” → “File an expense”" in edited.changes and "goal changed" in edited.changes[1]
    started = AuditEvent.objects.get(action="run_started")
    assert started.changes == [f"run #{run.pk} started from the dashboard"] and started.actor_name == "alice"
    assert "Taxi" not in str(started.changes) + str(started.after)  # parameters are not copied into the log
    everything = str(list(AuditEvent.objects.values_list("changes", "before", "after")))
    assert "s3cret-value" not in everything and "other-value" not in everything  # never a secret value


def test_a_decision_is_recorded_once_with_its_comment(personas, automation):
    from tests.notifications.conftest import file_review
    from venus_rpa.reviews.services import review_decide

    run = make_run(automation, status="awaiting_review")
    review = review_decide(review=file_review(run), user=personas.owner, decision="reject", comment="wrong amount")
    event = AuditEvent.objects.get(action="review_rejected")
    assert event.after == {"status": "rejected", "comment": "wrong amount"}
    assert event.changes == [f"review #{review.pk} of run #{run.pk} rejected: {review.title}"]


def test_the_page_searches_and_pages_the_workspaces_events_only(personas, automation, foreign_automation):
    from venus_rpa.audit.services import audit_record

    for n in range(30):
        audit_record(workspace=personas.workspace, actor=personas.teammate, action="run_cancelled",
                     automation=automation, changes=[f"run #{1000 + n} cancelled"], before={}, after={})
    audit_record(workspace=personas.other_workspace, actor=personas.outsider, action="run_cancelled",
                 automation=foreign_automation, changes=["run #4242 cancelled"], before={}, after={})
    client = signed_in(personas.owner)
    first = client.get("/audit/").content.decode()
    assert "run #1029 cancelled" in first and "Page 1 of 2" in first and "globex" not in first.lower()
    second = client.get("/audit/?page=2").content.decode()
    assert "run #1000 cancelled" in second
    found = client.get("/audit/?q=1017").content.decode()
    assert "run #1017 cancelled" in found and "run #1016 cancelled" not in found
    assert "run #4242" not in client.get("/audit/?q=4242").content.decode()  # another workspace's: not found
    created = client.get("/audit/?action=automation_created").content.decode()
    assert "Automation created" in created and "run #1017" not in created
    assert client.get("/audit/?q=%00&page=999&action=bogus").status_code == 200  # bad input: a page, not a 500


def test_every_acting_role_sees_it_a_viewer_does_not(personas, reviewer):
    assert signed_in(personas.viewer).get("/audit/").status_code == 403
    for user in (personas.owner, personas.teammate, reviewer):
        assert signed_in(user).get("/audit/").status_code == 200
    assert signed_in(personas.outsider).get("/audit/").status_code == 200  # their own workspace's log
    assert b"Audit log" in signed_in(personas.owner).get("/settings/").content
