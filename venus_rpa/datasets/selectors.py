"""Reads for trajectory export: a workspace's finished runs that match an export filter, their
agent steps and the people's decisions on them. Always scoped to one workspace."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime, time

from django.db.models import Q, QuerySet
from django.utils import timezone

from venus_rpa.accounts.models import Workspace
from venus_rpa.datasets.spec import ExportFilter
from venus_rpa.reviews.models import ReviewRequest
from venus_rpa.runs.models import TERMINAL, Run, Step

CHUNK = 200  # rows fetched per round trip while streaming


def _day(value: date, end: bool) -> datetime:
    return timezone.make_aware(datetime.combine(value, time.max if end else time.min))


def export_runs(*, workspace: Workspace, spec: ExportFilter, after_id: int = 0, until_id: int | None = None) -> QuerySet[Run]:
    """The workspace's finished runs matching `spec`, oldest first (id order: an export resumes
    after the last run it wrote), ids in (after_id, until_id]."""
    runs = (Run.objects.filter(workspace=workspace, status__in=TERMINAL, pk__gt=after_id)
            .select_related("automation", "version").order_by("pk"))
    if until_id is not None:
        runs = runs.filter(pk__lte=until_id)
    if spec.automation:
        runs = runs.filter(automation__slug=spec.automation)
    if spec.surface:
        runs = runs.filter(version__surface=spec.surface)
    if spec.verdict == "passed":
        runs = runs.filter(verdict__passed=True)
    elif spec.verdict == "failed":
        runs = runs.filter(Q(verdict__passed=False) | Q(status__in=[s for s in TERMINAL if s != "succeeded"]))
    if spec.date_from:
        runs = runs.filter(created_at__gte=_day(spec.date_from, end=False))
    if spec.date_to:
        runs = runs.filter(created_at__lte=_day(spec.date_to, end=True))
    return runs


def export_run_ids(*, workspace: Workspace, spec: ExportFilter, after_id: int = 0,
                   until_id: int | None = None) -> Iterator[int]:
    """The matching run ids, streamed in id order (never the whole list in memory)."""
    return export_runs(workspace=workspace, spec=spec, after_id=after_id, until_id=until_id) \
        .values_list("pk", flat=True).iterator(chunk_size=CHUNK)


def export_last_run_id(*, workspace: Workspace, spec: ExportFilter) -> int:
    """The newest matching run's id when an export starts: the export is of the runs up to it."""
    return export_runs(workspace=workspace, spec=spec).order_by("-pk").values_list("pk", flat=True).first() or 0


def run_steps(*, run: Run) -> Iterator[Step]:
    """A run's step records in order, streamed."""
    return Step.objects.filter(run=run).order_by("index").iterator(chunk_size=CHUNK)


def run_last_question_index(*, run: Run) -> int | None:
    """The index of the run's last agent turn that asked the user (CallUser): the run keeps the
    answer to its last question only."""
    return (Step.objects.filter(run=run, kind="agent", action__text__icontains="CallUser(")
            .order_by("-index").values_list("index", flat=True).first())


def run_reviews(*, run: Run) -> list[ReviewRequest]:
    """The people's decisions on a run (risky actions, questions, CAPTCHAs), oldest first."""
    return list(ReviewRequest.objects.filter(run=run, workspace=run.workspace).order_by("created_at", "pk"))
