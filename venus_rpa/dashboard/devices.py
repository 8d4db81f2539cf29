"""What executes runs: Celery workers online (a broadcast ping with a short timeout) and the
runs each is executing, and the desktop displays of the pool with what holds each."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from django.db.models import Q

from venus_rpa.accounts.models import Workspace
from venus_rpa.pools.models import Lease, PoolResource, ResourceKind
from venus_rpa.runs.models import ACTIVE, Run

log = logging.getLogger(__name__)
# A run holds a worker thread in either task: its first execution or a parked run's continuation.
RUN_TASKS = frozenset({"venus_rpa.runs.tasks.run_execute_task", "venus_rpa.runs.tasks.run_resume_task"})


@dataclass
class WorkerStatus:
    name: str
    queues: list[str] = field(default_factory=list)
    run_ids: list[int] = field(default_factory=list)
    runs: list[Run] = field(default_factory=list)
    other_tasks: int = 0


@dataclass
class WorkersReport:
    workers: list[WorkerStatus]
    error: str = ""


def _task_run_id(task: dict) -> int | None:
    args = task.get("args") or []
    try:
        return int(args[0]) if task.get("name") in RUN_TASKS and args else None
    except (TypeError, ValueError):
        return None


def workers_report(*, workspace: Workspace, timeout: float = 1.0) -> WorkersReport:
    """Workers that answered a ping within `timeout`, with their active runs (only this
    workspace's runs are shown; other workspaces' are counted as other tasks)."""
    from venus_rpa.celery import app

    try:
        pings = app.control.inspect(timeout=timeout).ping() or {}
        # Asking the workers that answered by name returns as soon as each has replied.
        inspect = app.control.inspect(timeout=timeout, destination=list(pings))
        active = inspect.active() or {} if pings else {}
        queues = inspect.active_queues() or {} if pings else {}
    except Exception as exc:  # broker down: say so instead of failing the page
        log.warning("could not reach the Celery broker", exc_info=True)
        return WorkersReport([], error=f"Could not reach the task broker: {exc}")
    workers = []
    for name in sorted(pings):
        status = WorkerStatus(name=name, queues=sorted(q.get("name", "") for q in queues.get(name) or []))
        for task in active.get(name) or []:
            run_id = _task_run_id(task)
            if run_id is None:
                status.other_tasks += 1
            else:
                status.run_ids.append(run_id)
        workers.append(status)
    visible = {r.pk: r for r in Run.objects.filter(workspace=workspace, pk__in=[i for w in workers for i in w.run_ids])
               .select_related("automation")}
    for status in workers:
        status.runs = [visible[i] for i in status.run_ids if i in visible]
        status.other_tasks += len(status.run_ids) - len(status.runs)
    return WorkersReport(workers)


def active_runs(*, workspace: Workspace) -> list[Run]:
    return list(Run.objects.filter(workspace=workspace, status__in=ACTIVE).select_related("automation")
                .order_by("-started_at")[:50])


@dataclass
class DesktopStatus:
    display: PoolResource
    lease: Lease | None = None
    run: Run | None = None  # the holding run, where it is this workspace's

    @property
    def busy_elsewhere(self) -> bool:
        """Held by a run of another workspace (shared displays): said, not named."""
        return self.lease is not None and self.run is None


def desktops(*, workspace: Workspace) -> list[DesktopStatus]:
    """The X displays desktop runs of this workspace may lease (shared ones and its own), each
    with its open lease; the holding run is shown only where it is this workspace's."""
    displays = list(PoolResource.objects.filter(Q(workspace__isnull=True) | Q(workspace=workspace),
                                                kind=ResourceKind.DISPLAY).order_by("key")[:50])
    leases = {lease.resource_id: lease for lease in Lease.objects.filter(
        resource__in=displays, released_at__isnull=True).select_related("run", "run__automation")}
    out = []
    for display in displays:
        lease = leases.get(display.pk)
        run = lease.run if lease is not None and lease.run is not None and lease.run.workspace_id == workspace.pk else None
        out.append(DesktopStatus(display, lease, run))
    return out
