"""A run's items on the dashboard: the results download (CSV/XLSX) and retrying the failed items,
optionally with the fixed sheet (runs.items, runs.reruns)."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from venus_rpa.core.errors import ServiceError
from venus_rpa.dashboard.access import member_view
from venus_rpa.runs.api import items_download
from venus_rpa.runs.items import ItemsInput, limits
from venus_rpa.runs.models import Trigger
from venus_rpa.runs.reruns import run_items_retry
from venus_rpa.runs.selectors import run_get


@member_view()
def run_items_download(request: HttpRequest, run_id: int, fmt: str) -> HttpResponse:
    """Per-item results of a run of this workspace (any member may read them, as the run itself)."""
    return items_download(run_get(workspace=request.access.workspace, run_id=run_id), fmt)


@member_view(write=True)
@require_POST
def run_items_retry_view(request: HttpRequest, run_id: int) -> HttpResponse:
    run = run_get(workspace=request.access.workspace, run_id=run_id)
    upload = request.FILES.get("items_file")
    corrected = ItemsInput(file=upload.read(limits().file_bytes + 1), field="items_file") if upload else None
    try:
        new = run_items_retry(run=run, user=request.user, trigger=Trigger.DASHBOARD, corrected=corrected)
    except ServiceError as exc:
        details = [" ".join(v) for v in exc.fields.values()]
        messages.error(request, " ".join([exc.message, *details]))
        return redirect("dashboard:run-detail", run_id=run.pk)
    count = new.items.count()
    messages.success(request, f"{count} failed item(s) of run #{run.pk} are being retried in run #{new.pk}.")
    return redirect("dashboard:run-detail", run_id=new.pk)
