"""Members, roles and API tokens in the dashboard: who may do what, the last owner, tokens shown
once and acting with no more than their owner's role, and what hostile callers get."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from tests.dashboard.conftest import signed_in
from venus_rpa.accounts.models import ApiToken, Membership, Role, hash_token
from venus_rpa.audit.models import AuditAction, AuditEvent

pytestmark = pytest.mark.django_db
MEMBERS, TOKENS = reverse("dashboard:members"), reverse("dashboard:tokens")


def _membership(personas, user) -> Membership:
    return Membership.objects.get(workspace=personas.workspace, user=user)


def _role_url(membership) -> str:
    return reverse("dashboard:member-role", args=[membership.pk])


def _api(raw: str, method: str = "get", path: str = "/api/workspace/", body: str = "{}"):
    client = Client(HTTP_AUTHORIZATION=f"Bearer {raw}")
    if method == "get":
        return client.get(path)
    return client.generic(method.upper(), path, body, content_type="application/json")


def _new_token(client: Client, name: str = "ci", expires: str = "30") -> str:
    response = client.post(TOKENS, {"name": name, "expires": expires})
    assert response.status_code == 201, response.content[:500]
    return re.search(r'id="new-token">(vrpa_[A-Za-z0-9_-]+)<', response.content.decode()).group(1)


# -- members ----------------------------------------------------------------------------------------

def test_an_owner_adds_an_existing_user_by_username_or_email_and_it_is_audited(personas, owner_client):
    from tests.factories import UserFactory

    UserFactory(username="carol", email="Carol@Example.com")
    UserFactory(username="dave")
    assert owner_client.post(MEMBERS, {"who": "carol@example.com", "role": "reviewer"}).status_code == 302
    assert owner_client.post(MEMBERS, {"who": "dave", "role": "editor"}).status_code == 302
    roles = dict(personas.workspace.memberships.values_list("user__username", "role"))
    assert roles["carol"] == "reviewer" and roles["dave"] == "editor"
    events = AuditEvent.objects.filter(workspace=personas.workspace, action=AuditAction.MEMBER_ADDED)
    assert sorted(e.changes[0] for e in events) == ["Added carol as reviewer", "Added dave as editor"]
    assert {e.actor_name for e in events} == {"alice"}
    page = owner_client.get(MEMBERS).content.decode()
    assert "carol" in page and "dave" in page


def test_adding_an_unknown_or_present_user_says_why_and_adds_nothing(personas, owner_client):
    before = personas.workspace.memberships.count()
    unknown = owner_client.post(MEMBERS, {"who": "nobody@example.com", "role": "editor"})
    assert unknown.status_code == 400
    assert "has an account here" in unknown.content.decode()
    assert 'value="nobody@example.com"' in unknown.content.decode()  # what was typed is kept
    present = owner_client.post(MEMBERS, {"who": "bob", "role": "owner"})
    assert present.status_code == 409 and "already a member" in present.content.decode()
    bad_role = owner_client.post(MEMBERS, {"who": "mallory", "role": "admin"})
    assert bad_role.status_code == 400 and "Choose a role: owner, editor, reviewer or viewer." in bad_role.content.decode()
    assert personas.workspace.memberships.count() == before
    assert _membership(personas, personas.teammate).role == Role.EDITOR


def test_an_owner_changes_a_role_and_it_is_audited(personas, owner_client):
    bob = _membership(personas, personas.teammate)
    assert owner_client.post(_role_url(bob), {"role": "viewer"}).status_code == 302
    bob.refresh_from_db()
    assert bob.role == Role.VIEWER
    event = AuditEvent.objects.get(workspace=personas.workspace, action=AuditAction.MEMBER_ROLE_CHANGED)
    assert event.changes == ["bob: editor → viewer"] and event.before["role"] == "editor"


def test_the_last_owner_is_never_demoted_or_removed(personas, owner_client):
    alice = _membership(personas, personas.owner)
    demote = owner_client.post(_role_url(alice), {"role": "editor"})
    assert demote.status_code == 409
    assert "last owner: make someone else an owner first" in demote.content.decode()
    # Through htmx the refusal comes back as the members section, the reason beside the row.
    fragment = owner_client.post(_role_url(alice), {"role": "viewer"}, HTTP_HX_REQUEST="true")
    assert fragment.status_code == 200 and 'role="alert"' in fragment.content.decode()
    assert "last owner" in fragment.content.decode() and "<html" not in fragment.content.decode()
    remove = owner_client.post(reverse("dashboard:member-remove", args=[alice.pk]))
    assert remove.status_code == 409 and "last owner and cannot be removed" in remove.content.decode()
    alice.refresh_from_db()
    assert alice.role == Role.OWNER
    assert not AuditEvent.objects.filter(action__in=[AuditAction.MEMBER_ROLE_CHANGED, AuditAction.MEMBER_REMOVED])


def test_with_a_second_owner_an_owner_may_step_down_but_not_raise_themselves_again(personas, owner_client):
    from venus_rpa.accounts.services import member_role_set
    from venus_rpa.core.errors import PermissionDenied

    bob = _membership(personas, personas.teammate)
    owner_client.post(_role_url(bob), {"role": "owner"})
    alice = _membership(personas, personas.owner)
    assert owner_client.post(_role_url(alice), {"role": "editor"}).status_code == 302
    alice.refresh_from_db()
    assert alice.role == Role.EDITOR
    assert owner_client.post(_role_url(alice), {"role": "owner"}).status_code == 403  # not an owner any more
    with pytest.raises(PermissionDenied, match="cannot raise your own role"):
        member_role_set(workspace=personas.workspace, actor=personas.owner, membership=alice, role=Role.OWNER)
    alice.refresh_from_db()
    assert alice.role == Role.EDITOR


def test_a_viewer_or_editor_posting_to_member_endpoints_gets_403_and_changes_nothing(personas, viewer_client,
                                                                                   editor_client):
    alice, victor = _membership(personas, personas.owner), _membership(personas, personas.viewer)
    for client in (viewer_client, editor_client):
        assert client.post(MEMBERS, {"who": "mallory", "role": "owner"}).status_code == 403
        assert client.post(_role_url(victor), {"role": "owner"}).status_code == 403
        assert client.post(_role_url(alice), {"role": "viewer"}).status_code == 403
        assert client.post(reverse("dashboard:member-remove", args=[alice.pk])).status_code == 403
    assert dict(personas.workspace.memberships.values_list("user__username", "role")) == {
        "alice": "owner", "bob": "editor", "victor": "viewer"}
    # They still see who is in the workspace, without the owner's controls.
    page = viewer_client.get(MEMBERS).content.decode()
    assert "alice" in page and "Add a member" not in page and "Remove" not in page


def test_another_workspaces_member_and_token_ids_answer_404(personas, owner_client):
    from venus_rpa.accounts.services import api_token_create

    mallory = Membership.objects.get(user=personas.outsider)
    token, raw = api_token_create(workspace=personas.other_workspace, user=personas.outsider, name="theirs")
    assert owner_client.post(_role_url(mallory), {"role": "viewer"}).status_code == 404
    assert owner_client.post(reverse("dashboard:member-remove", args=[mallory.pk])).status_code == 404
    assert owner_client.get(reverse("dashboard:member-remove", args=[mallory.pk])).status_code == 404
    assert owner_client.post(reverse("dashboard:token-revoke", args=[token.pk])).status_code == 404
    mallory.refresh_from_db()
    token.refresh_from_db()
    assert mallory.role == Role.OWNER and token.revoked_at is None
    assert _api(raw).status_code == 200


def test_anonymous_callers_are_sent_to_sign_in(personas):
    bob = _membership(personas, personas.teammate)
    for url in (MEMBERS, TOKENS, _role_url(bob), reverse("dashboard:member-remove", args=[bob.pk])):
        response = Client().post(url, {"role": "owner", "who": "x", "name": "x"})
        assert response.status_code == 302 and "/login/" in response["Location"], url
    assert not ApiToken.objects.exists()


def test_csrf_is_enforced_on_every_member_and_token_form(personas):
    client = Client(enforce_csrf_checks=True)
    client.force_login(personas.owner)
    bob = _membership(personas, personas.teammate)
    from venus_rpa.accounts.services import api_token_create

    token, _ = api_token_create(workspace=personas.workspace, user=personas.owner, name="kept")
    posts = [(MEMBERS, {"who": "mallory", "role": "owner"}), (_role_url(bob), {"role": "owner"}),
             (reverse("dashboard:member-remove", args=[bob.pk]), {}), (TOKENS, {"name": "x", "expires": ""}),
             (reverse("dashboard:token-revoke", args=[token.pk]), {})]
    for url, data in posts:
        assert client.post(url, data).status_code == 403, url
    bob.refresh_from_db()
    token.refresh_from_db()
    assert bob.role == Role.EDITOR and token.revoked_at is None and ApiToken.objects.count() == 1
    assert not personas.workspace.memberships.filter(user=personas.outsider).exists()


def test_removing_a_member_revokes_their_tokens_and_adding_them_back_does_not_revive_them(personas, owner_client):
    raw = _new_token(signed_in(personas.teammate))
    assert _api(raw).status_code == 200
    bob = _membership(personas, personas.teammate)
    assert owner_client.get(reverse("dashboard:member-remove", args=[bob.pk])).status_code == 200
    assert owner_client.post(reverse("dashboard:member-remove", args=[bob.pk])).status_code == 302
    assert _api(raw).status_code == 401
    owner_client.post(MEMBERS, {"who": "bob", "role": "editor"})
    assert _api(raw).status_code == 401
    event = AuditEvent.objects.get(action=AuditAction.MEMBER_REMOVED)
    assert event.changes == ["Removed bob (editor)", "1 API token(s) of theirs revoked"]


# -- tokens -----------------------------------------------------------------------------------------

def test_a_token_is_shown_once_stored_hashed_and_only_its_prefix_is_shown_after(personas, viewer_client):
    response = viewer_client.post(TOKENS, {"name": "  report   script ", "expires": "30"})
    assert response.status_code == 201 and "no-store" in response["Cache-Control"]
    raw = re.search(r'id="new-token">(vrpa_[A-Za-z0-9_-]+)<', response.content.decode()).group(1)
    token = ApiToken.objects.get(user=personas.viewer)
    assert token.name == "report script" and token.token_hash == hash_token(raw) and raw.startswith(token.prefix)
    assert timedelta(days=29) < token.expires_at - timezone.now() <= timedelta(days=30)
    later = viewer_client.get(TOKENS).content.decode()
    assert raw not in later and f"{token.prefix}…" in later and "report script" in later
    event = AuditEvent.objects.get(action=AuditAction.TOKEN_CREATED)
    assert raw not in str(event.changes) + str(event.after) and event.after["token"] == token.prefix
    assert _api(raw).status_code == 200


def test_bad_token_forms_say_why_and_create_nothing(personas, editor_client):
    empty = editor_client.post(TOKENS, {"name": "   ", "expires": "30"})
    assert empty.status_code == 400 and "Give the token a name" in empty.content.decode()
    odd = editor_client.post(TOKENS, {"name": "x", "expires": "3650"})
    assert odd.status_code == 400 and "Choose one of the offered expiries." in odd.content.decode()
    long = editor_client.post(TOKENS, {"name": "x" * 101, "expires": ""})
    assert long.status_code == 400
    assert not ApiToken.objects.exists()


def test_an_expired_token_answers_401(personas, editor_client):
    raw = _new_token(editor_client, expires="7")
    ApiToken.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    assert _api(raw).status_code == 401
    assert "expired" in editor_client.get(TOKENS).content.decode()


def test_a_viewer_sees_and_revokes_only_their_own_tokens_an_owner_anyones(personas, viewer_client, editor_client,
                                                                          owner_client):
    mine, theirs = _new_token(viewer_client, "mine"), _new_token(editor_client, "theirs")
    page = viewer_client.get(TOKENS).content.decode()
    assert "mine" in page and "theirs" not in page
    bobs = ApiToken.objects.get(name="theirs")
    assert viewer_client.post(reverse("dashboard:token-revoke", args=[bobs.pk])).status_code == 403
    assert _api(theirs).status_code == 200
    victors = ApiToken.objects.get(name="mine")
    assert viewer_client.post(reverse("dashboard:token-revoke", args=[victors.pk])).status_code == 302
    assert _api(mine).status_code == 401
    assert "theirs" in owner_client.get(TOKENS).content.decode()
    assert owner_client.post(reverse("dashboard:token-revoke", args=[bobs.pk])).status_code == 302
    assert _api(theirs).status_code == 401
    assert [e.changes[0] for e in AuditEvent.objects.filter(action=AuditAction.TOKEN_REVOKED).order_by("id")] == [
        f"Token “mine” ({victors.prefix}…) of victor revoked", f"Token “theirs” ({bobs.prefix}…) of bob revoked"]
    assert AuditEvent.objects.filter(action=AuditAction.TOKEN_REVOKED).order_by("id").last().actor_name == "alice"


def test_a_token_never_grants_more_than_its_owners_role_now(personas, viewer_client, owner_client):
    viewer_raw = _new_token(viewer_client)
    assert _api(viewer_raw).status_code == 200
    assert _api(viewer_raw, "post", "/api/automations/").status_code == 403
    assert _api(viewer_raw, "patch", "/api/workspace/", '{"max_concurrent_runs": 3}').status_code == 403
    # An owner's token follows the owner's role: demoted, the same token loses the owner's rights.
    owner_raw = _new_token(owner_client)
    assert _api(owner_raw, "patch", "/api/workspace/", '{"max_concurrent_runs": 3}').status_code == 200
    owner_client.post(_role_url(_membership(personas, personas.teammate)), {"role": "owner"})
    assert owner_client.post(_role_url(_membership(personas, personas.owner)), {"role": "viewer"}).status_code == 302
    assert _api(owner_raw, "patch", "/api/workspace/", '{"max_concurrent_runs": 4}').status_code == 403
    personas.workspace.refresh_from_db()
    assert personas.workspace.max_concurrent_runs == 3


@pytest.mark.django_db(transaction=True)
def test_two_owners_demoting_each_other_at_once_leave_exactly_one_owner(personas):
    from threading import Barrier, Thread

    from django.db import connection

    from venus_rpa.accounts.services import member_role_set
    from venus_rpa.core.errors import ServiceError

    bob, alice = _membership(personas, personas.teammate), _membership(personas, personas.owner)
    Membership.objects.filter(pk=bob.pk).update(role=Role.OWNER)
    barrier, outcome = Barrier(2), {}

    def demote(actor, target):
        barrier.wait()
        try:
            member_role_set(workspace=personas.workspace, actor=actor, membership=target, role=Role.EDITOR)
            outcome[actor.username] = "demoted the other"
        except ServiceError as exc:
            outcome[actor.username] = exc.message
        finally:
            connection.close()

    threads = [Thread(target=demote, args=(personas.owner, bob)), Thread(target=demote, args=(personas.teammate, alice))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(outcome.values()) == ["Only an owner of the workspace adds, changes or removes members.",
                                        "demoted the other"]
    assert Membership.objects.filter(workspace=personas.workspace, role=Role.OWNER).count() == 1


def test_an_owner_may_leave_when_another_owner_remains(personas, owner_client):
    Membership.objects.filter(user=personas.teammate).update(role=Role.OWNER)
    alice = _membership(personas, personas.owner)
    response = owner_client.post(reverse("dashboard:member-remove", args=[alice.pk]))
    assert response.status_code == 302 and response["Location"] == reverse("dashboard:home")
    assert not personas.workspace.memberships.filter(user=personas.owner).exists()
    assert owner_client.get(MEMBERS).status_code == 403  # no workspace left to see


def test_a_token_form_sent_twice_makes_one_token_and_says_why(personas, viewer_client, editor_client):
    """A reload of the page that showed the new token re-sends the form: no second live credential."""
    from venus_rpa.accounts.models import ApiToken

    first = _new_token(viewer_client, "nightly report")
    again = viewer_client.post(TOKENS, {"name": "nightly report", "expires": "30"})
    assert again.status_code == 400
    page = again.content.decode()
    assert "You already have a working token named “nightly report”" in page and "no second token was created" in page
    assert first not in page and 'id="new-token"' not in page  # the value is never shown again
    assert ApiToken.objects.filter(user=personas.viewer, name="nightly report").count() == 1
    # Another member may use the name; a revoked token frees it.
    assert _new_token(editor_client, "nightly report")
    token = ApiToken.objects.get(user=personas.viewer, name="nightly report")
    assert viewer_client.post(reverse("dashboard:token-revoke", args=[token.pk])).status_code == 302
    assert _new_token(viewer_client, "nightly report")


def test_only_owners_see_members_emails_everyone_their_own(personas, owner_client, viewer_client):
    """Privacy: a viewer or editor sees who is in the workspace and their roles, not teammates'
    e-mail addresses (an owner needs them to manage members)."""
    personas.owner.email, personas.viewer.email = "alice@corp.example", "vera@corp.example"
    personas.owner.save(update_fields=["email"])
    personas.viewer.save(update_fields=["email"])
    as_viewer = viewer_client.get(MEMBERS).content.decode()
    assert personas.owner.username in as_viewer and "alice@corp.example" not in as_viewer
    assert "vera@corp.example" in as_viewer  # their own
    assert "alice@corp.example" in owner_client.get(MEMBERS).content.decode()
