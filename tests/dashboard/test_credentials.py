"""Credentials page: write-only secrets, create and replace."""

from __future__ import annotations

from venus_rpa.automations.crypto import decrypt_fields
from venus_rpa.automations.models import Credential


def test_creating_and_replacing_never_shows_the_secret(editor_client, personas):
    response = editor_client.post("/credentials/", {
        "name": "crm", "domains": "crm.example.com, 127.0.0.1",
        "field_name": ["username", "password"], "field_value": ["ann", "hunter2"]}, follow=True)
    assert response.status_code == 200
    html = response.content.decode()
    assert "crm.example.com" in html and "<code>password</code>" in html
    assert "hunter2" not in html and "ann" not in html.split("<main")[1].split("Add or replace")[0]
    credential = Credential.objects.get(workspace=personas.workspace, name="crm")
    assert decrypt_fields(credential.ciphertext) == {"username": "ann", "password": "hunter2"}

    editor_client.post("/credentials/", {"name": "crm", "domains": "crm.example.com",
                                         "field_name": ["token"], "field_value": ["t0k"]})
    credential.refresh_from_db()
    assert decrypt_fields(credential.ciphertext) == {"token": "t0k"}
    assert credential.field_names == ["token"]


def test_bad_input_is_shown_inline(editor_client):
    response = editor_client.post("/credentials/", {"name": "Bad Name", "field_name": ["pass word"],
                                                    "field_value": [""]})
    assert response.status_code == 400
    html = response.content.decode()
    assert "Use lowercase letters" in html and "letters, digits" in html
    assert not Credential.objects.exists()


TOTP_KEY = "JBSW Y3DP EHPK 3PXP JBSW Y3DP"  # a setup key as sites show it: grouped, any case


def test_a_totp_secret_is_stored_in_canonical_form_and_never_shown(editor_client, personas):
    response = editor_client.post("/credentials/", {
        "name": "erp", "domains": "erp.example.com", "field_name": ["username", "password"],
        "field_value": ["ann", "hunter2"], "totp_secret": TOTP_KEY.lower()}, follow=True)
    assert response.status_code == 200
    html = response.content.decode()
    assert "<code>totp</code>" in html and "jbsw" not in html.lower()
    credential = Credential.objects.get(workspace=personas.workspace, name="erp")
    assert decrypt_fields(credential.ciphertext) == {"username": "ann", "password": "hunter2",
                                                     "totp": "JBSWY3DPEHPK3PXPJBSWY3DP"}


def test_a_bad_totp_secret_is_refused_inline_without_repeating_it(editor_client):
    response = editor_client.post("/credentials/", {
        "name": "erp", "field_name": ["password"], "field_value": ["hunter2"], "totp_secret": "not-a-key-0189"})
    assert response.status_code == 400
    html = response.content.decode()
    assert "A TOTP secret is base32: letters A-Z and digits 2-7 only" in html
    assert "not-a-key-0189" not in html
    assert not Credential.objects.exists()
