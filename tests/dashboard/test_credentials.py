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
