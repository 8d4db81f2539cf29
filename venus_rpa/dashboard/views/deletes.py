"""Deleting credentials, schedules and webhooks, always through a confirmation page (GET shows
what goes and what stays; POST deletes). Each deletion is audited by its service."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from venus_rpa.automations.lifecycle import credential_delete
from venus_rpa.automations.selectors import credential_get
from venus_rpa.core.errors import ServiceError
from venus_rpa.dashboard.access import member_view


def confirm_page(request: HttpRequest, *, title: str, points: list[str], cancel: str, error: str = "") -> HttpResponse:
    return render(request, "dashboard/confirm.html", {
        "title": title, "points": points, "confirm": "Delete", "danger": True, "cancel_url": reverse(cancel),
        "error": error}, status=409 if error else 200)


@member_view(write=True)
@require_http_methods(["GET", "POST"])
def credential_delete_view(request: HttpRequest, name: str) -> HttpResponse:
    credential = credential_get(workspace=request.access.workspace, name=name)
    title = f"Delete credential {credential.name}?"
    points = ["Its encrypted values and saved sign-in sessions are deleted; this cannot be undone.",
              "Automations that name it cannot sign in any more, so one still in use is refused."]
    if request.method == "POST":
        try:
            credential_delete(credential=credential, user=request.user)
        except ServiceError as exc:
            return confirm_page(request, title=title, points=points, cancel="dashboard:credentials", error=exc.message)
        messages.success(request, f"Deleted credential {name}.")
        return redirect("dashboard:credentials")
    return confirm_page(request, title=title, points=points, cancel="dashboard:credentials")


@member_view(write=True)
@require_http_methods(["GET", "POST"])
def schedule_delete_view(request: HttpRequest, schedule_id: int) -> HttpResponse:
    from venus_rpa.triggers import selectors, services

    schedule = selectors.schedule_get(workspace=request.access.workspace, schedule_id=schedule_id)
    if request.method == "POST":
        services.schedule_delete(schedule=schedule, user=request.user)
        messages.success(request, f"Deleted schedule {schedule.name}.")
        return redirect("dashboard:schedules")
    return confirm_page(request, title=f"Delete schedule {schedule.name}?", cancel="dashboard:schedules", points=[
        f"No more runs of {schedule.automation.name} start at “{schedule.cron}” ({schedule.timezone}).",
        "Runs it started keep their history. To stop it for a while instead, pause it."])
