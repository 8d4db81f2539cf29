"""Live run events over the Channels layer (group `run-<id>`), read by websockets and the CLI.

Publishing never fails a run: an unreachable Redis only loses live updates; the database holds
the record.
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from venus_rpa.runs.models import Step

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


def step_event(step: Step) -> dict:
    return {
        "index": step.index, "kind": step.kind, "name": step.name, "status": step.status, "error": step.error,
        "action": step.action, "grounding": step.grounding, "url": step.url, "thought": step.thought,
        "model": step.model, "replayed": step.replayed,
        "screenshot": step.screenshot.url if step.screenshot else None,
        "timings": {"act_ms": round(step.act_ms, 1), "observe_ms": round(step.observe_ms, 1), "model_ms": round(step.model_ms, 1)},
    }
