"""A credential's fields and domains as a new user types them: a field name given twice is refused
by name (never one value kept unseen), in the dashboard's form and in an API body; a wildcard on
a bare top-level label (`*.evil`) is refused with its reason instead of being saved as `evil`."""

from __future__ import annotations

import html

import pytest

from tests.api.conftest import assert_error
from venus_rpa.automations.models import Credential

pytestmark = pytest.mark.django_db

RAW_TWICE = b'{"name": "erp", "domains": ["erp.example.com"], "fields": {"user": "ann", "user": "bob"}}'


def test_an_api_body_giving_a_field_twice_is_a_400_naming_it_and_nothing_is_saved(owner, personas):
    response = owner.post("/api/credentials/", RAW_TWICE, content_type="application/json")
    error = assert_error(response, 400, "parse_error")
    assert "the key 'user' is given twice in one object" in error["message"]
    assert "ann" not in response.content.decode() and "bob" not in response.content.decode()
    assert not Credential.objects.filter(workspace=personas.workspace).exists()


def test_a_key_given_twice_anywhere_in_an_api_body_is_refused(owner, personas):
    body = b'{"slug": "erp", "slug": "other", "name": "ERP", "allowed_domains": ["erp.example.com"]}'
    error = assert_error(owner.post("/api/automations/", body, content_type="application/json"), 400, "parse_error")
    assert "'slug' is given twice" in error["message"]


def test_the_same_key_in_two_objects_is_fine(owner, personas):
    body = b'{"name": "erp", "domains": ["erp.example.com"], "fields": {"user": "ann", "password": "user"}}'
    assert owner.post("/api/credentials/", body, content_type="application/json").status_code == 201


@pytest.mark.parametrize("entry, words", [
    ("*.evil", "'*.evil' would allow every site under .evil"),
    ("*.com", "'*.com' would allow every site under .com"),
])
def test_an_api_wildcard_on_a_top_level_label_is_refused_on_domains(owner, personas, entry, words):
    error = assert_error(owner.post("/api/credentials/", {"name": "erp", "domains": ["erp.example.com", entry],
                                                          "fields": {"password": "hunter2"}}, format="json"), 400)
    assert any(words in problem for problem in error["fields"]["domains"]), error
    assert not Credential.objects.filter(workspace=personas.workspace).exists()


def _form(client, **data):
    return client.post("/credentials/", {"name": "erp", "domains": "erp.example.com", **data})


def test_the_form_refuses_two_fields_of_one_name_and_shows_neither_value(client, personas):
    client.force_login(personas.teammate)
    response = _form(client, field_name=["user", "password", " user "], field_value=["ann-1", "pw-2", "bob-3"])
    assert response.status_code == 400
    page = html.unescape(response.content.decode())
    assert "Each field name may be given once: 'user' is given more than once. Rename one, or remove it." in page
    assert not any(value in page for value in ("ann-1", "pw-2", "bob-3"))
    assert not Credential.objects.filter(workspace=personas.workspace).exists()


def test_a_totp_field_row_beside_the_totp_box_is_refused(client, personas):
    client.force_login(personas.teammate)
    response = _form(client, field_name=["password", "totp"], field_value=["pw", "JBSWY3DPEHPK3PXP"],
                     totp_secret="KRSXG5CTMVRXEZLU")
    assert response.status_code == 400
    assert "A field named &#x27;totp&#x27; and the TOTP secret box are the same field" in response.content.decode()
    assert not Credential.objects.filter(workspace=personas.workspace).exists()


def test_the_form_refuses_a_wildcard_on_a_top_level_label_and_keeps_what_was_typed(client, personas):
    client.force_login(personas.teammate)
    response = _form(client, domains="erp.example.com\n*.evil", field_name=["password"], field_value=["pw"])
    assert response.status_code == 400
    box = html.unescape(response.content.decode()).split('name="domains"')[1].split("</label>")[0]
    assert "'*.evil' would allow every site under .evil: name a domain, such as *.example.evil" in box
    assert ">erp.example.com\n*.evil</textarea>" in box
    assert not Credential.objects.filter(workspace=personas.workspace).exists()


def test_distinct_fields_and_a_wildcard_on_a_domain_are_saved(client, personas):
    client.force_login(personas.teammate)
    response = _form(client, domains="*.example.com", field_name=["user", "password"], field_value=["ann", "pw"])
    assert response.status_code == 302
    credential = Credential.objects.get(workspace=personas.workspace, name="erp")
    assert credential.field_names == ["password", "user"] and credential.domains == ["example.com"]


def test_a_viewer_cannot_save_a_credential_through_the_form(client, personas):
    client.force_login(personas.viewer)
    assert _form(client, field_name=["user"], field_value=["ann"]).status_code == 403
    assert not Credential.objects.exists()
