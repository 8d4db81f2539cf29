"""Credentials API: secrets are encrypted at rest and never returned; roles and isolation."""

from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from tests.api.conftest import PRACTICE_PASSWORD, assert_error
from venus_rpa.automations.crypto import decrypt_fields
from venus_rpa.automations.models import Credential

URL = "/api/credentials/"
SECRET = "hunter2-Very-Secret-Value"
USERNAME = "erp-robot@example.com"


def body(**overrides) -> dict:
    return {"name": "erp", "domains": ["erp.example.com"], "fields": {"username": USERNAME, "password": SECRET},
            **overrides}


@pytest.mark.django_db
def test_create_credential_returns_201_without_secret_values(owner, personas):
    response = owner.post(URL, body(), format="json")

    assert response.status_code == 201, response.json()
    data = response.json()
    assert data["name"] == "erp"
    assert data["domains"] == ["erp.example.com"]
    assert data["field_names"] == ["password", "username"]
    assert "fields" not in data and "ciphertext" not in data
    text = response.content.decode()
    assert SECRET not in text
    assert USERNAME not in text


@pytest.mark.django_db
def test_credential_is_stored_encrypted_and_decrypts_to_the_fields(owner, personas):
    assert owner.post(URL, body(), format="json").status_code == 201

    credential = Credential.objects.get(workspace=personas.workspace, name="erp")
    assert SECRET not in credential.ciphertext
    assert USERNAME not in credential.ciphertext
    assert decrypt_fields(credential.ciphertext) == {"username": USERNAME, "password": SECRET}


@pytest.mark.django_db
def test_posting_an_existing_name_replaces_the_secret(owner, personas):
    owner.post(URL, body(), format="json")
    response = owner.post(URL, body(fields={"token": "new-token-value"}), format="json")

    assert response.status_code == 201
    assert response.json()["field_names"] == ["token"]
    credential = Credential.objects.get(workspace=personas.workspace, name="erp")
    assert decrypt_fields(credential.ciphertext) == {"token": "new-token-value"}
    assert Credential.objects.filter(workspace=personas.workspace).count() == 1


@pytest.mark.django_db
def test_secret_whitespace_is_kept(owner, personas):
    owner.post(URL, body(fields={"password": "  spaced  "}), format="json")
    credential = Credential.objects.get(workspace=personas.workspace, name="erp")
    assert decrypt_fields(credential.ciphertext) == {"password": "  spaced  "}


@pytest.mark.django_db
def test_list_credentials_never_returns_secret_values(owner, viewer, practice_credential):
    owner.post(URL, body(), format="json")

    for client in (owner, viewer):
        response = client.get(URL)
        assert response.status_code == 200
        assert [(c["name"], c["field_names"]) for c in response.json()["results"]] == [
            ("erp", ["password", "username"]), ("practice-login", ["password", "username"]),
        ]
        text = response.content.decode()
        assert SECRET not in text
        assert PRACTICE_PASSWORD not in text
        assert practice_credential.ciphertext not in text


@pytest.mark.django_db
@pytest.mark.parametrize(("payload", "field"), [
    ({"name": "erp", "domains": []}, "fields"),               # no fields
    ({"name": "erp", "fields": {}}, "fields"),                # empty fields
    ({"name": "erp", "fields": ["password"]}, "fields"),      # not an object
    ({"fields": {"password": SECRET}}, "name"),               # no name
    ({"name": "not a slug!", "fields": {"password": SECRET}}, "name"),
])
def test_create_credential_with_missing_or_bad_fields_is_a_400(owner, payload, field):
    error = assert_error(owner.post(URL, payload, format="json"), 400, "invalid")
    assert field in error["fields"], error["fields"]
    assert not Credential.objects.exists()
    assert SECRET not in str(error)


@pytest.mark.django_db
def test_non_string_secret_value_is_a_400_naming_the_field(owner):
    error = assert_error(owner.post(URL, {"name": "erp", "fields": {"pin": {"a": 1}}}, format="json"), 400, "invalid")
    assert any(key.startswith("fields") for key in error["fields"]), error["fields"]
    assert not Credential.objects.exists()


@pytest.mark.django_db
def test_viewer_cannot_create_a_credential(viewer):
    assert_error(viewer.post(URL, body(), format="json"), 403, "permission_denied")
    assert not Credential.objects.exists()


@pytest.mark.django_db
def test_editor_can_create_a_credential(editor, personas):
    assert editor.post(URL, body(), format="json").status_code == 201
    assert Credential.objects.filter(workspace=personas.workspace, name="erp").exists()


@pytest.mark.django_db
def test_credentials_need_authentication(personas):
    assert_error(APIClient().get(URL), 401)
    assert_error(APIClient().post(URL, body(), format="json"), 401)
    assert not Credential.objects.exists()


@pytest.mark.django_db
def test_credentials_are_scoped_to_the_callers_workspace(owner, outsider, personas, practice_credential):
    assert outsider.get(URL).json()["results"] == []

    assert outsider.post(URL, body(name="practice-login"), format="json").status_code == 201
    # The outsider's credential with the same name is a separate one: Acme's is untouched.
    practice_credential.refresh_from_db()
    assert decrypt_fields(practice_credential.ciphertext)["password"] == PRACTICE_PASSWORD
    assert [c["name"] for c in owner.get(URL).json()["results"]] == ["practice-login"]
    assert Credential.objects.filter(name="practice-login").count() == 2


@pytest.mark.django_db
@pytest.mark.parametrize("secret, stored", [
    ("JBSWY3DPEHPK3PXP", "JBSWY3DPEHPK3PXP"),
    ("jbsw y3dp ehpk 3pxp", "JBSWY3DPEHPK3PXP"),
    ("otpauth://totp/Acme:ann?secret=JBSWY3DPEHPK3PXP&issuer=Acme", "JBSWY3DPEHPK3PXP"),
])
def test_a_totp_secret_is_accepted_in_the_forms_sites_show_it(owner, personas, secret, stored):
    response = owner.post(URL, body(fields={"username": USERNAME, "totp": secret}), format="json")

    assert response.status_code == 201, response.json()
    assert response.json()["field_names"] == ["totp", "username"]
    assert "JBSW" not in response.content.decode()
    credential = Credential.objects.get(workspace=personas.workspace, name="erp")
    assert decrypt_fields(credential.ciphertext)["totp"] == stored


@pytest.mark.django_db
@pytest.mark.parametrize("secret, problem", [
    ("123456", "letters A-Z and digits 2-7 only"),
    ("JBSWY3DP", "at least 16 base32 characters"),
    ("otpauth://hotp/Acme?secret=JBSWY3DPEHPK3PXP&counter=1", "Only time-based codes"),
    ("otpauth://totp/Acme?secret=JBSWY3DPEHPK3PXP&digits=8", "Only 6-digit codes every 30 seconds"),
    ("   ", "The TOTP secret is empty"),
])
def test_a_bad_totp_secret_is_a_400_naming_the_field(owner, personas, secret, problem):
    response = owner.post(URL, body(fields={"username": USERNAME, "totp": secret}), format="json")

    error = assert_error(response, 400)
    assert problem in json.dumps(error["fields"]["fields.totp"])
    assert "JBSWY3DP" not in json.dumps(error)  # the message never repeats the value
    assert not Credential.objects.filter(workspace=personas.workspace).exists()
