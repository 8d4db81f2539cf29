"""Inviting someone without an account: the owner's form and `manage.py invite_member` make the
account (no password) and membership, audited; the sign-up link is shown once, sets a password
and signs in, and is refused once used, tampered with or naming nobody."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from tests.dashboard.conftest import signed_in
from venus_rpa.accounts.models import Membership
from venus_rpa.audit.models import AuditAction, AuditEvent
from venus_rpa.dashboard.views.welcome import INVALID_LINK

pytestmark = pytest.mark.django_db
MEMBERS, INVITE = reverse("dashboard:members"), reverse("dashboard:member-invite")
LINK = re.compile(r'id="signup-link">(http://testserver/accounts/welcome/[^<]+)<')
PASSWORD = "a long enough passphrase 42"


def _invite(client: Client, username: str = "carol", role: str = "editor", email: str = "") -> str:
    """The sign-up link an owner's invitation shows, after following its redirect."""
    response = client.post(INVITE, {"username": username, "role": role, "email": email})
    assert response.status_code == 302 and response["Location"] == MEMBERS, response.content[:500]
    page = client.get(MEMBERS)
    assert page["Cache-Control"] == "no-store"
    return LINK.search(page.content.decode()).group(1)


def _sign_up(link: str, password: str = PASSWORD) -> tuple[Client, object]:
    client = Client()
    first = client.get(link)
    assert first.status_code == 302  # the token moves into the session, off the URL
    form_url = first["Location"]
    assert form_url.endswith("/set-password/")
    return client, client.post(form_url, {"new_password1": password, "new_password2": password})


def test_adding_someone_without_an_account_offers_the_invitation_filled_in(owner_client):
    response = owner_client.post(MEMBERS, {"who": "carol@example.com", "role": "reviewer"})
    page = response.content.decode()
    assert response.status_code == 400
    assert '<details class="card stack" id="invite" open>' in page
    assert 'name="username" value="carol"' in page and 'name="email" type="email" value="carol@example.com"' in page
    assert not get_user_model().objects.filter(username="carol").exists()


def test_an_owner_invites_and_the_link_is_shown_once_never_in_the_audit(personas, owner_client):
    response = owner_client.post(INVITE, {"username": "carol", "role": "editor", "email": "carol@example.com"})
    assert response.status_code == 302 and "welcome" not in response["Location"]
    carol = get_user_model().objects.get(username="carol")
    assert not carol.has_usable_password() and carol.email == "carol@example.com" and carol.last_login is None
    assert Membership.objects.get(workspace=personas.workspace, user=carol).role == "editor"
    page = owner_client.get(MEMBERS).content.decode()
    link = LINK.search(page).group(1)
    assert "no e-mail is sent" in page and "invited, not signed up yet" in page
    assert LINK.search(owner_client.get(MEMBERS).content.decode()) is None  # a reload shows it no more
    event = AuditEvent.objects.get(workspace=personas.workspace, action=AuditAction.MEMBER_ADDED)
    assert event.changes == ["Invited carol as editor"] and event.actor_name == "alice"
    token = link.rstrip("/").rsplit("/", 1)[1]
    assert token not in str([event.changes, event.before, event.after])


def test_the_link_sets_a_password_signs_in_and_then_is_refused(owner_client):
    link = _invite(owner_client)
    client, response = _sign_up(link)
    assert response.status_code == 302 and response["Location"] == reverse("dashboard:home")
    assert client.get(reverse("dashboard:home")).status_code == 200
    signed = Client().post(reverse("dashboard:login"), {"username": "carol", "password": PASSWORD})
    assert signed.status_code == 302  # the password now signs in on the ordinary sign-in page
    again = Client().get(link)
    assert again.status_code == 400 and INVALID_LINK in again.content.decode()


def test_the_form_keeps_to_the_password_rules(owner_client):
    client, response = _sign_up(_invite(owner_client), password="short")
    assert response.status_code == 200 and "too short" in response.content.decode()
    assert not get_user_model().objects.get(username="carol").has_usable_password()


@pytest.mark.parametrize("tamper", [lambda link: link[:-3] + "xx/", lambda link: re.sub(r"/welcome/[^/]+/",
                                                                                         "/welcome/OTk5OTk/", link)])
def test_a_tampered_link_or_one_naming_nobody_gets_the_same_refusal(owner_client, tamper):
    response = Client().get(tamper(_invite(owner_client)))
    assert response.status_code == 400 and INVALID_LINK in response.content.decode()
    assert "carol" not in response.content.decode()


