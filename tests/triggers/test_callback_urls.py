"""Callback URLs are checked by the service, so the API and the dashboard's New callback form refuse
the same URLs with the same words: http(s), a host name or IP address (no space, no wildcard), no
control character, no user name or password, at most 2000 characters. No secret is made for a
refused URL."""

from __future__ import annotations

import pytest

from tests.api.conftest import assert_error
from venus_rpa.core.errors import InvalidInput
from venus_rpa.core.outbound import outbound_url_check
from venus_rpa.triggers.models import CallbackEndpoint
from workers.egress import host_name_valid

LIST = "/api/callbacks/"

BAD = [
    ("https://exa mple.com/", "Must not contain spaces or control characters"),
    ("https://example.com/a b", "Must not contain spaces or control characters"),
    ("https://exa\tmple.com/", "Must not contain spaces or control characters"),  # urlsplit would drop the tab
    ("https://example.com/\u200bx", "Must not contain spaces or control characters"),  # an invisible character
    ("https://*.example.com/", "'*.example.com' is not a host name such as example.com, or an IP address."),
    ("https://exa_mple.com/", "'exa_mple.com' is not a host name"),
    ("https://-bad-.example.com/", "is not a host name"),
    ("https://a..b.example.com/", "is not a host name"),
    ("https://exa%20mple.com/", "is not a host name"),
    ("https://[zz::1]/", "not a valid IPv6 address in brackets"),
    ("https://[::1/", "not a valid IPv6 address in brackets"),
    ("https://example.com:99999/", "The port is not a number between 0 and 65535."),
    ("https://user:pw@example.com/", "Must not contain a user name or password before the host."),
    ("ftp://example.com/", "Must be an http:// or https:// URL."),
    ("https:///no-host", "Must be an http:// or https:// URL."),
    ("https://example.com/" + "x" * 2000, "Must be at most 2000 characters (this one has 2,020)."),
]


@pytest.mark.django_db
@pytest.mark.parametrize("url, words", BAD)
def test_the_api_refuses_a_malformed_callback_url_on_url_and_makes_no_secret(owner, url, words):
    response = owner.post(LIST, {"url": url}, format="json")
    error = assert_error(response, 400, "invalid")
    assert any(words in problem for problem in error["fields"]["url"]), error
    assert "cbsec_" not in response.content.decode() and not CallbackEndpoint.objects.exists()


@pytest.mark.django_db
def test_a_patch_to_a_malformed_url_is_refused_and_the_old_one_kept(owner):
    created = owner.post(LIST, {"url": "https://hooks.example.com/venus"}, format="json").json()
    error = assert_error(owner.patch(f"{LIST}{created['id']}/", {"url": "https://exa mple.com/"}, format="json"), 400)
    assert "spaces" in error["fields"]["url"][0]
    assert CallbackEndpoint.objects.get().url == "https://hooks.example.com/venus"


@pytest.mark.django_db
@pytest.mark.parametrize("url", [
    "https://hooks.example.com/venus?x=1#frag", "http://93.184.215.14:8080/cb", "https://[2606:4700::1111]/cb",
    "https://bücher.example/cb", "https://single-label/cb", "https://hooks.example.com./cb",
])
def test_the_api_accepts_a_host_name_or_an_address(owner, url):
    response = owner.post(LIST, {"url": url}, format="json")
    assert response.status_code == 201, response.json()
    assert CallbackEndpoint.objects.get().url == url


@pytest.mark.django_db
def test_the_dashboard_form_refuses_the_same_url_under_its_field_and_shows_no_secret(client, personas):
    client.force_login(personas.teammate)
    response = client.post("/webhooks/callbacks/new/", {"url": "https://exa mple.com/", "automation": ""})
    assert response.status_code == 400
    page = response.content.decode()
    form = page.split('id="callback-form"')[1].split("</form>")[0]
    assert "Must not contain spaces or control characters" in form and 'value="https://exa mple.com/"' in form
    assert "cbsec_" not in page and 'id="new-secret"' not in page
    assert not CallbackEndpoint.objects.exists()


def test_host_names_and_addresses():
    assert all(host_name_valid(h) for h in ("example.com", "a-b.example.com", "127.0.0.1", "::1", "localhost",
                                            "bücher.example", "example.com."))
    assert not any(host_name_valid(h) for h in ("exa mple.com", "*.example.com", "a..b", "-a.com", "a_b.com", "",
                                                "x" * 64 + ".com"))


def test_review_notification_urls_get_the_same_host_check():
    with pytest.raises(InvalidInput) as info:
        outbound_url_check("https://exa mple.com/", field="webhook_url", invalid="bad", refused="no", userinfo=False)
    assert "spaces" in info.value.fields["webhook_url"][0]
