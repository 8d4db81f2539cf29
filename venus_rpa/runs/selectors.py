"""Reads for runs and steps, always scoped to one workspace."""

from __future__ import annotations

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404

from venus_rpa.accounts.models import Workspace
from venus_rpa.runs.models import Run, Step


def run_list(*, workspace: Workspace, status: str | None = None, automation_slug: str | None = None,
             trigger: str | None = None) -> QuerySet[Run]:
    runs = Run.objects.filter(workspace=workspace).select_related("automation", "version")
    if status:
        runs = runs.filter(status=status)
    if automation_slug:
        runs = runs.filter(automation__slug=automation_slug)
    if trigger:
        runs = runs.filter(trigger=trigger)
    return runs


def run_get(*, workspace: Workspace, run_id: int) -> Run:
    return get_object_or_404(run_list(workspace=workspace), pk=run_id)


def step_list(*, run: Run, after_index: int = -1) -> QuerySet[Step]:
    return run.steps.filter(index__gt=after_index).order_by("index")
