"""Workspace settings: the run concurrency limit (any member sees it; owners change it)."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from venus_rpa.accounts.models import Role
from venus_rpa.core.errors import ServiceError
from venus_rpa.dashboard.access import member_view
from venus_rpa.runs.admission import workspace_run_limit
from venus_rpa.runs.selectors import workspace_run_load
from venus_rpa.runs.services import workspace_run_limit_set


def _limit_from_post(value: str) -> int | None:
    """The typed limit: None when blank (the platform default); ValueError when not a whole number."""
    value = value.strip()
    if not value:
        return None
    if not value.isdigit():
        raise ValueError("Give a whole number, or leave it blank for the default.")
    return int(value)


@member_view()
def workspace_settings(request: HttpRequest) -> HttpResponse:
    access = request.access
    workspace = access.workspace
    error, status = "", 200
    if request.method == "POST":
        if access.role != Role.OWNER:
            raise PermissionDenied("Only an owner of the workspace changes its settings.")
        raw = request.POST.get("max_concurrent_runs", "")[:20]
        try:
            workspace_run_limit_set(workspace=workspace, max_concurrent_runs=_limit_from_post(raw))
        except ValueError as exc:
            error, status = str(exc), 400
        except ServiceError as exc:
            error, status = " ".join(sum(exc.fields.values(), [])) or exc.message, 400
        else:
            messages.success(request, "Saved.")
            return redirect("dashboard:workspace-settings")
    return render(request, "dashboard/workspace.html", {
        "workspace": workspace, "is_owner": access.role == Role.OWNER, "error": error, "can_review": access.can_review,
        "limit": workspace_run_limit(workspace=workspace), "default_limit": settings.VENUS_RUNS_PER_WORKSPACE,
        "ceiling": settings.VENUS_RUNS_PER_WORKSPACE_MAX, "load": workspace_run_load(workspace=workspace),
        "typed": request.POST.get("max_concurrent_runs", "")[:20] if error else None,
    }, status=status)
