"""The live run websocket: members receive the run's group events, others are turned away."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from tests.dashboard.conftest import make_run
from venus_rpa.runs.events import apublish_run_event
from venus_rpa.routing import websocket_urlpatterns


def communicator(run_id: int, user) -> WebsocketCommunicator:
    comm = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/runs/{run_id}/")
    comm.scope["user"] = user
    return comm


@pytest.fixture
def run(transactional_db, personas, automation):
    return make_run(automation, status="running")


def test_a_member_receives_step_and_status_events(personas, run):
    async def scenario():
        comm = communicator(run.pk, personas.viewer)
        connected, _ = await comm.connect()
        assert connected
        await apublish_run_event(run.pk, {"type": "run.step", "step": {"index": 0, "kind": "click"}})
        assert await comm.receive_json_from(timeout=5) == {"type": "run.step", "step": {"index": 0, "kind": "click"}}
        await apublish_run_event(run.pk, {"type": "run.status", "status": "succeeded", "reason": ""})
        assert (await comm.receive_json_from(timeout=5))["status"] == "succeeded"
        await apublish_run_event(run.pk + 1000, {"type": "run.status", "status": "failed"})
        assert await comm.receive_nothing(timeout=0.3)
        await comm.disconnect()

    async_to_sync(scenario)()


def test_an_outsider_is_rejected(personas, run):
    async def scenario():
        comm = communicator(run.pk, personas.outsider)
        connected, code = await comm.connect()
        assert not connected and code == 4403

    async_to_sync(scenario)()


def test_an_anonymous_user_is_rejected(run):
    from django.contrib.auth.models import AnonymousUser

    async def scenario():
        connected, _ = await communicator(run.pk, AnonymousUser()).connect()
        assert not connected

    async_to_sync(scenario)()
