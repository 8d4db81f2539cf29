"""Devices and pools: Celery workers online, what they run, and the Android device registry
(owners register, enable / disable and remove devices here; `venus_rpa.devices`)."""

from __future__ import annotations


from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from venus_rpa.accounts.models import Role
from venus_rpa.core.errors import ServiceError
from venus_rpa.dashboard.access import member_view
from venus_rpa.dashboard.listing import listing, search_text
from venus_rpa.dashboard.devices import active_runs, desktops, workers_report
from venus_rpa.dashboard.field_errors import json_object_read
from venus_rpa.dashboard.templatetags.dashboard import flower_url
from venus_rpa.devices import selectors as device_selectors, services as device_services


@member_view()
def device_index(request: HttpRequest) -> HttpResponse:
    devices = device_selectors.device_list(workspace=request.access.workspace)
    for word in search_text(request).split()[:5]:
        devices = devices.filter(Q(resource__key__icontains=word) | Q(model__icontains=word))
    listed = listing(request, devices)
    return render(request, "dashboard/devices.html", {
        "flower_url": flower_url(request),
        "active_runs": active_runs(workspace=request.access.workspace),
        "desktops": desktops(workspace=request.access.workspace),
        "android_devices": listed.page.object_list, "page": listed.page, "filters": listed.filters, "q": listed.q,
        "is_owner": request.access.role == Role.OWNER,
        "adb_servers": settings.VENUS_ADB_SERVERS,
    })


@require_POST
@member_view()
def device_android(request: HttpRequest) -> HttpResponse:
    """Register an Android device, or enable / disable / remove one (owners only)."""
    access = request.access
    if access.role != Role.OWNER:
        raise PermissionDenied("Devices are managed by the workspace's owners.")
    action = request.POST.get("action", "register")
    try:
        if action == "register":
            host, _, port = request.POST.get("adb_server", "").rpartition(":")
            device_services.device_register(
                workspace=access.workspace, serial=request.POST.get("serial", "")[:200], adb_host=host,
                adb_port=int(port) if port.isdigit() else 0, apps=_json_object(request.POST.get("apps", ""), "Apps"),
                tags=_json_object(request.POST.get("tags", ""), "Tags"))
            messages.success(request, "Device registered; the health check looks it up on its adb server.")
        else:
            device = device_selectors.device_get(workspace=access.workspace, device_id=int(request.POST.get("device", 0)),
                                                 own=True)
            if action == "remove":
                device_services.device_remove(device=device)
            elif action in ("enable", "disable"):
                device_services.device_update(device=device, status="available" if action == "enable" else "disabled")
            messages.success(request, f"Device {device.serial}: {action}d.")
    except (ServiceError, ValueError) as exc:
        fields = sum(getattr(exc, "fields", {}).values(), [])
        messages.error(request, " ".join(fields) or getattr(exc, "message", str(exc)))
    return redirect("dashboard:devices")


def _json_object(raw: str, label: str) -> dict:
    """A JSON object typed into the form ({} when blank); ValueError saying where it is wrong."""
    problems: list[str] = []
    value = json_object_read(raw, label, problems)
    if problems:
        raise ValueError(problems[0] + ' For example {"Venus Pay": "com.venus.practice"}.')
    return value


@member_view()
def device_workers(request: HttpRequest) -> HttpResponse:
    """The workers panel, loaded after the page so a slow broker does not hold the page up."""
    return render(request, "dashboard/_workers.html", {"report": workers_report(workspace=request.access.workspace)})
