"""A start URL or `goto` outside the allowed domains is refused when saved (the run would be
blocked at that step), and a wildcard on a bare top-level label is refused, not silently widened
to the whole TLD. The API and the dashboard's editor say the same words."""

from __future__ import annotations

import html

import pytest

from tests.api.conftest import assert_error
from venus_rpa.automations.models import Automation

pytestmark = pytest.mark.django_db


def body(**definition) -> dict:
    return {"slug": "erp", "name": "ERP", "start_url": "https://erp.example.com/login",
            "allowed_domains": ["erp.example.com"], "steps": [{"kind": "press", "key": "Enter"}], **definition}


def refused(client, payload: dict) -> dict[str, list[str]]:
    error = assert_error(client.post("/api/automations/", payload, format="json"), 400, "invalid")
    assert not Automation.objects.filter(slug=payload["slug"]).exists()
    return error["fields"]


def test_a_start_url_outside_the_allowed_domains_is_refused_on_start_url(owner):
    fields = refused(owner, body(start_url="https://example.org/login"))
    assert fields == {"start_url": ["Goes to example.org, which is not among the allowed domains (erp.example.com): "
                                    "add it there, or start on one of them."]}


def test_an_absolute_goto_outside_the_allowed_domains_is_refused_on_its_url_inside_blocks_too(owner):
    steps = [{"kind": "goto", "url": "https://pay.example.net/checkout"},
             {"kind": "if", "condition": {"text_visible": "Receipt"},
              "steps": [{"kind": "goto", "url": "HTTPS://Other.Example.NET:8443/x?y=1"}]}]
    fields = refused(owner, body(steps=steps))
    assert fields["steps.0.url"] == [
        "Goes to pay.example.net, which is not among the allowed domains (erp.example.com): add it there, or go to "
        "a page on one of them (a path such as /login stays on the start URL's site)."]
    assert fields["steps.1.steps.0.url"][0].startswith("Goes to other.example.net, which is not among the allowed")
    assert set(fields) == {"steps.0.url", "steps.1.steps.0.url"}


@pytest.mark.parametrize("start_url, domains, goto", [
    ("https://erp.example.com/login", ["erp.example.com"], "/orders"),  # a path: on the start URL's site
    ("https://shop.erp.example.com/", ["erp.example.com"], "https://a.b.erp.example.com/x"),  # subdomains
    ("https://{{site}}/login", ["erp.example.com"], "https://{{site}}/orders/{{order}}"),  # filled at run time
    ("https://erp.example.com/orders/{{order}}", ["ERP.example.com."], "https://ERP.EXAMPLE.COM/x"),
    ("http://127.0.0.1:9/login", ["127.0.0.1"], "http://127.0.0.1:8001/other-port"),
    ("https://bücher.example/", ["bücher.example"], "https://xn--bcher-kva.example/x"),  # IDN, either spelling
    ("https://erp.example.com/", ["*.example.com"], "https://example.com/"),  # the wildcard covers the domain
])
def test_urls_on_the_allowed_domains_or_filled_by_a_parameter_are_saved(owner, start_url, domains, goto):
    schema = {"type": "object", "properties": {"site": {"type": "string"}, "order": {"type": "string"}}}
    response = owner.post("/api/automations/", body(start_url=start_url, allowed_domains=domains, param_schema=schema,
                                                    steps=[{"kind": "goto", "url": goto}]), format="json")
    assert response.status_code == 201, response.json()


def test_an_android_start_is_an_app_and_is_not_checked_against_domains(owner):
    response = owner.post("/api/automations/", body(surface="android", start_url="com.example.notes",
                                                    allowed_domains=[]), format="json")
    assert response.status_code == 201, response.json()


def test_a_change_of_allowed_domains_that_leaves_the_start_url_out_is_refused(owner):
    assert owner.post("/api/automations/", body(), format="json").status_code == 201
    error = assert_error(owner.patch("/api/automations/erp/", {"allowed_domains": ["intranet.example.com"]},
                                     format="json"), 400, "invalid")
    assert error["fields"]["start_url"][0].startswith("Goes to erp.example.com, which is not among the allowed "
                                                      "domains (intranet.example.com)")
    assert Automation.objects.get(slug="erp").current_version.allowed_domains == ["erp.example.com"]


@pytest.mark.parametrize("entry, words", [
    ("*.evil", "'*.evil' would allow every site under .evil: name a domain, such as *.example.evil"),
    ("*.COM", "'*.COM' would allow every site under .com"),
    ("*.10.0.0.1", "a wildcard needs a domain name, not an IP address"),
])
def test_a_wildcard_on_a_top_level_label_or_an_address_is_refused_by_name(owner, entry, words):
    fields = refused(owner, body(allowed_domains=["erp.example.com", entry]))
    assert len(fields["allowed_domains"]) == 1 and words in fields["allowed_domains"][0], fields


def test_a_wildcard_on_a_domain_is_saved_as_the_domain_it_covers(owner):
    response = owner.post("/api/automations/", body(allowed_domains=["*.Example.com"]), format="json")
    assert response.status_code == 201, response.json()
    assert Automation.objects.get(slug="erp").current_version.allowed_domains == ["example.com"]


def test_the_editor_shows_the_start_url_problem_under_its_field_and_saves_nothing(client, personas):
    from tests.dashboard.test_editor import editor_post

    client.force_login(personas.teammate)
    response = client.post("/automations/new/", editor_post(
        start_url="https://example.org/login", allowed_domains="127.0.0.1", steps=[{"kind": "goto", "url": "/"}]))
    assert response.status_code == 400
    page = html.unescape(response.content.decode())
    box = page.split('name="start_url"')[1].split("</label>")[0]
    assert ("Goes to example.org, which is not among the allowed domains (127.0.0.1): add it there, or start on one "
            "of them.") in box
    assert not Automation.objects.filter(workspace=personas.workspace).exists()


def test_the_editor_refuses_a_wildcard_on_a_top_level_label_under_allowed_domains(client, personas):
    from tests.dashboard.test_editor import editor_post

    client.force_login(personas.teammate)
    response = client.post("/automations/new/", editor_post(allowed_domains="127.0.0.1\n*.evil",
                                                            steps=[{"kind": "goto", "url": "/"}]))
    assert response.status_code == 400
    box = html.unescape(response.content.decode()).split('name="allowed_domains"')[1].split("</label>")[0]
    assert "'*.evil' would allow every site under .evil" in box and ">127.0.0.1\n*.evil</textarea>" in box
    assert not Automation.objects.filter(workspace=personas.workspace).exists()
