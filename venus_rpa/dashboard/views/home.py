"""The overview: what is running, what waits for a person, what happened lately."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.cache import patch_vary_headers

from venus_rpa.automations.selectors import automation_list
from venus_rpa.dashboard.access import member_view
from venus_rpa.reviews.models import ReviewStatus
from venus_rpa.reviews.selectors import review_list
from venus_rpa.runs.models import ACTIVE, RunStatus
from venus_rpa.runs.selectors import run_list


@member_view()
def home(request: HttpRequest) -> HttpResponse:
    workspace = request.access.workspace
    runs = run_list(workspace=workspace)
    # The live feed (dashboard.js) re-reads only the counters and recent runs.
    template = "dashboard/_home_live.html" if request.htmx.target == "home-live" else "dashboard/home.html"
    response = render(request, template, {
        "recent_runs": runs[:8],
        "active_count": runs.filter(status__in=ACTIVE).count(),
        "queued_count": runs.filter(status=RunStatus.QUEUED).count(),
        "pending_reviews": review_list(workspace=workspace, status=ReviewStatus.PENDING).count(),
        "automation_count": automation_list(workspace=workspace).count(),
    })
    patch_vary_headers(response, ("HX-Request", "HX-Target"))  # a cached fragment is never shown as the page
    return response
