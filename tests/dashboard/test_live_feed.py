"""The workspace live feed (`ws/live/`): members hear of their workspace's run state changes and
waiting reviews, published by the services after commit; nobody hears of another workspace's."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from tests.dashboard.conftest import make_run, signed_in
from tests.notifications.conftest import file_review
from venus_rpa.routing import websocket_urlpatterns


def feed(user) -> WebsocketCommunicator:
    comm = WebsocketCommunicator(URLRouter(websocket_urlpatterns), "/ws/live/")
    comm.scope["user"] = user
    return comm


async def connected(user) -> WebsocketCommunicator:
    comm = feed(user)
    ok, _ = await comm.connect()
    assert ok
    assert await comm.receive_json_from(timeout=5) == {"type": "reviews.changed", "pending": 0}  # the badge, at once
    return comm


@pytest.fixture
def runs(transactional_db, personas, automation, foreign_automation):
    return make_run(automation, status="running"), make_run(foreign_automation, status="running")


def test_a_member_hears_run_changes_of_their_workspace_only(personas, runs):
    from venus_rpa.runs.services import run_finish, run_status_set

    mine, theirs = runs

    async def scenario():
        viewer, outsider = await connected(personas.viewer), await connected(personas.outsider)
        await database_sync_to_async(run_status_set)(run_id=mine.pk, status="awaiting_review")
        assert await viewer.receive_json_from(timeout=5) == {"type": "run.changed", "run": mine.pk,
                                                              "status": "awaiting_review"}
        await database_sync_to_async(run_finish)(run_id=mine.pk, status="succeeded", reason="done")
        assert await viewer.receive_json_from(timeout=5) == {"type": "run.changed", "run": mine.pk, "status": "succeeded"}
        # Another user's run (another workspace): it never reaches the viewer, only its own members.
        await database_sync_to_async(run_finish)(run_id=theirs.pk, status="failed", reason="x")
        assert await outsider.receive_json_from(timeout=5) == {"type": "run.changed", "run": theirs.pk,
                                                                "status": "failed"}
        assert await viewer.receive_nothing(timeout=0.5)
        for comm in (viewer, outsider):
            await comm.disconnect()

    async_to_sync(scenario)()


def test_the_reviews_badge_follows_reviews_filed_and_decided(personas, runs):
    from venus_rpa.reviews.services import review_decide

    mine, _ = runs

    async def scenario():
        owner, outsider = await connected(personas.owner), await connected(personas.outsider)
        review = await database_sync_to_async(file_review)(mine)
        assert await owner.receive_json_from(timeout=5) == {"type": "reviews.changed", "pending": 1}
        await database_sync_to_async(review_decide)(review=review, user=personas.owner, decision="reject",
                                                    comment="not today")
        assert await owner.receive_json_from(timeout=5) == {"type": "reviews.changed", "pending": 0}
        assert await outsider.receive_nothing(timeout=0.5)
        for comm in (owner, outsider):
            await comm.disconnect()

    async_to_sync(scenario)()


def test_a_new_run_is_announced_after_it_is_committed(personas, automation, transactional_db):
    from venus_rpa.runs.services import run_start

    async def scenario():
        viewer = await connected(personas.viewer)
        run = await database_sync_to_async(run_start)(automation=automation, params={"title": "x", "when": "2026-01-02"})
        assert await viewer.receive_json_from(timeout=5) == {"type": "run.changed", "run": run.pk, "status": "queued"}
        await viewer.disconnect()

    async_to_sync(scenario)()


def test_anonymous_callers_and_non_members_are_turned_away(transactional_db, personas):
    from django.contrib.auth.models import AnonymousUser

    from tests.factories import UserFactory

    async def scenario():
        for user in (AnonymousUser(), await database_sync_to_async(UserFactory)(username="nomad")):
            ok, code = await feed(user).connect()
            assert not ok and code == 4403

    async_to_sync(scenario)()


def test_the_live_regions_answer_with_their_fragment_only(personas, automation, viewer_client):
    make_run(automation, status="running")
    page = viewer_client.get("/runs/?status=running")
    assert 'id="runs-live"' in page.content.decode()
    fragment = viewer_client.get("/runs/?status=running", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="runs-live")
    html = fragment.content.decode()
    assert "<html" not in html and 'data-status="running"' in html and "<nav" not in html
    assert "HX-Target" in fragment["Vary"]  # a cached fragment is never shown as the page
    home = viewer_client.get("/", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="home-live").content.decode()
    assert 'data-live-count="active">1<' in home and "<html" not in home
    # The nav badge is there (hidden at 0) for the feed to fill.
    assert "data-live-pending" in viewer_client.get("/").content.decode()


def test_an_outsider_cannot_read_another_workspaces_fragment(personas, automation):
    run = make_run(automation, status="running")
    html = signed_in(personas.outsider).get("/runs/", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="runs-live").content.decode()
    assert f'data-run="{run.pk}"' not in html
