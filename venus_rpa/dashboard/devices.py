"""What executes runs: Celery workers online (a broadcast ping with a short timeout) and the
runs each is executing. Device and desktop pools are listed once they exist."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from venus_rpa.accounts.models import Workspace
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
