"""The editor's share of the definition bounds and of the Allowed domains box: errors under
their inputs, nothing saved; long names from older data truncated in lists and dropdowns."""

from __future__ import annotations

import html as html_lib

from tests.dashboard.test_editor import editor_post
from venus_rpa.automations.models import Automation
from venus_rpa.dashboard.automation_form import domain_entries


def _name_errors(page: str) -> str:
    return page.split('name="name"')[1].split("</label>")[0]


def test_a_5000_character_name_is_refused_under_the_name_input(editor_client, personas):
    response = editor_client.post("/automations/new/", editor_post(name="N" * 5000,  slug="long-name",
                                                                   steps=[{"kind": "goto", "url": "/"}]))
    assert response.status_code == 400
    page = response.content.decode()
    assert "A name has at most 120 characters (this one has 5,000)." in _name_errors(page)
    assert 'maxlength="120"' in page and 'maxlength="2000"' in page
    assert not Automation.objects.filter(workspace=personas.workspace).exists()


def test_a_long_description_and_a_long_step_value_are_shown_together(editor_client, personas):
    response = editor_client.post("/automations/new/", editor_post(
        description="d" * 2001, steps=[{"kind": "fill", "target_text": "Notes", "value": "v" * 10_001}]))
    assert response.status_code == 400
    page = response.content.decode()
    assert "A description has at most 2,000 characters" in page.split('name="description"')[1].split("</label>")[0]
    assert "Step 1 (fill): Value is too long: at most 10000 characters (this one has 10001)." in page
    assert not Automation.objects.filter(workspace=personas.workspace).exists()


def test_each_line_of_allowed_domains_is_one_entry_and_a_bad_one_is_refused_by_name(editor_client, personas):
    assert domain_entries("erp.example.com\r\n\n *.example.org , 10.0.0.1:8080\nnot a domain!!") == [
        "erp.example.com", "*.example.org", "10.0.0.1:8080", "not a domain!!"]
    response = editor_client.post("/automations/new/", editor_post(
        allowed_domains="127.0.0.1\nnot a domain!!", steps=[{"kind": "goto", "url": "/"}]))
    assert response.status_code == 400
    page = html_lib.unescape(response.content.decode())
    box = page.split('name="allowed_domains"')[1].split("</label>")[0]
    assert "'not a domain!!' is not a host name (it has spaces): give one domain per line" in box
    assert ">127.0.0.1\nnot a domain!!</textarea>" in box  # kept as typed: one line, not three
    assert "'not'" not in box and "'domain!!'" not in box
    assert not Automation.objects.filter(workspace=personas.workspace).exists()


def test_a_wildcard_and_a_plain_host_per_line_are_saved(editor_client, personas):
    response = editor_client.post("/automations/new/", editor_post(
        allowed_domains="127.0.0.1\n*.example.com\n", steps=[{"kind": "goto", "url": "/"}]))
    assert response.status_code == 302, response.content.decode()[:2000]
    version = Automation.objects.get(workspace=personas.workspace).current_version
    assert version.allowed_domains == ["127.0.0.1", "example.com"]  # "*.example.com" in canonical form


def test_an_old_long_name_is_truncated_in_the_list_and_dropdowns_with_the_full_name_in_a_title(
        editor_client, automation):
    long = "Quarterly expense report for the northern region " * 4  # 200 characters, saved before the bound
    Automation.objects.filter(pk=automation.pk).update(name=long)
    listing = editor_client.get("/automations/").content.decode()
    assert f'title="{long}"' in listing and long[:79] + "…" in listing and f">{long}<" not in listing
    for url in ("/runs/", "/schedules/", "/webhooks/"):
        page = editor_client.get(url).content.decode()
        assert f'title="{long}"' in page and long[:59] + "…" in page and f">{long}<" not in page, url
