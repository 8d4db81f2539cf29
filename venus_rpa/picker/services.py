"""The step picker: start a snapshot job, run it on a worker, resolve a click on it.

A person choosing on a screenshot holds no worker and no browser: `picker_start` queues a short
job on the agent queue; the worker (`picker_run`) opens the page the step acts on with the
runtime (`workers.picker`: the run's egress policy, credentials only on their domains, the steps
before it cleared by the safety gate, a masked screenshot, an element map whose targets the
grounder verified), stores the snapshot and releases the browser. A click is resolved here, from
the stored map (`picker_resolve`). Snapshots expire after `VENUS_PICKER_TTL_SECONDS`.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import close_old_connections, transaction
from django.utils import timezone

from venus_rpa import celery_app
from venus_rpa.automations.models import Automation
from venus_rpa.core.errors import Conflict, InvalidInput
from venus_rpa.picker.models import PickerSnapshot, PickerStatus
from venus_rpa.runs.hosts import hosts
from venus_rpa.runs.services import params_bounds_check, version_secrets, version_spec
from workers.loop import runtime_loop
from workers.picker import PURPOSES, PickFailed, picker_snapshot

log = logging.getLogger(__name__)
KINDS = tuple(PURPOSES)
RUN_TASK = "venus_rpa.picker.tasks.picker_run_task"  # sent by name: the tasks module imports this one
ALTERNATIVES = 3


def picker_start(*, automation: Automation, user, step: int, kind: str = "", params: dict | None = None) -> PickerSnapshot:
    """Queue a snapshot of the page step `step` (0-based; the number of steps for a new last one)
    of the automation's current version acts on. `kind`: the step's kind (default: the stored
    step's, else click). `params`: values for parameters the steps before it use."""
    version = Automation.objects.select_related("current_version").get(pk=automation.pk).current_version
    if version is None:
        raise Conflict("This automation has no version to pick on.")
    if version.surface != "web":
        raise InvalidInput("The picker works on web automations.", fields={"step": ["Not a web automation."]})
    if not version.start_url:
        raise InvalidInput("The automation has no start URL to open.", fields={"step": ["No start URL."]})
    if not 0 <= step <= len(version.steps):
        raise InvalidInput(f"There is no step {step + 1}.", fields={"step": [f"Must be 0 to {len(version.steps)}."]})
    kind = kind or (version.steps[step]["kind"] if step < len(version.steps) else "click")
    if kind not in KINDS:
        raise InvalidInput(f"A {kind} step has no target to pick.", fields={"kind": [f"One of {', '.join(KINDS)}."]})
    clean = _params(version.param_schema, params or {})
    now = timezone.now()
    with transaction.atomic():
        PickerSnapshot.objects.filter(workspace=automation.workspace, expires_at__lte=now).delete()
        snapshot = PickerSnapshot.objects.create(
            workspace=automation.workspace, automation=automation, version=version, step=step, kind=kind,
            created_by=user if getattr(user, "is_authenticated", False) else None,
            expires_at=now + timedelta(seconds=settings.VENUS_PICKER_TTL_SECONDS))
        transaction.on_commit(lambda: _enqueue(snapshot.pk, clean))
    return snapshot


def _params(schema: dict, params: dict) -> dict[str, Any]:
    """Values to open the page with: plain values, bounded and storable as a run's are
    (`params_bounds_check`, storable text among them, defaults added); a required one may be left out (the page before a
    step may not need it)."""
    if not isinstance(params, dict) or any(not isinstance(v, (str, int, float, bool)) for v in params.values()):
        raise InvalidInput("Parameters must be an object of plain values.", fields={"params": ["Plain values only."]})
    if any("{{" in str(v) or "}}" in str(v) for v in params.values()):
        raise InvalidInput("Parameters may not contain templates.", fields={"params": ["Must not contain '{{'."]})
    params_bounds_check(params)
    defaults = {k: v["default"] for k, v in ((schema or {}).get("properties") or {}).items()
                if isinstance(v, dict) and "default" in v}
    clean = {**defaults, **params}
    params_bounds_check(clean)
    return clean


def _enqueue(snapshot_id: int, params: dict) -> None:
    celery_app.send_task(RUN_TASK, args=[snapshot_id], kwargs={"params": params}, queue=settings.VENUS_AGENT_QUEUE)


def picker_run(*, snapshot_id: int, params: dict | None = None) -> None:
    """Worker side: take a queued snapshot once, open the page with the runtime, store the result
    (or the reason it failed). The browser is released before this returns."""
    close_old_connections()
    if not PickerSnapshot.objects.filter(pk=snapshot_id, status=PickerStatus.QUEUED).update(status=PickerStatus.RUNNING):
        return  # taken already (a redelivered message) or gone
    snapshot = PickerSnapshot.objects.select_related("version", "workspace").get(pk=snapshot_id)
    secrets = None
    try:
        spec = version_spec(version=snapshot.version)
        host = hosts().get("web")
        if host is None:
            raise PickFailed("this worker does not serve web automations; start one on the agent queue")
        secrets = version_secrets(workspace=snapshot.workspace, version=snapshot.version)
        shot = runtime_loop.run(picker_snapshot(
            host, spec, step=snapshot.step, kind=snapshot.kind, params=params or {}, secrets=secrets,
            timeout_s=settings.VENUS_PICKER_TIMEOUT_SECONDS))
    except PickFailed as exc:
        _finish(snapshot_id, status=PickerStatus.FAILED, error=str(exc))
        return
    except Exception as exc:  # a bug: still end with a reason
        log.exception("picker snapshot %s crashed", snapshot_id)
        reason = f"internal error: {type(exc).__name__}: {exc}"
        _finish(snapshot_id, status=PickerStatus.FAILED, error=secrets.scrub(reason) if secrets else reason)
        return
    _finish(snapshot_id, status=PickerStatus.READY, url=shot.url[:2000], width=shot.width, height=shot.height,
            screenshot=shot.screenshot, elements=shot.elements)


def _finish(snapshot_id: int, **fields: Any) -> None:
    PickerSnapshot.objects.filter(pk=snapshot_id).update(finished_at=timezone.now(), **fields)


def picker_sweep() -> int:
    """Delete expired snapshots (screenshots of signed-in pages are not kept); beat runs it."""
    deleted, _ = PickerSnapshot.objects.filter(expires_at__lte=timezone.now()).delete()
    return deleted


def picker_resolve(*, snapshot: PickerSnapshot, x: float, y: float) -> dict[str, Any]:
    """The element at (x, y) in screenshot pixels: the smallest one whose box (or label's box)
    holds the point, its verified target and match count, and the elements around it as
    alternatives (enclosing ones, or the field a label belongs to)."""
    if snapshot.status != PickerStatus.READY:
        raise Conflict(f"The snapshot is {snapshot.status}; there is nothing to pick on yet.")
    if not (0 <= x <= snapshot.width and 0 <= y <= snapshot.height):
        raise InvalidInput(f"({x:g}, {y:g}) is outside the {snapshot.width}×{snapshot.height} screenshot.",
                           fields={"x": ["Outside the screenshot."], "y": ["Outside the screenshot."]})
    hits = sorted((_area(box), element) for element in snapshot.elements
                  for box in [b for b in [element["box"], *element.get("also", [])] if _holds(b, x, y)][:1])
    if not hits:
        raise InvalidInput("Nothing a step can act on is there; click on a control, a field or a text.",
                           fields={"x": ["No element here."]})
    chosen = hits[0][1]
    alternatives = [_shown(e) for _, e in hits[1:] if e["target"] and e["id"] != chosen["id"]][:ALTERNATIVES]
    return {**_shown(chosen), "alternatives": alternatives}


def _holds(box: list[float], x: float, y: float) -> bool:
    bx, by, bw, bh = box
    return bx <= x <= bx + bw and by <= y <= by + bh


def _area(box: list[float]) -> float:
    return box[2] * box[3]


def _shown(element: dict) -> dict[str, Any]:
    return {"target": element["target"], "count": element["count"], "why": element["why"],
            "describe": element["describe"], "box": element["box"]}
