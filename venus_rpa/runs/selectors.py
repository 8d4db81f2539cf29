"""Reads for runs and steps, always scoped to one workspace."""

from __future__ import annotations

from django.db.models import Case, Count, IntegerField, OuterRef, Q, QuerySet, Subquery, Value, When
from django.db.models.functions import Coalesce
from django.shortcuts import get_object_or_404

from venus_rpa.accounts.models import Workspace
from venus_rpa.runs import admission
from venus_rpa.runs.models import Run, RunStatus, Step


def run_list(*, workspace: Workspace, status: str | None = None, automation_slug: str | None = None,
             trigger: str | None = None, search: str = "", statuses: list[str] | None = None) -> QuerySet[Run]:
    """The workspace's runs, newest first, each with `queue_position` (see `with_queue_position`).
    `search`: a run number (“42”, “#42”) or words of the automation's name or the status reason;
    `statuses`: any of these states."""
    runs = with_queue_position(Run.objects.filter(workspace=workspace).select_related("automation", "version"))
    if status:
        runs = runs.filter(status=status)
    if statuses:
        runs = runs.filter(status__in=statuses)
    for word in search.split()[:5]:
        number = word.lstrip("#")
        match = Q(automation__name__icontains=word) | Q(status_reason__icontains=word)
        runs = runs.filter(match | Q(pk=int(number)) if number.isdigit() and len(number) < 19 else match)
    if automation_slug:
        runs = runs.filter(automation__slug=automation_slug)
    if trigger:
        runs = runs.filter(trigger=trigger)
    return runs


def run_get(*, workspace: Workspace, run_id: int) -> Run:
    return get_object_or_404(run_list(workspace=workspace), pk=run_id)


def with_queue_position(runs: QuerySet[Run]) -> QuerySet[Run]:
    """Annotate `queue_position`: for a run waiting for a slot, 1 + how many runs of its own
    workspace will be admitted before it (the dispatcher admits a workspace's runs oldest first;
    other workspaces' queues are not counted, nor shown); 0 for a run admitted and waiting for a
    worker thread; None once it has started or ended."""
    ahead = (Run.objects.filter(admission.waiting(), workspace=OuterRef("workspace"), pk__lt=OuterRef("pk"))
             .order_by().values("workspace").annotate(n=Count("pk")).values("n"))
    return runs.annotate(queue_position=Case(
        When(admission.waiting(), then=Coalesce(Subquery(ahead, output_field=IntegerField()), Value(0)) + 1),
        When(status=RunStatus.QUEUED, then=Value(0)),
        default=None, output_field=IntegerField(),
    ))


def run_queue_position(*, run: Run) -> int | None:
    """`queue_position` of one run (see `with_queue_position`), read afresh."""
    return with_queue_position(Run.objects.filter(pk=run.pk)).values_list("queue_position", flat=True).first()


def workspace_run_load(*, workspace: Workspace) -> dict[str, int]:
    """How many of the workspace's runs hold slots now (`active`) and wait for one (`waiting`)."""
    runs = Run.objects.filter(workspace=workspace)
    return {"active": runs.filter(admission.slot_holders()).count(), "waiting": runs.filter(admission.waiting()).count()}


def step_list(*, run: Run, after_index: int = -1) -> QuerySet[Step]:
    return run.steps.filter(index__gt=after_index).order_by("index")
