"""Automation lifecycle pages: clone, archive / restore from the archive (with a confirmation
step), and restore an earlier version (the diff is shown before confirming). Each calls one
service of `automations.lifecycle`; refusals are shown in the user's words."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from venus_rpa.automations import lifecycle
from venus_rpa.automations.selectors import automation_get, version_get
from venus_rpa.core.errors import ServiceError
from venus_rpa.dashboard.access import member_view
from venus_rpa.dashboard.diff import version_diff, version_lowerings


def _field_lines(exc: ServiceError) -> list[str]:
    return [f"{field}: {' '.join(msgs)}" for field, msgs in exc.fields.items()]


@member_view(write=True)
@require_POST
def automation_clone_view(request: HttpRequest, slug: str) -> HttpResponse:
    automation = automation_get(workspace=request.access.workspace, slug=slug)
    try:
        clone = lifecycle.automation_clone(automation=automation, user=request.user)
    except ServiceError as exc:
        messages.error(request, " ".join([exc.message, *_field_lines(exc)]))
        return redirect("dashboard:automation-edit", slug=automation.slug)
    messages.success(request, f"Created {clone.name} from {automation.name}. Its runs, schedules and webhooks "
                              "were not copied; credentials are shared by name.")
    return redirect("dashboard:automation-edit", slug=clone.slug)


@member_view(write=True)
@require_http_methods(["GET", "POST"])
def automation_archive_view(request: HttpRequest, slug: str) -> HttpResponse:
    """GET: what archiving does, and a confirm button. POST: archive."""
    automation = automation_get(workspace=request.access.workspace, slug=slug)
    if request.method == "GET":
        return render(request, "dashboard/confirm.html", {
            "title": f"Archive {automation.name}?", "confirm": "Archive", "danger": True,
            "cancel_url": reverse("dashboard:automation-edit", args=[automation.slug]),
            "points": ["No run starts from the dashboard, the API, its schedules or its webhooks while it is archived.",
                       f"Its {automation.schedules.count()} schedule(s) stop firing; "
                       f"its {automation.webhook_triggers.count()} webhook(s) answer that it is archived.",
                       f"Its {automation.runs.count()} run(s) keep their history. Runs in progress go on.",
                       "You can restore it from the archive at any time."]})
    try:
        lifecycle.automation_archive(automation=automation, user=request.user)
    except ServiceError as exc:
        messages.error(request, exc.message)
        return redirect("dashboard:automation-edit", slug=automation.slug)
    messages.success(request, f"Archived {automation.name}. Find it under “Archived” to restore it.")
    return redirect("dashboard:automations")


@member_view(write=True)
@require_POST
def automation_unarchive_view(request: HttpRequest, slug: str) -> HttpResponse:
    automation = automation_get(workspace=request.access.workspace, slug=slug)
    try:
        lifecycle.automation_unarchive(automation=automation, user=request.user)
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, f"Restored {automation.name} from the archive; it can run again.")
    return redirect("dashboard:automation-edit", slug=automation.slug)


@member_view(write=True)
@require_http_methods(["GET", "POST"])
def version_restore_view(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    """GET: the diff from the current version to version `number`, and a confirm button.
    POST: make a new version equal to it."""
    automation = automation_get(workspace=request.access.workspace, slug=slug)
    old = version_get(automation=automation, number=number)
    current = automation.current_version
    error = ""
    if request.method == "POST":
        try:
            version = lifecycle.automation_version_restore(automation=automation, number=number, user=request.user)
        except ServiceError as exc:
            error = " ".join([exc.message, *_field_lines(exc)])
        else:
            messages.success(request, f"Saved as version {version.number}, equal to version {number}. "
                                      "Earlier versions are unchanged.")
            return redirect(reverse("dashboard:automation-versions", args=[automation.slug])
                            + f"?a={current.number}&b={version.number}")
    return render(request, "dashboard/automations/restore.html", {
        "automation": automation, "old": old, "current": current, "error": error,
        "diff": version_diff(current, old) if current else [],
        "lowered": version_lowerings(current, old) if current else [],
    }, status=400 if error else 200)
