"""My notifications: the channels a reviewing member hears of waiting reviews on, and the last
notices sent to them (with why one failed). Each member sees and changes only their own."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from venus_rpa.core.errors import ServiceError
from venus_rpa.dashboard.access import member_view
from venus_rpa.notifications.selectors import notice_list, notification_settings_get
from venus_rpa.notifications.services import notification_settings_update


@member_view(review=True)
def notification_settings(request: HttpRequest) -> HttpResponse:
    workspace, user = request.access.workspace, request.user
    row = notification_settings_get(workspace=workspace, user=user)
    errors: dict[str, list[str]] = {}
    error, status = "", 200
    if request.method == "POST":
        typed = request.POST.get("webhook_url", "")[:4000]
        try:
            notification_settings_update(
                workspace=workspace, user=user, email_enabled=request.POST.get("email_enabled") == "on",
                webhook_url=typed, webhook_enabled=request.POST.get("webhook_enabled") == "on")
        except ServiceError as exc:
            error, errors, status = exc.message, exc.fields, 400
            # Shown again as typed (nothing is lost), not saved.
            row.email_enabled = request.POST.get("email_enabled") == "on"
            row.webhook_enabled = request.POST.get("webhook_enabled") == "on"
            row.webhook_url = typed
        else:
            messages.success(request, "Notification settings saved.")
            return redirect("dashboard:notification-settings")
    return render(request, "dashboard/notifications.html", {
        "row": row, "error": error, "errors": errors, "email": user.email,
        "notices": notice_list(workspace=workspace, user=user)[:20],
    }, status=status)
