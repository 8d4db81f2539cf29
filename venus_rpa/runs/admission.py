"""Fair concurrency: which queued runs get a worker slot, and when.

A run *holds a slot* from its admission until it ends or a wait parks it (`slot_holders`). A run
is sent to Celery only once it is admitted, so the broker holds admitted runs and nothing else;
the runs still waiting for their turn live in the database alone (`waiting`).

`runs_admit` is the dispatcher. While slots are free it gives the next one to the workspace with
the fewest runs holding slots (a tie goes to the workspace whose oldest waiting run is oldest),
and within a workspace to its oldest waiting run. A workspace never holds more slots than its
limit (`workspace_run_limit`: the owner's setting or VENUS_RUNS_PER_WORKSPACE); all workspaces
together never more than VENUS_RUNS_MAX_ACTIVE (0: no platform cap, the workers' concurrency
bounds it). So a workspace that queues a hundred runs cannot starve one that queues one: the
next free slot goes to the workspace with fewer runs in flight.

Concurrency contract (PostgreSQL): one dispatcher decides at a time, under a transaction-level
advisory lock taken before anything is read. In READ COMMITTED each later statement sees what
earlier dispatchers and finished runs committed, so a slot freed while another dispatcher works
is seen by the dispatch that its own run end triggers, which waits for the lock. Candidate runs
are locked `FOR UPDATE SKIP LOCKED`: a run being cancelled at that moment is passed over for the
next one instead of being waited on. On SQLite, IMMEDIATE transactions serialize writers.

This module decides and records admissions; `venus_rpa.runs.services.runs_dispatch` calls it and
sends the admitted runs to Celery after commit (docs/scaling.md, "Fair concurrency").
"""

from __future__ import annotations

import heapq
from collections import Counter

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, Min, Q
from django.utils import timezone

from venus_rpa.accounts.models import Workspace
from venus_rpa.runs.models import Run, RunStatus

# Key of PostgreSQL's advisory lock that serializes dispatchers ("venus" in ASCII).
ADMISSION_LOCK_KEY = 0x76656E7573
_WAITS = [RunStatus.AWAITING_REVIEW, RunStatus.AWAITING_USER]


def slot_holders() -> Q:
    """Runs that hold a worker slot: running, admitted and not started yet, or waiting for a person
    while the worker still holds them. A parked wait has given its slot back (`admitted_at` null);
    a resumed one holds a slot again once it runs."""
    return Q(status=RunStatus.RUNNING) | Q(status__in=[RunStatus.QUEUED, *_WAITS], admitted_at__isnull=False)


def waiting() -> Q:
    """Runs waiting for their turn: queued and not admitted."""
    return Q(status=RunStatus.QUEUED, admitted_at__isnull=True)


def workspace_run_limit(*, workspace: Workspace) -> int:
    """How many of the workspace's runs may hold slots at once."""
    return workspace.max_concurrent_runs or settings.VENUS_RUNS_PER_WORKSPACE


def runs_admit() -> list[int]:
    """Admit as many waiting runs as the limits allow, fairly across workspaces (module docstring),
    and return their ids. The caller sends them to Celery after commit."""
    with transaction.atomic():
        _lock()
        admitted: list[int] = []
        now = timezone.now()
        for workspace_id, count in _plan().items():
            ids = list(Run.objects.filter(waiting(), workspace_id=workspace_id).order_by("pk")
                       .select_for_update(skip_locked=True).values_list("pk", flat=True)[:count])
            Run.objects.filter(pk__in=ids).update(admitted_at=now)
            admitted += ids
    return admitted


def _lock() -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [ADMISSION_LOCK_KEY])


def _plan() -> Counter[int]:
    """{workspace id: how many of its waiting runs to admit now}."""
    held = Counter(dict(Run.objects.filter(slot_holders()).order_by().values_list("workspace")
                        .annotate(n=Count("pk"))))
    queue = list(Run.objects.filter(waiting()).order_by().values("workspace").annotate(n=Count("pk"), first=Min("pk")))
    overrides = dict(Workspace.objects.filter(pk__in=[q["workspace"] for q in queue])
                     .values_list("pk", "max_concurrent_runs"))
    cap = settings.VENUS_RUNS_MAX_ACTIVE
    free = cap - sum(held.values()) if cap > 0 else None
    queued, limits, heap = {}, {}, []
    for q in queue:
        workspace = q["workspace"]
        queued[workspace], limits[workspace] = q["n"], overrides.get(workspace) or settings.VENUS_RUNS_PER_WORKSPACE
        if held[workspace] < limits[workspace]:
            heap.append((held[workspace], q["first"], workspace))
    heapq.heapify(heap)
    grants: Counter[int] = Counter()
    while heap and (free is None or free > 0):
        holding, first, workspace = heapq.heappop(heap)
        grants[workspace] += 1
        free = None if free is None else free - 1
        if grants[workspace] < queued[workspace] and holding + 1 < limits[workspace]:
            heapq.heappush(heap, (holding + 1, first, workspace))
    return grants
