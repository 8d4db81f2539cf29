"""Workspace settings page (the concurrency limit) and queue facts on the run pages."""

from __future__ import annotations

import pytest

from tests.runs.conftest import queue_runs
from venus_rpa.runs import admission

pytestmark = pytest.mark.django_db


def test_an_owner_sets_the_limit_on_the_settings_page(owner_client, personas):
    response = owner_client.post("/settings/", {"max_concurrent_runs": "3"})

    assert response.status_code == 302
    personas.workspace.refresh_from_db()
    assert personas.workspace.max_concurrent_runs == 3
    page = owner_client.get("/settings/").content.decode()
    assert 'id="run-limit">3' in page and 'name="max_concurrent_runs"' in page


def test_a_blank_limit_goes_back_to_the_default(owner_client, personas, settings):
    settings.VENUS_RUNS_PER_WORKSPACE = 5
    personas.workspace.max_concurrent_runs = 2
    personas.workspace.save()

    owner_client.post("/settings/", {"max_concurrent_runs": ""})

    personas.workspace.refresh_from_db()
    assert personas.workspace.max_concurrent_runs is None
    assert "5 <span class=\"muted\">(platform default)" in owner_client.get("/settings/").content.decode()


@pytest.mark.parametrize("value", ["0", "abc", "100000"])
def test_a_bad_limit_is_shown_with_the_form(owner_client, personas, value):
    response = owner_client.post("/settings/", {"max_concurrent_runs": value})

    assert response.status_code == 400
    assert "flash-error" in response.content.decode() and f'value="{value}"' in response.content.decode()
    personas.workspace.refresh_from_db()
    assert personas.workspace.max_concurrent_runs is None


@pytest.mark.parametrize("client_fixture", ["editor_client", "viewer_client"])
def test_editors_and_viewers_see_the_limit_but_cannot_change_it(request, personas, client_fixture):
    client = request.getfixturevalue(client_fixture)

    page = client.get("/settings/").content.decode()
    assert 'id="run-limit"' in page and 'name="max_concurrent_runs"' not in page
    assert client.post("/settings/", {"max_concurrent_runs": "50"}).status_code == 403
    personas.workspace.refresh_from_db()
    assert personas.workspace.max_concurrent_runs is None


def test_queued_runs_show_their_place_in_line_on_the_list_and_their_page(owner_client, automation, settings):
    settings.VENUS_RUNS_PER_WORKSPACE = 1
    first, second, third = queue_runs(automation, 3)
    admission.runs_admit()

    listing = owner_client.get("/runs/").content.decode()
    assert 'data-queue-position="0"' in listing and "#1 in line" in listing and "#2 in line" in listing

    page = owner_client.get(f"/runs/{third.pk}/").content.decode()
    assert "#2 in line" in page and 'id="run-waited"' in page and "so far" in page
    summary = owner_client.get(f"/runs/{first.pk}/summary/").content.decode()
    assert "starting" in summary
