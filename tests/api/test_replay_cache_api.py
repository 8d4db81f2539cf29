"""The replay cache's switch and storage through the API and services: who may switch it, that a
switch is no new version, and that one automation's cache is out of reach of every other."""

from __future__ import annotations

import asyncio

import pytest

from tests.api.conftest import assert_error
from workers.replay import CachedTurn

TURN = {"fingerprint": {"path": "/lab/replay", "controls": "c0ffee:2", "text": "t"}, "thought": "Save.",
        "action_text": "Click(point=(500, 300))", "actions": [{"type": "Click", "point": [500, 300]}],
        "anchors": [{"tag": "button", "role": "button", "name": "Save preferences", "id": "save"}]}


def store_for(subject):
    from venus_rpa.automations.replay import RunReplayStore

    return RunReplayStore(version_id=subject.current_version_id, enabled=subject.replay_cache, run_id=1)


def load(store, key: str):
    async def go():
        try:
            return await store.load(key)
        finally:
            await store.close()

    return asyncio.run(go())


@pytest.fixture
def cached(automation):
    from venus_rpa.automations.services import replay_paths_save

    replay_paths_save(version_id=automation.current_version_id, run_id=7, paths={"1:abc": [TURN]})
    return automation


@pytest.mark.django_db(transaction=True)
def test_a_run_reads_only_its_own_versions_cache(cached, personas):
    from tests.api.conftest import PRACTICE_CREDENTIAL
    from venus_rpa.automations.services import automation_create, credential_set

    credential_set(workspace=personas.other_workspace, name=PRACTICE_CREDENTIAL, fields={"username": "u", "password": "p"},
                   domains=["127.0.0.1"])
    assert load(store_for(cached), "1:abc") == [CachedTurn.from_json(TURN)]
    # The same definition in another automation (and another workspace) with the same step key: nothing.
    for workspace, slug in ((personas.workspace, "twin"), (personas.other_workspace, "twin")):
        twin = automation_create(workspace=workspace, user=None, slug=slug, name="Twin",
                                 definition=cached.current_version.definition())
        assert load(store_for(twin), "1:abc") is None


@pytest.mark.django_db
def test_an_editor_switches_the_cache_off_without_a_new_version_and_its_paths_are_forgotten(cached, personas):
    from venus_rpa.automations.models import ReplayPath

    editor = personas.client(personas.teammate)
    answer = editor.patch(f"/api/automations/{cached.slug}/", {"replay_cache": False}, format="json")
    assert answer.status_code == 200, answer.json()
    assert answer.json()["replay_cache"] is False and answer.json()["version"]["number"] == 1
    assert not ReplayPath.objects.exists()
    on = editor.patch(f"/api/automations/{cached.slug}/", {"replay_cache": True}, format="json")
    assert on.json()["replay_cache"] is True and on.json()["version"]["number"] == 1


@pytest.mark.django_db
def test_a_viewer_or_an_outsider_cannot_switch_or_fill_the_cache(cached, personas):
    from venus_rpa.automations.models import ReplayPath

    viewer = personas.client(personas.viewer)
    assert_error(viewer.patch(f"/api/automations/{cached.slug}/", {"replay_cache": False}, format="json"), 403)
    outsider = personas.client(personas.outsider)
    assert outsider.patch(f"/api/automations/{cached.slug}/", {"replay_cache": False}, format="json").status_code == 404
    # There is no way in for a path: the API takes no such field, from anyone.
    owner_client = personas.client(personas.owner)
    poisoned = owner_client.patch(f"/api/automations/{cached.slug}/", {"replay_paths": {"1:abc": []}}, format="json")
    assert "replay_paths" in assert_error(poisoned, 400, "invalid")["fields"]
    assert list(ReplayPath.objects.values_list("turns", flat=True)) == [[TURN]]


@pytest.mark.django_db
def test_a_save_after_the_cache_was_switched_off_writes_nothing(automation, personas):
    from venus_rpa.automations.models import ReplayPath
    from venus_rpa.automations.services import automation_update, replay_paths_save

    automation_update(automation=automation, user=personas.owner, replay_cache=False)
    assert replay_paths_save(version_id=automation.current_version_id, run_id=7, paths={"1:abc": [TURN]}) == 0
    assert not ReplayPath.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_new_version_starts_without_a_cache(cached, personas):
    from venus_rpa.automations.services import automation_update

    old = cached.current_version
    renewed = automation_update(automation=cached, user=personas.owner, definition={"goal": "Something else"})
    assert renewed.current_version != old
    assert load(store_for(renewed), "1:abc") is None
    assert old.replay_paths.count() == 1  # the old version's path stays with it (its queued runs may use it)


@pytest.mark.django_db
@pytest.mark.parametrize("status, verdict, written", [
    ("succeeded", {"passed": True}, 1),
    ("succeeded", {"passed": True, "judges": {"outcome": "pass"}, "needs_a_look": False}, 1),
    ("succeeded", {"passed": True, "judges": {"outcome": "fail"}, "needs_a_look": True}, 0),
    ("succeeded", {"passed": True, "needs_a_look": True}, 0),  # judges split or could not run
    ("failed", {"passed": False}, 0),
])
def test_held_paths_are_written_with_the_runs_end_only_when_its_final_verdict_verifies(automation, status, verdict,
                                                                                       written):
    from venus_rpa.automations.models import ReplayPath

    store = store_for(automation)
    asyncio.run(store.save({"1:abc": [CachedTurn.from_json(TURN)]}))  # the runtime hands them over: held, not written
    assert not ReplayPath.objects.exists()
    assert store.commit(status=status, verdict=verdict) == written
    assert ReplayPath.objects.count() == written
    store.pool.shutdown()
