"""The editor offers "Pick on page" to owners and editors of a saved automation only."""

from __future__ import annotations

import pytest

from tests.reviews.conftest import make_automation

pytestmark = pytest.mark.django_db


def test_an_editor_gets_the_picker_with_its_api_address_and_script(personas, editor_client):
    automation = make_automation(personas.workspace)
    html = editor_client.get(f"/automations/{automation.slug}/").content.decode()
    assert f'data-picker-url="/api/automations/{automation.slug}/picker/"' in html
    assert 'data-saved-steps="2"' in html and 'id="picker"' in html and "picker.js" in html
    assert html.count("data-pick ") == 2  # one button per step row


def test_a_viewer_and_a_new_automation_get_no_picker(personas, viewer_client, editor_client):
    automation = make_automation(personas.workspace)
    html = viewer_client.get(f"/automations/{automation.slug}/").content.decode()
    assert "data-picker-url" not in html and 'id="picker"' not in html and "picker.js" not in html
    new = editor_client.get("/automations/new/").content.decode()
    assert "data-picker-url" not in new and "picker.js" not in new
