"""Persistent logins: the sign-in block in definitions, and saved sessions — encrypted, scoped to
(workspace, credential, domain), listed without their content, revocable by editors only."""

from __future__ import annotations

import copy
from datetime import timedelta

import pytest
from django.utils import timezone

from tests.api.conftest import PRACTICE_URL, assert_error
from venus_rpa.automations import selectors, services
from venus_rpa.automations.crypto import decrypt_json
from venus_rpa.automations.models import LoginSession
from venus_rpa.core.demo import PRACTICE_CREDENTIAL, demo_signed_in_expense_definition
from venus_rpa.core.errors import InvalidInput

pytestmark = pytest.mark.django_db
COOKIE = "sess-8f2b9c1d7e6a5f4b3c2d1e0f"
STATE = {
    "cookies": [
        {"name": "practice_session", "value": COOKIE, "domain": "127.0.0.1", "path": "/", "expires": -1},
        {"name": "tracker", "value": "elsewhere-value", "domain": ".ads.example.net", "path": "/", "expires": -1},
    ],
    "origins": [{"origin": "http://127.0.0.1:8765", "localStorage": [{"name": "token", "value": "local-token-value"}]},
                {"origin": "https://ads.example.net", "localStorage": [{"name": "id", "value": "ad-id"}]}],
}
ALLOWED = ["127.0.0.1"]


def signed_in_definition() -> dict:
    return copy.deepcopy(demo_signed_in_expense_definition(PRACTICE_URL))


def save(workspace, *, name: str = PRACTICE_CREDENTIAL, domain: str = "127.0.0.1", state: dict = STATE,
         allowed: list[str] = ALLOWED) -> LoginSession:
    return services.login_session_save(workspace=workspace, credential_name=name, domain=domain, state=state,
                                       expires_at=timezone.now() + timedelta(days=1), allowed_domains=allowed)


# -- the sign-in block in a definition -------------------------------------------------------------

def test_a_sign_in_block_is_stored_with_its_credential_and_domain_made_explicit(personas, practice_credential):
    definition = signed_in_definition()
    definition["sign_in"].pop("credential")
    automation = services.automation_create(workspace=personas.workspace, user=personas.owner, slug="signed-in",
                                            name="Signed in", definition=definition)
    version = automation.current_version
    assert version.sign_in == {"credential": PRACTICE_CREDENTIAL, "domain": "127.0.0.1",
                               "check": {"text_visible": "Sign out", "url_excludes": "/login", "timeout_s": 3.0}}
    assert [bool(s.get("sign_in")) for s in version.steps[:4]] == [True, True, True, False]


@pytest.mark.parametrize(("change", "field"), [
    (lambda d: d.pop("sign_in"), "sign_in"),  # marked steps but no check
    (lambda d: d["sign_in"].update(check={}), "sign_in.check"),
    (lambda d: [s.pop("sign_in", None) for s in d["steps"]], "sign_in"),  # a check but no marked step
    (lambda d: d["steps"][1].pop("sign_in"), "steps.1.sign_in"),  # a gap in the block
    (lambda d: d["sign_in"].update(credential="nope"), "sign_in.credential"),
    (lambda d: d["sign_in"].update(domain="example.com"), "sign_in.domain"),  # not an allowed domain
])
def test_a_sign_in_block_that_cannot_work_is_refused(owner, practice_credential, change, field):
    definition = signed_in_definition()
    change(definition)
    response = owner.post("/api/automations/", {"name": "Signed in", **definition}, format="json")
    error = assert_error(response, 400, "invalid")
    assert field in error["fields"], error


def test_the_sign_in_domain_must_be_one_of_the_credentials_domains(personas, owner):
    services.credential_set(workspace=personas.workspace, name=PRACTICE_CREDENTIAL, domains=["intranet.example.com"],
                            fields={"username": "u", "password": "p4ssword"})
    response = owner.post("/api/automations/", {"name": "Signed in", **signed_in_definition()}, format="json")
    assert "sign_in.domain" in assert_error(response, 400)["fields"]


# -- saved sessions: encryption, scope, permitted hosts ---------------------------------------------

def test_a_saved_session_is_encrypted_and_keeps_only_permitted_hosts(personas, practice_credential):
    session = save(personas.workspace)
    assert COOKIE not in session.ciphertext and "practice_session" not in session.ciphertext
    state = decrypt_json(session.ciphertext)
    assert [c["name"] for c in state["cookies"]] == ["practice_session"]  # ads.example.net is not permitted
    assert [o["origin"] for o in state["origins"]] == ["http://127.0.0.1:8765"]