def test_bad_invitations_are_refused_naming_the_field(owner_client, personas):
    cases = [({"username": "bad name!", "role": "editor"}, "username", 400),
             ({"username": "carol", "role": "editor", "email": "not-an-address"}, "email", 400),
             ({"username": "carol", "role": "king"}, "role", 400),
             ({"username": "bob", "role": "editor"}, "username", 409)]  # bob has an account: add him instead
    for form, field, status in cases:
        response = owner_client.post(INVITE, form)
        assert response.status_code == status, form
        assert '<details class="card stack" id="invite" open>' in response.content.decode()
    assert not get_user_model().objects.filter(username="carol").exists()
    assert not AuditEvent.objects.filter(workspace=personas.workspace).exists()


def test_an_owner_makes_a_new_link_for_someone_who_never_signed_up(owner_client, personas):
    _invite(owner_client, role="viewer")
    link = _invite(owner_client, role="owner")  # the new link; the role stays viewer
    carol = get_user_model().objects.get(username="carol")
    assert Membership.objects.get(workspace=personas.workspace, user=carol).role == "viewer"
    _sign_up(link)
    assert owner_client.post(INVITE, {"username": "carol", "role": "viewer"}).status_code == 409


def test_editors_viewers_and_another_workspaces_owner_cannot_invite_into_it(personas, editor_client,
                                                                             viewer_client, outsider_client):
    for client in (editor_client, viewer_client):
        assert client.post(INVITE, {"username": "carol", "role": "owner"}).status_code == 403
    assert not get_user_model().objects.filter(username="carol").exists()
    # The outsider owns their own workspace: their invitation lands there, never in ours.
    assert outsider_client.post(INVITE, {"username": "carol", "role": "owner"}).status_code == 302
    carol = get_user_model().objects.get(username="carol")
    assert list(Membership.objects.filter(user=carol).values_list("workspace", flat=True)) == [personas.other_workspace.pk]
    # Nor can they make a new link for our pending invitee.
    dave_link = _invite(signed_in(personas.owner), username="dave")
    assert outsider_client.post(INVITE, {"username": "dave", "role": "viewer"}).status_code == 409
    assert dave_link


def test_an_owner_who_added_someone_elses_invitee_cannot_get_the_key_to_their_account(personas, outsider_client):
    """Whoever sets the password owns the account in every workspace it belongs to: the owner of
    another workspace who adds our pending invitee there gets no sign-up link for them."""
    _invite(signed_in(personas.owner), username="dave")
    added = outsider_client.post(MEMBERS, {"who": "dave", "role": "viewer"})
    assert added.status_code in (200, 302)  # an existing account may be added, as any
    assert Membership.objects.filter(user__username="dave", workspace=personas.other_workspace).exists()
    refused = outsider_client.post(INVITE, {"username": "dave", "role": "viewer"})
    assert refused.status_code == 409 and "only an administrator" in refused.content.decode()
    assert "/accounts/welcome/" not in refused.content.decode()
    assert "/accounts/welcome/" not in outsider_client.get(MEMBERS).content.decode()
    # Nor can our own owner, now that dave belongs to another workspace too: an administrator can.
    assert signed_in(personas.owner).post(INVITE, {"username": "dave", "role": "viewer"}).status_code == 409


def test_the_command_prints_a_working_link(personas, settings):
    settings.VENUS_PUBLIC_URL = "http://testserver"
    out = StringIO()
    call_command("invite_member", "carol", workspace=personas.workspace.slug, role="reviewer",
                 email="carol@example.com", stdout=out)
    link = re.search(r"(http://testserver/accounts/welcome/\S+)", out.getvalue()).group(1)
    assert "no e-mail is sent" in out.getvalue()
    event = AuditEvent.objects.get(workspace=personas.workspace, action=AuditAction.MEMBER_ADDED)
    assert event.actor_name == "" and event.changes == ["Invited carol as reviewer"]
    client, response = _sign_up(link)
    assert response.status_code == 302 and client.get(MEMBERS).status_code == 200
    with pytest.raises(CommandError, match="already has an account"):
        call_command("invite_member", "bob", workspace=personas.workspace.slug, role="viewer", stdout=StringIO())
    with pytest.raises(CommandError, match="No workspace"):
        call_command("invite_member", "zoe", workspace="nope", role="viewer", stdout=StringIO())
