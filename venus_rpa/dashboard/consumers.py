"""The live run page's websocket: `ws/runs/<id>/` forwards the run's Channels group events.

Only a signed-in member whose dashboard workspace owns the run may listen (the same rule as the
run page: other workspaces' runs do not exist for them). Events are passed on as published by
the worker (`runs.events`): {"type": "run.step", "step": {...}}, {"type": "run.status", ...}.
"""

from __future__ import annotations

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from venus_rpa.dashboard.access import access_for
from venus_rpa.runs.events import run_group
from venus_rpa.runs.models import Run

CLOSE_FORBIDDEN = 4403


@database_sync_to_async
def _may_watch(user, run_id: int) -> bool:
    if not getattr(user, "is_authenticated", False):
        return False
    access = access_for(user)
    return access is not None and Run.objects.filter(pk=run_id, workspace=access.workspace).exists()


class RunConsumer(AsyncJsonWebsocketConsumer):
    group: str | None = None

    async def connect(self) -> None:
        run_id = int(self.scope["url_route"]["kwargs"]["run_id"])
        if not await _may_watch(self.scope.get("user"), run_id):
            await self.close(code=CLOSE_FORBIDDEN)
            return
        self.group = run_group(run_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive_json(self, content, **kwargs) -> None:
        """Listen-only: the page talks to the server over HTTP."""

    async def run_event(self, message: dict) -> None:
        await self.send_json(message["event"])
