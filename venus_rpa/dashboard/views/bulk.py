"""Retry / re-run one run, and bulk actions with a result per item: cancel or retry the selected
runs, reject the selected reviews with one comment. Ids of other workspaces read as not found."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from venus_rpa.core.errors import ServiceError
from venus_rpa.dashboard.access import member_view
from venus_rpa.dashboard.views.runs import run_index_context
from venus_rpa.reviews.bulk import reviews_approve_run, reviews_bulk_reject
from venus_rpa.reviews.services import DECIDE_ROLES
from venus_rpa.runs.models import Trigger
from venus_rpa.runs.reruns import rerun_label, run_rerun, runs_bulk_cancel, runs_bulk_retry
from venus_rpa.runs.selectors import run_get


def _ids(request: HttpRequest) -> list[int]:
    """The checked ids; anything that is not a plain number is dropped (never a 500)."""
    return [int(v) for v in request.POST.getlist("ids") if v.isdigit() and len(v) < 19]


@member_view(write=True)
@require_POST
def run_retry_view(request: HttpRequest, run_id: int) -> HttpResponse:
    run = run_get(workspace=request.access.workspace, run_id=run_id)
    try:
        new = run_rerun(run=run, user=request.user, trigger=Trigger.DASHBOARD)
    except ServiceError as exc:
        details = [f"{k.removeprefix('params.')}: {' '.join(v)}" for k, v in exc.fields.items()]
        messages.error(request, " ".join([exc.message, *details]))
        return redirect("dashboard:run-detail", run_id=run.pk)
    messages.success(request, f"{rerun_label(run)} of run #{run.pk} started as run #{new.pk}.")
    return redirect("dashboard:run-detail", run_id=new.pk)


@member_view(write=True)
@require_POST
def runs_bulk_view(request: HttpRequest) -> HttpResponse:
    """The runs list again (same filters, from the query string), with one line per selected run."""
    action = request.POST.get("action")
    acts = {"cancel": runs_bulk_cancel, "retry": runs_bulk_retry}
    context = {}
    if action not in acts:
        context["bulk_error"] = "Choose Cancel selected or Retry selected."
    else:
        kwargs = {"trigger": Trigger.DASHBOARD} if action == "retry" else {}
        try:
            context["bulk_results"] = acts[action](workspace=request.access.workspace, ids=_ids(request),
                                                   user=request.user, **kwargs)
        except ServiceError as exc:
            context["bulk_error"] = exc.message
        context["bulk_action"] = "Cancel" if action == "cancel" else "Retry"
    status = 400 if "bulk_error" in context else 200
    return render(request, "dashboard/runs/list.html", {**run_index_context(request), **context}, status=status)


@member_view(review=True)
@require_POST
def reviews_bulk_reject_view(request: HttpRequest) -> HttpResponse:
    if request.access.role not in DECIDE_ROLES:
        raise PermissionDenied("Deciding on risky actions needs the owner or reviewer role in the workspace.")
    try:
        results = reviews_bulk_reject(workspace=request.access.workspace, ids=_ids(request), user=request.user,
                                      comment=request.POST.get("comment", "")[:2000])
    except ServiceError as exc:
        messages.error(request, exc.message)
        return redirect("dashboard:reviews")
    return render(request, "dashboard/bulk_results.html", {
        "title": "Reject selected reviews", "results": results, "back": "dashboard:reviews",
        "back_label": "Back to the review queue"})


@member_view(review=True)
@require_POST
def reviews_approve_run_view(request: HttpRequest, run_id: int) -> HttpResponse:
    """Approve the run's pending actions that are within its policy; one line per review."""
    run_get(workspace=request.access.workspace, run_id=run_id)  # another workspace's run: 404
    if request.access.role not in DECIDE_ROLES:
        raise PermissionDenied("Deciding on risky actions needs the owner or reviewer role in the workspace.")
    try:
        results = reviews_approve_run(workspace=request.access.workspace, run_id=run_id, user=request.user,
                                      comment=request.POST.get("comment", "")[:2000])
    except ServiceError as exc:
        messages.error(request, exc.message)
        return redirect("dashboard:reviews")
    return render(request, "dashboard/bulk_results.html", {
        "title": f"Approve all for run #{run_id}", "results": results, "back": "dashboard:reviews",
        "back_label": "Back to the review queue"})
