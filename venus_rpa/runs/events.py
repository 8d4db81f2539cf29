"""Live events over the Channels layer, read by websockets and the CLI.

- group `run-<id>`: one run's steps and status (the live run page);
- group `workspace-<id>`: what the lists, counters and the nav's Reviews badge of that
  workspace's members show (`run.changed`, `reviews.changed`). Only members of the workspace
  join it (`dashboard.consumers.WorkspaceConsumer`); events carry ids and states, never a run's
  parameters, output or screenshots: pages fetch what they show over HTTP, with the usual checks.

Publishing never fails a run: an unreachable Redis only loses live updates; the database holds
the record. Workspace events are sent after commit, so a page that re-reads on an event sees the
change.
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from venus_rpa.runs.models import Run, Step

log = logging.getLogger(__name__)


def run_group(run_id: int) -> str:
    return f"run-{run_id}"


def publish_run_event(run_id: int, event: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(run_group(run_id), {"type": "run.event", "event": event})
    except Exception:
        log.warning("could not publish event for run %s", run_id, exc_info=True)


async def apublish_run_event(run_id: int, event: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        await layer.group_send(run_group(run_id), {"type": "run.event", "event": event})
    except Exception:
        log.warning("could not publish event for run %s", run_id, exc_info=True)


def workspace_group(workspace_id: int) -> str:
    return f"workspace-{workspace_id}"


def publish_workspace_event(workspace_id: int, event: dict[str, Any]) -> None:
    """Send `event` to the members of the workspace watching a dashboard page (now; callers that
    write in a transaction use the `*_changed` helpers, which wait for the commit)."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(workspace_group(workspace_id), {"type": "workspace.event", "event": event})
    except Exception:
        log.warning("could not publish event for workspace %s", workspace_id, exc_info=True)


def publish_run_changed(run_id: int) -> None:
    """After commit: tell the run's workspace that the run was created or changed state (lists
    and counters re-read). The state is read at send time, so it is the committed one."""

    def send() -> None:
        row = Run.objects.filter(pk=run_id).values("workspace_id", "status").first()
        if row is not None:
            publish_workspace_event(row["workspace_id"], {"type": "run.changed", "run": run_id, "status": row["status"]})

    transaction.on_commit(send, robust=True)


def step_event(step: Step) -> dict:
    return {
        "index": step.index, "kind": step.kind, "name": step.name, "status": step.status, "error": step.error,
        "action": step.action, "grounding": step.grounding, "url": step.url, "thought": step.thought,
        "model": step.model, "replayed": step.replayed,
        "screenshot": step.screenshot.url if step.screenshot else None,
        "screenshot_before": step.screenshot_before.url if step.screenshot_before else None,
        "timings": {"act_ms": round(step.act_ms, 1), "observe_ms": round(step.observe_ms, 1), "model_ms": round(step.model_ms, 1)},
    }
