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


def _domains_box(response) -> str:
    import html

    return html.unescape(response.content.decode()).split('name="domains"')[1].split("</label>")[0]


def test_each_line_of_domains_is_one_entry_and_one_with_spaces_is_refused_by_name(editor_client, personas):
    response = editor_client.post("/credentials/", {
        "name": "erp", "domains": "erp.example.com\r\nnot a domain", "field_name": ["password"],
        "field_value": ["hunter2"]})
    assert response.status_code == 400
    box = _domains_box(response)
    assert ("'not a domain' is not a host name (it has spaces): give one domain per line, such as example.com "
            "or *.example.com.") in box  # the automation editor's words for its allowed domains
    assert ">erp.example.com\nnot a domain</textarea>" in box  # kept as typed: one line, not three hosts
    assert "hunter2" not in response.content.decode()
    assert not Credential.objects.filter(workspace=personas.workspace).exists()


def test_a_domain_problem_is_shown_with_the_other_fields_problems_at_once(editor_client):
    response = editor_client.post("/credentials/", {"name": "Bad Name", "domains": "erp example.com",
                                                    "field_name": ["password"], "field_value": ["x"]})
    assert response.status_code == 400
    assert "it has spaces" in _domains_box(response) and "Use lowercase letters" in response.content.decode()
    assert not Credential.objects.exists()


def test_domains_one_per_line_or_between_commas_are_saved_in_canonical_form(editor_client, personas):
    response = editor_client.post("/credentials/", {
        "name": "erp", "domains": "ERP.example.com\n\n*.example.org, 127.0.0.1\n", "field_name": ["password"],
        "field_value": ["hunter2"]})
    assert response.status_code == 302
    credential = Credential.objects.get(workspace=personas.workspace, name="erp")
    assert credential.domains == ["erp.example.com", "example.org", "127.0.0.1"]


def test_a_credential_stored_before_keeps_its_domains_on_the_page_and_passes_the_rule(editor_client,
                                                                                     personas):
    from venus_rpa.automations.services import credential_domains_clean

    Credential.objects.create(workspace=personas.workspace, name="old-vpn", domains=["vpn.example.com", "10.0.0.1"],
                              field_names=["password"], ciphertext="x")
    page = editor_client.get("/credentials/").content.decode()
    assert "vpn.example.com, 10.0.0.1" in page
    assert credential_domains_clean(["vpn.example.com", "10.0.0.1"]) == ["vpn.example.com", "10.0.0.1"]
