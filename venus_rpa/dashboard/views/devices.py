"""Devices and pools: Celery workers online, what they run, and the (future) device pools."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from venus_rpa.dashboard.access import member_view
from venus_rpa.dashboard.devices import active_runs, workers_report


@member_view()
def device_index(request: HttpRequest) -> HttpResponse:
    return render(request, "dashboard/devices.html", {
        "flower_url": settings.VENUS_FLOWER_URL,
        "active_runs": active_runs(workspace=request.access.workspace),
    })


@member_view()
def device_workers(request: HttpRequest) -> HttpResponse:
    """The workers panel, loaded after the page so a slow broker does not hold the page up."""
    return render(request, "dashboard/_workers.html", {"report": workers_report(workspace=request.access.workspace)})
