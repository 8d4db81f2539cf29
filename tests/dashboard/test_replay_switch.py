"""The editor's replay cache box: shown with the stored value, switched without a new version, and
left as stored by forms that do not show it; a viewer cannot switch it."""

from __future__ import annotations

from tests.dashboard.test_editor import editor_post
from venus_rpa.automations.models import Automation, ReplayPath


def edit_post(automation, **extra) -> dict:
    version = automation.current_version
    return editor_post(name=automation.name, slug=automation.slug, start_url=version.start_url,
                       allowed_domains=" ".join(version.allowed_domains),
                       steps=[{"kind": "goto", "url": "/"}], change_note="", **extra)


def test_the_editor_shows_and_switches_the_replay_cache_without_a_new_version(editor_client, automation):
    page = editor_client.get(f"/automations/{automation.slug}/").content.decode()
    assert 'name="replay_cache" checked' in page
    editor_client.post(f"/automations/{automation.slug}/", edit_post(automation))  # steps changed: version 2
    automation.refresh_from_db()
    ReplayPath.objects.create(version=automation.current_version, step_key="1:x", turns=[], saved_at="2026-12-03T00:00Z")
    number = automation.current_version.number

    response = editor_client.post(f"/automations/{automation.slug}/", edit_post(automation, replay_cache_shown="1"))
    assert response.status_code == 302, response.content.decode()[:2000]
    automation.refresh_from_db()
    assert automation.replay_cache is False and automation.current_version.number == number
    assert not ReplayPath.objects.exists()
    assert 'name="replay_cache" >' in editor_client.get(f"/automations/{automation.slug}/").content.decode()

    editor_client.post(f"/automations/{automation.slug}/", edit_post(automation, replay_cache_shown="1", replay_cache="on"))
    assert Automation.objects.get(pk=automation.pk).replay_cache is True
    editor_client.post(f"/automations/{automation.slug}/", edit_post(automation))  # a form without the box
    assert Automation.objects.get(pk=automation.pk).replay_cache is True


def test_a_viewer_cannot_switch_the_replay_cache(viewer_client, automation):
    response = viewer_client.post(f"/automations/{automation.slug}/", edit_post(automation, replay_cache_shown="1"))
    assert response.status_code == 403
    assert Automation.objects.get(pk=automation.pk).replay_cache is True
