"""Login, workspace isolation and roles across the dashboard."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.test import Client

from tests.dashboard.conftest import make_run, signed_in

PAGES = ["/", "/automations/", "/automations/new/", "/runs/", "/reviews/", "/credentials/", "/devices/"]


@pytest.mark.parametrize("url", PAGES + ["/automations/file-expense/", "/runs/1/trace.zip"])
def test_pages_need_login(db, url):
    response = Client().get(url)
    assert response.status_code == 302
    assert response["Location"].startswith("/login/?next=")


def test_login_page_signs_in_and_goes_home(personas):
    client = Client()
    page = client.get("/login/")
    assert page.status_code == 200 and b"Sign in" in page.content
    response = client.post("/login/", {"username": "alice", "password": "password"})
    assert response.status_code == 302 and response["Location"] == "/"
    home = client.get("/")
    assert home.status_code == 200 and b"Acme" in home.content


def test_logout_is_a_post(owner_client):
    response = owner_client.post("/logout/")
    assert response.status_code == 302
    assert owner_client.get("/").status_code == 302


@pytest.mark.parametrize("url", ["/", "/automations/", "/runs/", "/reviews/", "/credentials/", "/devices/"])
def test_every_section_renders_for_a_member(owner_client, automation, url, monkeypatch):
    response = owner_client.get(url)
    assert response.status_code == 200, response.content[:500]
    assert b'class="nav"' in response.content


def test_the_nav_links_every_section(owner_client):
    html = owner_client.get("/").content.decode()
    for href in ('href="/automations/"', 'href="/runs/"', 'href="/reviews/"', 'href="/credentials/"',
                 'href="/devices/"', 'href="http://testserver:5555/"'):
        assert href in html


def test_the_flower_link_follows_the_host_the_dashboard_was_reached_on(owner_client, settings):
    assert 'href="http://localhost:5555/"' in owner_client.get("/", HTTP_HOST="localhost:8000").content.decode()
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "[::1]"]
    assert 'href="http://[::1]:5555/"' in owner_client.get("/", HTTP_HOST="[::1]:8000").content.decode()
    settings.VENUS_FLOWER_URL = "https://ops.example.com/flower/"
    assert 'href="https://ops.example.com/flower/"' in owner_client.get("/devices/").content.decode()


def test_a_user_without_workspace_gets_403(db):
    from tests.factories import UserFactory

    assert signed_in(UserFactory()).get("/automations/").status_code == 403


def test_other_workspaces_objects_are_404(outsider_client, automation):
    run = make_run(automation, steps=1)
    for url in (f"/automations/{automation.slug}/", f"/automations/{automation.slug}/versions/",
                f"/automations/{automation.slug}/run/", f"/runs/{run.pk}/", f"/runs/{run.pk}/steps/",
                f"/runs/{run.pk}/summary/", f"/runs/{run.pk}/trace.zip", f"/runs/{run.pk}/steps/0/"):
        assert outsider_client.get(url).status_code == 404, url
    assert outsider_client.post(f"/runs/{run.pk}/cancel/").status_code == 404


def test_lists_show_only_the_own_workspace(owner_client, automation, foreign_automation):
    make_run(foreign_automation)
    assert b"Globex secret" not in owner_client.get("/automations/").content
    assert b"Globex secret" not in owner_client.get("/runs/").content


def test_a_viewer_can_look_but_not_write(viewer_client, automation):
    editor = viewer_client.get(f"/automations/{automation.slug}/")
    assert editor.status_code == 200
    assert b"<fieldset disabled" in editor.content
    assert viewer_client.post(f"/automations/{automation.slug}/", {"name": "Hijack"}).status_code == 403
    assert viewer_client.get("/automations/new/").status_code == 403
    assert viewer_client.post(f"/automations/{automation.slug}/run/", {"param_title": "x"}).status_code == 403
    run = make_run(automation, status="running")
    assert viewer_client.post(f"/runs/{run.pk}/cancel/").status_code == 403
    assert viewer_client.post("/credentials/", {"name": "x"}).status_code == 403


def test_a_reviewer_can_decide_reviews_but_not_edit(personas, reviewer, automation):
    client = signed_in(reviewer)
    assert client.get("/reviews/").status_code == 200
    assert client.post(f"/automations/{automation.slug}/", {"name": "x"}).status_code == 403


def test_a_page_a_role_may_not_open_says_why_in_the_dashboard_and_an_unknown_one_says_not_found(viewer_client):
    """Not Django's bare "403 Forbidden": the dashboard's own page (styles, icon, navigation), the reason
    in words and a way back."""
    refused = viewer_client.get(reverse("dashboard:automation-new"))
    assert refused.status_code == 403
    page = refused.content.decode()
    assert "<h1 id=\"error-h\">Not allowed</h1>" in page and "This needs the owner or editor role in the workspace." in page
    assert "venus.css" in page and "favicon.svg" in page and 'href="/">Back to the dashboard' in page
    missing = viewer_client.get("/runs/999999/")
    assert missing.status_code == 404
    assert "Not found" in missing.content.decode() and "venus.css" in missing.content.decode()
