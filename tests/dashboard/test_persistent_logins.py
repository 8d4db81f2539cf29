"""Persistent logins in the dashboard: marking sign-in steps in the editor, and a credential's
page listing its saved sessions (never their content), revocable by editors only."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from tests.dashboard.test_editor import editor_post
from venus_rpa.automations.models import Automation, LoginSession
from venus_rpa.automations.services import credential_set, login_session_save

COOKIE = "cookie-value-5d1e7a9b3c"
SIGN_IN_STEPS = [
    {"kind": "fill", "target_text": "Username", "value": "{{credentials.crm.username}}", "sign_in": "on"},
    {"kind": "fill", "target_text": "Password", "value": "{{credentials.crm.password}}", "sign_in": "on"},
    {"kind": "click", "target_role": "button", "target_name": "Sign in", "sign_in": "on"},
    {"kind": "wait_for", "text": "Welcome"},
]


def crm(personas):
    return credential_set(workspace=personas.workspace, name="crm", domains=["127.0.0.1"],
                          fields={"username": "ann", "password": "hunter2-secret"})


def saved_session(personas):
    return login_session_save(
        workspace=personas.workspace, credential_name="crm", domain="127.0.0.1", allowed_domains=["127.0.0.1"],
        state={"cookies": [{"name": "sid", "value": COOKIE, "domain": "127.0.0.1", "path": "/", "expires": -1}],
               "origins": []},
        expires_at=timezone.now() + timedelta(days=2))


def test_the_editor_marks_sign_in_steps_and_stores_the_check(editor_client, personas):
    crm(personas)
    response = editor_client.post("/automations/new/", editor_post(
        steps=SIGN_IN_STEPS, sign_in_text_visible="Sign out", sign_in_url_excludes="/login"))
    assert response.status_code == 302, response.content.decode()[:3000]
    version = Automation.objects.get(workspace=personas.workspace, slug="sign-in").current_version
    assert [bool(s.get("sign_in")) for s in version.steps] == [True, True, True, False]
    assert version.sign_in == {"credential": "crm", "domain": "127.0.0.1",
                               "check": {"text_visible": "Sign out", "url_excludes": "/login", "timeout_s": 3.0}}

    page = editor_client.get("/automations/sign-in/").content.decode()
    assert page.count('-sign_in" checked') == 3
    assert 'name="sign_in_text_visible" value="Sign out"' in page


def test_marked_steps_without_a_check_are_refused_on_the_page(editor_client, personas):
    crm(personas)
    response = editor_client.post("/automations/new/", editor_post(steps=SIGN_IN_STEPS))
    assert response.status_code == 400
    assert "The signed-in check needs text visible, URL contains or URL does not contain." in response.content.decode()


def test_a_credential_page_lists_its_sessions_without_their_content(viewer_client, personas):
    crm(personas)
    session = saved_session(personas)
    response = viewer_client.get("/credentials/crm/")
    html = response.content.decode()
    assert response.status_code == 200
    assert "127.0.0.1" in html and "never" in html  # domain; last used: never
    assert session.expires_at.strftime("%b") in html
    assert COOKIE not in html and "hunter2" not in html
    assert "Revoke" not in html  # viewers cannot revoke
    assert viewer_client.post(f"/credentials/crm/sessions/{session.pk}/revoke/").status_code == 403
    assert viewer_client.post("/credentials/crm/sessions/revoke/").status_code == 403
    assert LoginSession.objects.filter(pk=session.pk).exists()
    assert "/credentials/crm/" in viewer_client.get("/credentials/").content.decode()


def test_an_editor_revokes_a_session(editor_client, personas):
    crm(personas)
    session = saved_session(personas)
    assert "Revoke" in editor_client.get("/credentials/crm/").content.decode()
    response = editor_client.post(f"/credentials/crm/sessions/{session.pk}/revoke/", follow=True)
    assert response.status_code == 200
    assert "Revoked the session for 127.0.0.1" in response.content.decode()
    assert not LoginSession.objects.exists()


def test_another_workspace_cannot_see_or_revoke(outsider_client, personas):
    crm(personas)
    session = saved_session(personas)
    assert outsider_client.get("/credentials/crm/").status_code == 404
    assert outsider_client.post(f"/credentials/crm/sessions/{session.pk}/revoke/").status_code == 404
    assert LoginSession.objects.filter(pk=session.pk).exists()
