"""The dashboard's websockets.

- `ws/runs/<id>/` (the live run page) forwards the run's Channels group events. Only a signed-in
  member whose dashboard workspace owns the run may listen (the same rule as the run page: other
  workspaces' runs do not exist for them). Events are passed on as published by the worker
  (`runs.events`): {"type": "run.step", "step": {...}}, {"type": "run.status", ...}.
- `ws/live/` (every dashboard page) forwards the events of the signed-in member's dashboard
  workspace, and only that one: {"type": "run.changed", "run": id, "status": ...} and
  {"type": "reviews.changed", "pending": n}. Pages re-read their lists over HTTP on them.
"""

from __future__ import annotations

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from venus_rpa.dashboard.access import access_for
from venus_rpa.reviews.models import ReviewRequest, ReviewStatus
from venus_rpa.runs.events import run_group, workspace_group
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


@database_sync_to_async
def _pending_reviews(workspace_id: int) -> int:
    return ReviewRequest.objects.filter(workspace_id=workspace_id, status=ReviewStatus.PENDING).count()


@database_sync_to_async
def _workspace_of(user) -> int | None:
    if not getattr(user, "is_authenticated", False):
        return None
    access = access_for(user)
    return access.workspace.pk if access is not None else None


class WorkspaceConsumer(AsyncJsonWebsocketConsumer):
    """Listen-only feed of the member's dashboard workspace (the one every page shows)."""

    group: str | None = None

    async def connect(self) -> None:
        workspace_id = await _workspace_of(self.scope.get("user"))
        if workspace_id is None:
            await self.close(code=CLOSE_FORBIDDEN)
            return
        self.group = workspace_group(workspace_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        # What changed between the page's render and now: the badge is right from the start.
        await self.send_json({"type": "reviews.changed", "pending": await _pending_reviews(workspace_id)})

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive_json(self, content, **kwargs) -> None:
        """Listen-only."""

    async def workspace_event(self, message: dict) -> None:
        await self.send_json(message["event"])
