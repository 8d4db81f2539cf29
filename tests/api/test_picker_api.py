"""The step picker's API without a worker: who may start and read snapshots, the one error
shape, expiry, and how a click is resolved from the stored element map."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.api.conftest import assert_error
from tests.reviews.conftest import make_automation

pytestmark = pytest.mark.django_db

FIELD = {"id": 0, "box": [100, 100, 200, 30], "also": [[100, 80, 60, 16]], "target": {"label": "Email address",
         "within": "Register"}, "count": 1, "why": "'Email address' matches 2 elements; within 'Register' only this one",
         "describe": 'input[email] "Email address" in "Register"', "fits": True}
FORM = {"id": 1, "box": [90, 60, 400, 200], "also": [], "target": {"text": "Register"}, "count": 1,
        "why": "'Register' matches this element only", "describe": 'form "Register"', "fits": False}
TWIN = {"id": 2, "box": [500, 100, 50, 20], "also": [], "target": {"text": "Go", "nth": 1}, "count": 2,
        "why": "'Go' matches 2 elements and no heading, box or nearby text tells them apart; nth 1 picks this one",
        "describe": 'button "Go"', "fits": True}


@pytest.fixture
def automation(personas):
    return make_automation(personas.workspace)


def snapshot(automation, **fields):
    from venus_rpa.picker.models import PickerSnapshot

    data = dict(workspace=automation.workspace, automation=automation, version=automation.current_version, step=1,
                kind="fill", status="ready", width=1280, height=900, screenshot=b"\xff\xd8\xff\xe0shot",
                elements=[FIELD, FORM, TWIN], url="http://127.0.0.1:8765/shop/checkout",
                expires_at=timezone.now() + timedelta(minutes=15))
    return PickerSnapshot.objects.create(**{**data, **fields})


def base(automation) -> str:
    return f"/api/automations/{automation.slug}/picker/"


def test_an_editor_starts_a_snapshot_of_a_step_and_gets_its_id(personas, automation):
    response = personas.client(personas.teammate).post(base(automation), {"step": 1}, format="json")
    assert response.status_code == 202, response.content
    body = response.json()
    assert body["status"] == "queued" and body["step"] == 1 and body["kind"] == "click"  # the stored step's kind
    assert body["screenshot"] is None and body["elements"] == []
    expires = timezone.datetime.fromisoformat(body["expires_at"].replace("Z", "+00:00"))
    assert timedelta(minutes=14) < expires - timezone.now() <= timedelta(minutes=15)


def test_a_new_last_step_and_a_kind_can_be_given(personas, automation):
    response = personas.client(personas.owner).post(base(automation), {"step": 2, "kind": "fill"}, format="json")
    assert response.status_code == 202 and response.json()["kind"] == "fill"


@pytest.mark.parametrize("body, field", [({"step": 3}, "step"), ({"step": -1}, "step"), ({}, "step"),
                                         ({"step": 0, "kind": "goto"}, "kind"), ({"step": 0, "params": {"a": "{{x}}"}}, "params"),
                                         ({"step": 0, "surprise": 1}, "surprise")])
def test_bad_requests_say_which_field(personas, automation, body, field):
    error = assert_error(personas.client(personas.owner).post(base(automation), body, format="json"), 400)
    assert field in error["fields"], error


def test_viewers_and_other_workspaces_cannot_start_or_read_a_snapshot(personas, automation):
    shot = snapshot(automation)
    viewer, outsider = personas.client(personas.viewer), personas.client(personas.outsider)
    assert_error(viewer.post(base(automation), {"step": 0}, format="json"), 403)
    for client, status in ((viewer, 403), (outsider, 404)):
        assert_error(client.get(f"{base(automation)}{shot.pk}/"), status)
        assert_error(client.get(f"{base(automation)}{shot.pk}/screenshot/"), status)
        assert_error(client.post(f"{base(automation)}{shot.pk}/resolve/", {"x": 1, "y": 1}, format="json"), status)
    other = make_automation(personas.workspace, slug="other")  # the id under another automation: not found
    assert_error(personas.client(personas.owner).get(f"{base(other)}{shot.pk}/"), 404)


def test_an_editor_reads_the_snapshot_and_its_screenshot(personas, automation):
    shot = snapshot(automation)
    client = personas.client(personas.teammate)
    body = client.get(f"{base(automation)}{shot.pk}/").json()
    assert body["status"] == "ready" and body["elements"][0]["target"] == FIELD["target"]
    image = client.get(body["screenshot"])
    assert image.status_code == 200 and image["Content-Type"] == "image/jpeg" and image.content == b"\xff\xd8\xff\xe0shot"
    assert "no-store" in image["Cache-Control"]


def test_an_expired_snapshot_is_gone(personas, automation):
    shot = snapshot(automation, expires_at=timezone.now() - timedelta(seconds=1))
    error = assert_error(personas.client(personas.owner).get(f"{base(automation)}{shot.pk}/"), 409)
    assert "expired" in error["message"]


def test_a_job_no_worker_finished_is_reported_failed(personas, automation, settings):
    shot = snapshot(automation, status="running", elements=[])
    type(shot).objects.filter(pk=shot.pk).update(created_at=timezone.now() - timedelta(
        seconds=settings.VENUS_PICKER_TIMEOUT_SECONDS + 200))
    body = personas.client(personas.owner).get(f"{base(automation)}{shot.pk}/").json()
    assert body["status"] == "failed" and "no worker" in body["error"]


def resolve(personas, automation, shot, x, y):
    return personas.client(personas.owner).post(f"{base(automation)}{shot.pk}/resolve/", {"x": x, "y": y}, format="json")


def test_a_click_resolves_to_the_smallest_element_with_the_enclosing_one_as_alternative(personas, automation):
    shot = snapshot(automation)
    body = resolve(personas, automation, shot, 150, 110).json()
    assert body["target"] == FIELD["target"] and body["count"] == 1 and body["box"] == FIELD["box"]
    assert [a["target"] for a in body["alternatives"]] == [FORM["target"]]
    assert resolve(personas, automation, shot, 120, 85).json()["target"] == FIELD["target"]  # on its label
    twin = resolve(personas, automation, shot, 510, 110).json()
    assert twin["count"] == 2 and "nth 1" in twin["why"]


def test_a_click_on_nothing_or_outside_or_before_ready_is_a_clear_error(personas, automation):
    shot = snapshot(automation)
    assert "Nothing a step can act on" in assert_error(resolve(personas, automation, shot, 1000, 800), 400)["message"]
    assert "outside" in assert_error(resolve(personas, automation, shot, 1300, 10), 400)["message"]
    pending = snapshot(automation, status="running", screenshot=None, elements=[])
    assert "running" in assert_error(resolve(personas, automation, pending, 1, 1), 409)["message"]
    assert_error(personas.client(personas.owner).get(f"{base(automation)}{pending.pk}/screenshot/"), 409)


def test_the_sweep_deletes_expired_snapshots_only_and_beat_runs_it(personas, automation, settings):
    from venus_rpa.picker.models import PickerSnapshot
    from venus_rpa.picker.tasks import picker_sweep_task

    live, old = snapshot(automation), snapshot(automation, expires_at=timezone.now() - timedelta(seconds=1))
    assert picker_sweep_task() == 1
    assert list(PickerSnapshot.objects.values_list("pk", flat=True)) == [live.pk] and old.pk != live.pk
    assert settings.CELERY_BEAT_SCHEDULE["picker-sweep"]["task"] == "venus_rpa.picker.tasks.picker_sweep_task"


def test_picker_values_are_bounded_and_storable_as_a_runs(personas, automation, settings):
    """The picker opens the page with the values given, as a run would: a value longer than a run
    parameter may be, or text that is not Unicode, is refused by name and queues nothing."""
    from venus_rpa.core.text import NOT_STORABLE
    from venus_rpa.picker.models import PickerSnapshot

    settings.VENUS_PARAM_MAX_CHARS = 20
    client = personas.client(personas.teammate)
    response = client.post(base(automation), {"step": 1, "params": {"q": "x" * 21}}, format="json")
    assert "params.q" in assert_error(response, 400)["fields"]
    response = client.post(base(automation), data=b'{"step": 1, "params": {"q": "\\ud800"}}',
                           content_type="application/json")
    assert assert_error(response, 400)["fields"] == {"params": [NOT_STORABLE]}
    assert not PickerSnapshot.objects.exists()
    assert client.post(base(automation), {"step": 1, "params": {"q": "x" * 20}}, format="json").status_code == 202
