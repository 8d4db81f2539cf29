"""Which Celery queue a run's tasks go to: one queue per surface, so a worker only takes runs it
can serve (docs/surfaces.md).

Every run task (start, resume after a wait, a retry after a lost worker) goes to the queue of its
automation's surface: `VENUS_AGENT_QUEUE` for the web, `VENUS_ANDROID_QUEUE` for Android,
`VENUS_DESKTOP_QUEUE` for desktops. `route_run_task` is the Celery router doing it
(settings.CELERY_TASK_ROUTES), whichever process sends the task; a message sent with an explicit
`queue=` goes there instead. The continuation of a parked run whose environment stays on one
machine (a desktop display kept for it) goes to that machine's own queue instead
(`register_resume_queue`; the desktop's is `<VENUS_DESKTOP_QUEUE>.<host>`). A worker builds hosts for the surfaces of the queues it
consumes (`venus_rpa.runs.hosts.served_surfaces`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings

from venus_rpa.runs.models import Run

RUN_TASKS = frozenset({"venus_rpa.runs.tasks.run_execute_task", "venus_rpa.runs.tasks.run_resume_task"})
RESUME_TASK = "venus_rpa.runs.tasks.run_resume_task"
# A surface whose parked runs keep their environment on one machine (a desktop's X display) names
# the queue their continuation must go to: `finder(run_id) -> queue or None` (registered in the
# surface app's ready(), so `runs` knows none of them).
_RESUME_QUEUE_FINDERS: list[Callable[[int], str | None]] = []


def register_resume_queue(finder: Callable[[int], str | None]) -> None:
    if finder not in _RESUME_QUEUE_FINDERS:
        _RESUME_QUEUE_FINDERS.append(finder)


def surface_queues() -> dict[str, str]:
    """surface -> the queue its runs go to."""
    return {"web": settings.VENUS_AGENT_QUEUE, "android": settings.VENUS_ANDROID_QUEUE,
            "desktop": settings.VENUS_DESKTOP_QUEUE}


def queue_for(*, surface: str) -> str:
    return surface_queues().get(surface, settings.VENUS_AGENT_QUEUE)


def run_queue(*, run_id: int) -> str:
    """The queue of the run's automation version's surface (the agent queue if the run is gone)."""
    surface = Run.objects.filter(pk=run_id).values_list("version__surface", flat=True).first()
    return queue_for(surface=surface or "web")


def route_run_task(name: str, args: Any, kwargs: Any, options: dict, task: Any = None, **_: Any) -> dict | None:
    """Celery router: a run task goes to its run's surface queue; other tasks are not routed here."""
    if name not in RUN_TASKS or not args:
        return None
    run_id = int(args[0])
    if name == RESUME_TASK:
        for finder in _RESUME_QUEUE_FINDERS:
            if queue := finder(run_id):
                return {"queue": queue}
    return {"queue": run_queue(run_id=run_id)}


def surfaces_served(consumed: set[str]) -> set[str]:
    """The surfaces a worker consuming `consumed` serves: Android and desktop by their queues; the
    web by the agent queue or any queue that is no other surface's and not the default queue
    (operators and tests route web runs to queues of their own)."""
    queues = surface_queues()
    served = {surface for surface, queue in queues.items() if queue in consumed}
    others = consumed - set(queues.values()) - {settings.CELERY_TASK_DEFAULT_QUEUE}
    others = {queue for queue in others if not queue.startswith(f"{settings.VENUS_DESKTOP_QUEUE}.")}  # a host's own
    if others:
        served.add("web")
    return served