def test_a_session_is_taken_only_in_its_workspace_and_for_its_credential(personas, practice_credential):
    from venus_rpa.automations.services import credential_set

    save(personas.workspace)
    credential_set(workspace=personas.other_workspace, name=PRACTICE_CREDENTIAL, domains=["127.0.0.1"],
                   fields={"username": "x", "password": "other-password"})
    credential_set(workspace=personas.workspace, name="second-login", domains=["127.0.0.1"],
                   fields={"username": "y", "password": "second-password"})

    def take(workspace, name=PRACTICE_CREDENTIAL, domain="127.0.0.1", allowed=ALLOWED):
        return services.login_session_take(workspace=workspace, credential_name=name, domain=domain,
                                           allowed_domains=allowed)

    assert take(personas.other_workspace) is None  # same credential name, another workspace
    assert take(personas.workspace, "second-login") is None  # another credential of the workspace
    assert take(personas.workspace, domain="localhost") is None  # another domain
    assert take(personas.workspace, allowed=["example.com"]) is None  # the automation may not go there
    session, state = take(personas.workspace)
    assert state["cookies"][0]["value"] == COOKIE
    assert LoginSession.objects.get(pk=session.pk).last_used_at is not None


def test_an_expired_session_is_not_offered(personas, practice_credential):
    session = save(personas.workspace)
    LoginSession.objects.filter(pk=session.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert services.login_session_take(workspace=personas.workspace, credential_name=PRACTICE_CREDENTIAL,
                                       domain="127.0.0.1", allowed_domains=ALLOWED) is None


def test_a_session_for_a_domain_the_credential_does_not_permit_is_refused(personas, practice_credential):
    with pytest.raises(InvalidInput):
        save(personas.workspace, domain="evil.example.com", allowed=["evil.example.com"])
    assert not LoginSession.objects.exists()


def test_replacing_a_credential_revokes_its_sessions(personas, practice_credential):
    save(personas.workspace)
    services.credential_set(workspace=personas.workspace, name=PRACTICE_CREDENTIAL, domains=["127.0.0.1"],
                            fields={"username": "new", "password": "new-password"})
    assert not LoginSession.objects.exists()


# -- API: list without content, revoke with roles ---------------------------------------------------

def sessions_url(name: str = PRACTICE_CREDENTIAL) -> str:
    return f"/api/credentials/{name}/sessions/"


def test_the_api_lists_sessions_without_their_content(personas, practice_credential, viewer):
    session = save(personas.workspace)
    response = viewer.get(sessions_url())
    assert response.status_code == 200
    assert response.json() == [{
        "id": session.pk, "domain": "127.0.0.1", "saved_at": response.json()[0]["saved_at"], "last_used_at": None,
        "expires_at": response.json()[0]["expires_at"], "saved_by_run": None}]
    assert COOKIE not in response.content.decode() and "ciphertext" not in response.content.decode()


def test_viewers_cannot_revoke_and_editors_can(personas, practice_credential, viewer, editor):
    session = save(personas.workspace)
    assert_error(viewer.delete(f"{sessions_url()}{session.pk}/"), 403)
    assert_error(viewer.delete(sessions_url()), 403)
    assert LoginSession.objects.filter(pk=session.pk).exists()

    assert editor.delete(f"{sessions_url()}{session.pk}/").status_code == 204
    assert not LoginSession.objects.exists()
    assert_error(editor.delete(f"{sessions_url()}{session.pk}/"), 404)


def test_revoking_all_sessions_of_a_credential(personas, owner):
    services.credential_set(workspace=personas.workspace, name=PRACTICE_CREDENTIAL, domains=["127.0.0.1", "localhost"],
                            fields={"username": "u", "password": "p4ssword"})
    save(personas.workspace)
    save(personas.workspace, domain="localhost", allowed=["localhost", "127.0.0.1"])
    assert owner.delete(sessions_url()).status_code == 204
    assert not LoginSession.objects.exists()


def test_another_workspace_sees_nothing_and_revokes_nothing(personas, practice_credential, outsider):
    session = save(personas.workspace)
    assert_error(outsider.get(sessions_url()), 404)
    assert_error(outsider.delete(f"{sessions_url()}{session.pk}/"), 404)
    assert LoginSession.objects.filter(pk=session.pk).exists()


def test_a_session_of_another_credential_cannot_be_revoked_through_this_one(personas, practice_credential, owner):
    services.credential_set(workspace=personas.workspace, name="second-login", domains=["127.0.0.1"],
                            fields={"username": "y", "password": "second-password"})
    session = save(personas.workspace)
    assert_error(owner.delete(f"{sessions_url('second-login')}{session.pk}/"), 404)
    assert selectors.login_session_list(credential=session.credential).count() == 1
