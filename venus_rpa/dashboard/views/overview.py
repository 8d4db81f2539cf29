"""An automation's overview: its runs over a window of days (runs.stats), as charts drawn by the
page's static script from a JSON block, and as plain tables of the same numbers."""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from venus_rpa.automations.selectors import automation_get
from venus_rpa.dashboard.access import member_view
from venus_rpa.dashboard.listing import RUN_STATUS_WORDS
from venus_rpa.runs.stats import TERMINAL_ORDER, WINDOWS, RunStats, automation_run_stats, window_days


def chart_data(stats: RunStats) -> dict:
    """What overview.js draws: one label per day, runs per terminal state, p50/p95 seconds."""
    return {
        "days": [d.day.isoformat() for d in stats.days],
        "labels": [f"{d.day:%b} {d.day.day}" for d in stats.days],  # "Dec 4": short under a phone's chart
        "states": [{"key": str(s), "label": RUN_STATUS_WORDS[str(s)], "counts": [d.counts[str(s)] for d in stats.days]}
                   for s in TERMINAL_ORDER],
        "p50": [d.p50_s for d in stats.days], "p95": [d.p95_s for d in stats.days],
    }


def _runs_link(slug: str, stats: RunStats, **filters: str) -> str:
    query = {"automation": slug, "since": stats.since.isoformat(), "until": stats.until.isoformat(), **filters}
    return reverse("dashboard:runs") + "?" + urlencode(query)


@member_view()
def automation_overview(request: HttpRequest, slug: str) -> HttpResponse:
    automation = automation_get(workspace=request.access.workspace, slug=slug)
    stats = automation_run_stats(automation=automation, days=window_days(request.GET.get("days")))
    reasons = [{"group": g, "words": RUN_STATUS_WORDS[g.status],
                "link": _runs_link(automation.slug, stats, status=g.status, reason=g.reason)} for g in stats.reasons]
    return render(request, "dashboard/automations/overview.html", {
        "automation": automation, "stats": stats, "windows": WINDOWS, "chart": chart_data(stats), "reasons": reasons,
        "states": [(str(s), RUN_STATUS_WORDS[str(s)]) for s in TERMINAL_ORDER],
        "active_days": [d for d in stats.days if any(d.counts.values())],
        "runs_link": _runs_link(automation.slug, stats),
        "failed_link": _runs_link(automation.slug, stats, status="failed"),
    })
