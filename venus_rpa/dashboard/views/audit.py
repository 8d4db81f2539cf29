"""The workspace audit log: who changed, ran, approved or deleted what, searchable and paged.

Every role that can change something sees it (owners, editors, reviewers); viewers, who change
nothing, do not (403)."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from venus_rpa.accounts.models import Role
from venus_rpa.audit.models import AuditAction
from venus_rpa.audit.selectors import audit_list
from venus_rpa.dashboard.access import member_view
from venus_rpa.dashboard.listing import listing, search_text

AUDIT_ROLES = {Role.OWNER, Role.EDITOR, Role.REVIEWER}


@member_view()
def audit_index(request: HttpRequest) -> HttpResponse:
    if request.access.role not in AUDIT_ROLES:
        raise PermissionDenied("The audit log is for owners, editors and reviewers of the workspace.")
    action = request.GET.get("action") if request.GET.get("action") in AuditAction.values else ""
    events = audit_list(workspace=request.access.workspace, search=search_text(request), action=action or None)
    listed = listing(request, events)
    return render(request, "dashboard/audit.html", {
        "page": listed.page, "filters": listed.filters, "q": listed.q, "action": action,
        "actions": AuditAction.choices})
